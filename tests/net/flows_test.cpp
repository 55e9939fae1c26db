#include "net/flows.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <set>
#include <vector>

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
  REQUIRE(double(flows.size()) == Approx(offered / cdf.mean()).epsilon(0.07));
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

TEST_CASE("poisson flows with an incast mix: distinct senders into one NIC at the mix's load",
          "[net]") {
  const Topology topo = star(32);
  const FlowSizeCdf cdf = websearch();
  const core::Time duration = 50 * core::kMillisecond;
  const IncastMix mix{8, 200'000, 0.05};
  const auto plain = poisson(topo, cdf, 0.3, 0, duration, 3, 1'000'000);
  const auto mixed = poisson(topo, cdf, 0.3, 0, duration, 3, 1'000'000, mix);
  // The background is the same flows with or without incasts (a random stream of its own).
  std::vector<FlowSpec> background;
  std::map<std::pair<core::Time, std::uint32_t>, std::set<std::uint32_t>> events;
  for (const FlowSpec& f : mixed) {
    if (f.tag != kIncastTag) {
      background.push_back(f);
      continue;
    }
    REQUIRE(f.bytes == mix.bytes);
    REQUIRE(f.src_nic != f.dst_nic);
    REQUIRE(events[{f.start, f.dst_nic}].insert(f.src_nic).second);  // senders distinct
  }
  REQUIRE(background.size() == plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    REQUIRE(background[i].start == plain[i].start);
    REQUIRE(background[i].dst_nic == plain[i].dst_nic);
  }
  std::set<std::uint32_t> receivers;
  for (const auto& [key, senders] : events) {
    REQUIRE(senders.size() == mix.senders);
    receivers.insert(key.second);
  }
  // 32 NICs x 100 Gb/s x 5% x 50 ms = 1 GB in events of 8 x 200 KB: ~625 of them (Poisson,
  // bounds at ~3.5 standard errors), spread over the receivers.
  const double expected = 32 * double(kRate) / 8 * mix.load * 0.05 / (8 * 200'000.0);
  CAPTURE(events.size(), expected);
  REQUIRE(double(events.size()) == Approx(expected).epsilon(0.15));
  REQUIRE(receivers.size() > 16);
  REQUIRE_THROWS_AS(poisson(topo, cdf, 0.3, 0, duration, 3, 1'000'000, IncastMix{32, 1, 0.1}),
                    std::invalid_argument);
}
