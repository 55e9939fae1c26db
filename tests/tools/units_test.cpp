#include <catch2/catch.hpp>

#include "tools/units.hpp"

using namespace fabricsim;
using tools::parse_time;

TEST_CASE("times parse with their units", "[units]") {
  REQUIRE(parse_time("1us") == core::kMicrosecond);
  REQUIRE(parse_time("1.5ns") == 1500);
  REQUIRE(parse_time(" 20 ms ") == 20 * core::kMillisecond);
  REQUIRE(parse_time("250ps") == 250);
  REQUIRE(parse_time("1e3ns") == core::kMicrosecond);
  REQUIRE(parse_time("3s") == 3 * core::kSecond);
}

TEST_CASE("times without a unit or with a wrong one are refused", "[units]") {
  REQUIRE_THROWS_WITH(parse_time("100"), Catch::Contains("has no unit"));
  REQUIRE_THROWS_WITH(parse_time("5 parsecs"), Catch::Contains("unknown time unit"));
  REQUIRE_THROWS_WITH(parse_time("fast"), Catch::Contains("not a time"));
  REQUIRE_THROWS_WITH(parse_time("-1us"), Catch::Contains("out of range"));
  REQUIRE_THROWS_WITH(parse_time("1e30s"), Catch::Contains("out of range"));
}
