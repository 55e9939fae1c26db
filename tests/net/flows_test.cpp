#include "net/flows.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "tests/net/net_fixtures.hpp"

using namespace fabricsim;
using namespace fabricsim::net;
using namespace fabricsim::net::test;

namespace {

// The web-search CDF's points (scenarios/workloads/flow_sizes/websearch.csv), as fractions.
FlowSizeCdf websearch() {
  return FlowSizeCdf({{0, 0},
                      {10000, .15},
                      {20000, .20},
                      {30000, .30},
                      {50000, .40},
                      {80000, .53},
                      {200000, .60},
                      {1000000, .70},
                      {2000000, .80},
                      {5000000, .90},
                      {10000000, .97},
                      {30000000, 1}});
}

}  // namespace

TEST_CASE("flow-size CDF: interpolates, has the segments' mean, refuses bad points", "[net]") {
  const FlowSizeCdf cdf = websearch();
  REQUIRE(cdf.mean() == Approx(1'711'250));  // sum of segment midpoints x probabilities
  REQUIRE(cdf.sample(0) == 0);
  REQUIRE(cdf.sample(0.15) == Approx(10000));
  REQUIRE(cdf.sample(0.175) == Approx(15000));
  REQUIRE(cdf.sample(0.985) == Approx(20'000'000));
  REQUIRE_THROWS_WITH(FlowSizeCdf({{0, 0}, {10, 0.5}}), Catch::Contains("end at 1"));
  REQUIRE_THROWS_WITH(FlowSizeCdf({{0, 0}, {10, 0.5}, {5, 1}}),
                      Catch::Contains("point 3 (5 bytes, 1)"));
  REQUIRE_THROWS_WITH(FlowSizeCdf({{0, 0.1}, {10, 1}}), Catch::Contains("start at fraction 0"));
}

TEST_CASE("poisson flows offer the requested load, to other NICs, deterministically", "[net]") {
  const Topology topo = star(16);
  const FlowSizeCdf cdf = websearch();
  const core::Time duration = 50 * core::kMillisecond;
  const double load = 0.4;
  const auto flows = poisson(topo, cdf, load, core::kMicrosecond, duration, 7, 1'000'000);
  double bytes = 0;
  core::Time last = 0;
  for (const FlowSpec& f : flows) {
    REQUIRE(f.src_nic != f.dst_nic);
    REQUIRE(f.bytes >= 1);
    REQUIRE(f.start >= last);  // sorted by start
    REQUIRE(f.start < core::kMicrosecond + duration);
    last = f.start;
    bytes += double(f.bytes);
  }
  // 16 NICs x 100 Gb/s x 40% x 50 ms = 4 GB offered in ~2,340 flows. Bounds at ~3.5 standard
  // errors: the byte total's (a heavy-tailed size, ~4% here) and the Poisson count's (2%).
  const double offered = 16 * double(kRate) / 8 * load * 0.05;
  CAPTURE(flows.size(), bytes / offered);
  REQUIRE(bytes / offered == Approx(1).epsilon(0.15));
  REQUIRE(double(flows.size()) ==
          Approx(offered / cdf.mean()).epsilon(0.07));
  // The same seed gives the same flows; another seed others.
  const auto again = poisson(topo, cdf, load, core::kMicrosecond, duration, 7, 1'000'000);
  REQUIRE(again.size() == flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i) {
    REQUIRE(again[i].start == flows[i].start);
    REQUIRE(again[i].bytes == flows[i].bytes);
    REQUIRE(again[i].dst_nic == flows[i].dst_nic);
  }
  REQUIRE(poisson(topo, cdf, load, 0, duration, 8, 1'000'000).size() != flows.size());
  REQUIRE_THROWS_AS(poisson(topo, cdf, load, 0, duration, 7, 100), std::length_error);
}
