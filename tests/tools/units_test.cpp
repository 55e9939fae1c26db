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

using tools::parse_bytes;
using tools::parse_rate;

TEST_CASE("sizes parse with decimal and binary prefixes", "[units]") {
  REQUIRE(parse_bytes("4096B") == 4096);
  REQUIRE(parse_bytes("0B") == 0);
  REQUIRE(parse_bytes("2MB") == 2'000'000);
  REQUIRE(parse_bytes("64KiB") == 65'536);
  REQUIRE(parse_bytes("1.5GB") == 1'500'000'000);
  REQUIRE(parse_bytes("32MiB") == 32ULL * 1024 * 1024);
  REQUIRE(parse_bytes(" 10 KB ") == 10'000);
  REQUIRE(parse_bytes("1.1KB") == 1'100);
  REQUIRE(parse_bytes("2TiB") == 2ULL << 40);
  REQUIRE(parse_bytes("3TB") == 3'000'000'000'000ULL);
  REQUIRE(parse_bytes("1GiB") == 1ULL << 30);
}

TEST_CASE("sizes without a unit, with a wrong one or fractional bytes are refused", "[units]") {
  REQUIRE_THROWS_WITH(parse_bytes("4096"),
                      Catch::Contains("has no unit") && Catch::Contains("4096B"));
  REQUIRE_THROWS_WITH(parse_bytes("2mb"), Catch::Contains("unknown size unit 'mb'"));
  REQUIRE_THROWS_WITH(parse_bytes("2 bytes"), Catch::Contains("unknown size unit"));
  REQUIRE_THROWS_WITH(parse_bytes("1.5B"), Catch::Contains("not a whole number of bytes"));
  REQUIRE_THROWS_WITH(parse_bytes("-1KB"), Catch::Contains("out of range"));
  REQUIRE_THROWS_WITH(parse_bytes("big"), Catch::Contains("not a size"));
  REQUIRE_THROWS_WITH(parse_bytes("1e30B"), Catch::Contains("out of range"));
}

TEST_CASE("rates parse in bits and bytes per second", "[units]") {
  REQUIRE(parse_rate("100Gbps") == 100 * net::kGbps);
  REQUIRE(parse_rate("400 Gbps") == 400 * net::kGbps);
  REQUIRE(parse_rate("450GBps") == 3600 * net::kGbps);
  REQUIRE(parse_rate("25Mbps") == 25'000'000);
  REQUIRE(parse_rate("1.6Tbps") == 1600 * net::kGbps);
  REQUIRE(parse_rate("10kbps") == 10'000);
  REQUIRE(parse_rate("12bps") == 12);
  REQUIRE(parse_rate("0Gbps") == 0);  // zero is the caller's to refuse, with the key's name
}

TEST_CASE("rates without a unit or with a wrong one are refused", "[units]") {
  REQUIRE_THROWS_WITH(parse_rate("100"),
                      Catch::Contains("has no unit") && Catch::Contains("100Gbps"));
  REQUIRE_THROWS_WITH(parse_rate("100Gb"), Catch::Contains("unknown rate unit 'Gb'"));
  REQUIRE_THROWS_WITH(parse_rate("100gbps"), Catch::Contains("unknown rate unit"));
  REQUIRE_THROWS_WITH(parse_rate("100GiBps"), Catch::Contains("unknown rate unit"));
  REQUIRE_THROWS_WITH(parse_rate("0.5bps"), Catch::Contains("not a whole number"));
  REQUIRE_THROWS_WITH(parse_rate("-5Gbps"), Catch::Contains("out of range"));
  REQUIRE_THROWS_WITH(parse_rate("fast"), Catch::Contains("not a rate"));
}

TEST_CASE("exact formatting round-trips through the parsers", "[units]") {
  using namespace tools;
  REQUIRE(format_bytes(4096) == "4096B");
  REQUIRE(format_bytes(32'000'000) == "32MB");
  REQUIRE(format_bytes(65'536) == "64KiB");
  REQUIRE(format_rate(100 * net::kGbps) == "100Gbps");
  REQUIRE(format_rate(1600 * net::kGbps) == "1600Gbps");
  REQUIRE(format_time_exact(67'108'864 * core::kNanosecond) == "67108864ns");
  REQUIRE(format_time_exact(0) == "0us");
  for (std::uint64_t b : {std::uint64_t{1}, std::uint64_t{4096}, std::uint64_t{12345},
                          std::uint64_t{1} << 40, std::uint64_t{3'000'000'000}}) {
    REQUIRE(parse_bytes(format_bytes(b)) == b);
  }
  for (net::Bps r : {net::Bps{1}, net::Bps{40'000'000}, net::Bps{123'456'789}, 1600 * net::kGbps}) {
    REQUIRE(parse_rate(format_rate(r)) == r);
  }
  for (core::Time t : {core::Time{1}, 55 * core::kMicrosecond, 4096 * core::kNanosecond * 16384}) {
    REQUIRE(parse_time(format_time_exact(t)) == t);
  }
}
