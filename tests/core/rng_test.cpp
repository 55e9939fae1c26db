#include <catch2/catch.hpp>
#include <cmath>

#include "core/rng.hpp"

using namespace fabricsim::core;

TEST_CASE("rng streams depend on seed and stream, and repeat", "[rng]") {
  Rng a(1, 5), b(1, 5), c(1, 6), d(2, 5);
  const std::uint64_t x = a.next();
  REQUIRE(x == b.next());
  REQUIRE(x != c.next());
  REQUIRE(x != d.next());
}

TEST_CASE("rng distributions have the right moments", "[rng]") {
  Rng r(3, 0);
  constexpr int kN = 200000;
  double sum_u = 0, sum_e = 0;
  std::uint64_t buckets[10] = {};
  for (int i = 0; i < kN; ++i) {
    const double u = r.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum_u += u;
    sum_e += r.exponential(5.0);
    ++buckets[r.below(10)];
  }
  // Standard errors: uniform mean 1/sqrt(12 N) ~ 6.5e-4, exponential mean 5/sqrt(N) ~ 0.011.
  REQUIRE(std::abs(sum_u / kN - 0.5) < 0.004);
  REQUIRE(std::abs(sum_e / kN - 5.0) < 0.07);
  for (std::uint64_t b : buckets) REQUIRE(std::abs(double(b) - kN / 10.0) < 600);
}
