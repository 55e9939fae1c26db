#include <catch2/catch.hpp>
#include <set>

#include "core/pool.hpp"

using namespace fabricsim::core;

TEST_CASE("pool reuses released slots and keeps live ones intact", "[pool]") {
  Pool<int> pool;
  const auto a = pool.alloc(), b = pool.alloc(), c = pool.alloc();
  pool[a] = 1, pool[b] = 2, pool[c] = 3;
  REQUIRE(std::set<std::uint32_t>{a, b, c}.size() == 3);
  pool.release(b);
  REQUIRE(pool.live() == 2);
  const auto d = pool.alloc();
  REQUIRE(d == b);
  REQUIRE(pool.capacity() == 3);
  REQUIRE(pool[a] == 1);
  REQUIRE(pool[c] == 3);
}
