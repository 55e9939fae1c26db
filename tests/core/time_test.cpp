#include <catch2/catch.hpp>

#include "core/time.hpp"

using namespace fabricsim::core;

TEST_CASE("times format with the largest fitting unit", "[time]") {
  REQUIRE(format_time(1500 * kNanosecond) == "1.5us");
  REQUIRE(format_time(20 * kNanosecond) == "20ns");
  REQUIRE(format_time(250) == "250ps");
  REQUIRE(format_time(3 * kSecond) == "3s");
  REQUIRE(format_time(kTimeMax) == "inf");
}
