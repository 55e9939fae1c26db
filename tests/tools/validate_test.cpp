// The accuracy bar's arithmetic: errors from the measured times, and the three size tiers.
#include "tools/validate.hpp"

#include <catch2/catch.hpp>

using namespace fabricsim::tools;

namespace {

ValidationRow row(std::uint64_t bytes, double measured_busbw, double measured_us,
                  double simulated_busbw, double simulated_us) {
  ValidationRow r;
  r.measured.bytes = bytes;
  r.measured.busbw_gbps = measured_busbw;
  r.measured.time_us = measured_us;
  r.simulated.bytes = bytes;
  r.simulated.busbw_gbps = simulated_busbw;
  r.simulated.time_us = simulated_us;
  return r;
}

}  // namespace

TEST_CASE("the error comes from the times where the source has them", "[validate]") {
  // A 1 KiB all-reduce on 16 ranks that took 69.24 us prints busbw 0.03 GB/s (0.0277 before
  // rounding); simulated in 50 us: 38.5% faster, where the rounded busbw would say 23%.
  const ValidationRow small = row(1024, 0.03, 69.24, 0.0384, 50.0);
  CHECK(small.rel_error() == Approx(69.24 / 50.0 - 1));
  // Without a measured time, the bus bandwidths.
  const ValidationRow no_time = row(1 << 20, 10.0, 0, 12.0, 80.0);
  CHECK(no_time.rel_error() == Approx(0.2));
  // Neither: no error to speak of.
  CHECK(row(8, 0, 0, 0.001, 10).rel_error() == 0);
}

TEST_CASE("the bar has three tiers by size", "[validate]") {
  ValidationResult r;
  r.median_error_1m = 0.04;
  r.max_error_64k = 0.14;
  r.max_error_small = 0.24;
  CHECK(meets_bar(r));
  r.max_error_small = 0.26;
  CHECK_FALSE(meets_bar(r));
  CHECK(meets_bar(r, Bar{0.05, 0.15, 0.30}));
  r.max_error_small = -1;  // no size below 64 KiB
  CHECK(meets_bar(r));
  r.max_error_64k = 0.16;
  CHECK_FALSE(meets_bar(r));
  r.max_error_64k = 0.1;
  r.median_error_1m = 0.051;
  CHECK_FALSE(meets_bar(r));
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 2, 3}) == 2.5);
}

TEST_CASE("a reference point is read from its quoted CSV row, first column pair first",
          "[validate]") {
  const std::string path = "tests/data/busbw/reference_points.csv";
  int ranks = 0;
  // Quoted settings with commas before it; busbw only in the unspecified column.
  const Measured ring = load_point(path, "ndmv4-2n8g-ar-4G", ranks);
  CHECK(ranks == 16);
  CHECK(ring.bytes == 4294967296ULL);
  CHECK(ring.busbw_gbps == Approx(188.18));
  CHECK(ring.time_us == 0);
  // A latency point: a time, no bus bandwidth.
  const Measured latency = load_point(path, "ndmv4-1n8g-a2a-1K", ranks);
  CHECK(ranks == 8);
  CHECK(latency.bytes == 1024);
  CHECK(latency.time_us == Approx(9.34));
  CHECK(latency.busbw_gbps == 0);
  // Out of place where the source gives both.
  const Measured both = load_point(path, "wh-h100x4-ar-proto-LL", ranks);
  CHECK(both.busbw_gbps == Approx(146.90));
  CHECK_THROWS_WITH(load_point(path, "no-such-point", ranks), Catch::Contains("no point"));
}
