#include "core/fork_join.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

using namespace fabricsim::core;

TEST_CASE("fork_join runs every part once and waits for all of them", "[fork_join]") {
  for (unsigned parts : {1u, 2u, 5u}) {
    std::vector<int> ran(parts, 0);  // each part writes only its own entry
    fork_join(parts, [&](unsigned part) { ++ran[part]; });
    REQUIRE(ran == std::vector<int>(parts, 1));
  }
}

TEST_CASE("fork_join rethrows the first part's error after every part has finished",
          "[fork_join]") {
  std::atomic<int> finished{0};
  const auto f = [&](unsigned part) {
    ++finished;
    if (part == 1) throw std::runtime_error("part 1");
    if (part == 3) throw std::logic_error("part 3");
  };
  REQUIRE_THROWS_WITH(fork_join(4, f), "part 1");
  REQUIRE(finished == 4);
}
