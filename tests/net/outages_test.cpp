#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "net/outages.hpp"
#include "tests/net/net_fixtures.hpp"

using namespace fabricsim;
using namespace fabricsim::net;
using namespace fabricsim::net::test;

namespace {

LinkId link_between(const Topology& topo, const std::string& a, const std::string& b) {
  for (LinkId l = 0; l < topo.links.size(); ++l) {
    const std::string& x = topo.nodes[topo.links[l].a].name;
    const std::string& y = topo.nodes[topo.links[l].b].name;
    if ((x == a && y == b) || (x == b && y == a)) return l;
  }
  throw std::logic_error("no link " + a + " - " + b);
}

// Both directions of a link: bytes sent and frames lost.
struct LinkUse {
  std::uint64_t tx_bytes = 0, lost = 0;
};

LinkUse use_of(const Topology& topo, const NetworkResult& r, LinkId l) {
  const Link& k = topo.links[l];
  const PortStats& x = r.ports[r.port_base[k.a] + k.port_a];
  const PortStats& y = r.ports[r.port_base[k.b] + k.port_b];
  return {x.tx_bytes + y.tx_bytes, x.lost + y.lost};
}

core::Time last_finish(const NetworkResult& r) {
  core::Time t = 0;
  for (const FlowResult& f : r.flows) t = std::max(t, f.finish);
  return t;
}

// Two leaves of four hosts and two spines: every host of leaf 0 sends to one of leaf 1.
struct TwoLeaves {
  Topology topo = leaf_spine(2, 4, 1, 2);
  std::vector<FlowSpec> flows;
  TwoLeaves() {
    for (std::uint32_t i = 0; i < 4; ++i) flows.push_back({i, 4 + i, 2'000'000, 0});
  }
  // The uplink of leaf0 that carries the most of the intact run's bytes (ECMP decides which).
  LinkId busy_uplink() const {
    const NetworkResult r = run({});
    const LinkId a = link_between(topo, "leaf0", "spine0"),
                 b = link_between(topo, "leaf0", "spine1");
    return use_of(topo, r, a).tx_bytes >= use_of(topo, r, b).tx_bytes ? a : b;
  }
  NetworkResult run(std::vector<LinkOutage> outages, std::uint32_t lps = 1) const {
    NetworkConfig cfg = config(cc::Kind::kDcqcn);
    cfg.outages = std::move(outages);
    Network net(topo, cfg, flows);
    RunOptions opt;
    opt.lps = lps;
    opt.threads = lps > 1 ? 2 : 1;
    return net.run(opt);
  }
};

}  // namespace

TEST_CASE("a spine link that fails mid-run: frames on it are lost, the transport resends them",
          "[net][outage]") {
  const TwoLeaves c;
  const LinkId up0 = c.busy_uplink();
  const NetworkResult intact = c.run({});
  const NetworkResult failed = c.run({{up0, 30 * core::kMicrosecond}});
  for (const NetworkResult* r : {&intact, &failed}) require_conservation(*r, c.flows);
  REQUIRE(use_of(c.topo, intact, up0).lost == 0);
  REQUIRE(total_retransmitted(intact) == 0);
  // 30 us in, the link carries queued and in-flight frames of the flows hashed onto it: they
  // are lost, counted, and sent again over the other spine.
  const LinkUse u = use_of(c.topo, failed, up0);
  CAPTURE(u.lost, u.tx_bytes);
  REQUIRE(u.lost > 0);
  REQUIRE(total_retransmitted(failed) > 0);
  REQUIRE(failed.dropped > 0);
  REQUIRE(total_drops(failed) == 0);  // no switch dropped anything: the losses are the link's
  // After the failure everything leaves leaf0 on the one uplink left: 8 MB less what both
  // uplinks could carry in the first 30 us, at 100 Gb/s.
  const double floor_s = (8e6 - 2 * 12.5e9 * 30e-6) / 12.5e9;
  CAPTURE(last_finish(intact), last_finish(failed));
  REQUIRE(double(last_finish(failed)) * 1e-12 > floor_s);
}

TEST_CASE("routing avoids a failed link while it is down and uses it again once it is back",
          "[net][outage]") {
  const TwoLeaves c;
  const LinkId up0 = c.busy_uplink();
  // Down from the start: nothing is ever sent on it, so nothing is lost.
  const NetworkResult gone = c.run({{up0, 0}});
  require_conservation(gone, c.flows);
  REQUIRE(use_of(c.topo, gone, up0).tx_bytes == 0);
  REQUIRE(total_retransmitted(gone) == 0);
  // Back at 100 us, while the flows still run: new packets take it again.
  const NetworkResult back = c.run({{up0, 0, 100 * core::kMicrosecond}});
  require_conservation(back, c.flows);
  const LinkUse u = use_of(c.topo, back, up0);
  REQUIRE(u.lost == 0);
  REQUIRE(u.tx_bytes > 0);
  REQUIRE(last_finish(back) < last_finish(gone));
}

TEST_CASE("a run with link failures is the same on any number of logical processes",
          "[net][outage][determinism]") {
  const TwoLeaves c;
  const std::vector<LinkOutage> o{
      {link_between(c.topo, "leaf0", "spine0"), 30 * core::kMicrosecond, 200 * core::kMicrosecond},
      {link_between(c.topo, "leaf1", "spine1"), 120 * core::kMicrosecond}};
  const NetworkResult one = c.run(o, 1);
  const NetworkResult four = c.run(o, 4);
  require_conservation(one, c.flows);
  REQUIRE(one.flows.size() == four.flows.size());
  for (std::size_t f = 0; f < one.flows.size(); ++f) {
    REQUIRE(one.flows[f].finish == four.flows[f].finish);
    REQUIRE(one.flows[f].retransmitted_bytes == four.flows[f].retransmitted_bytes);
  }
  REQUIRE(one.kernel.events == four.kernel.events);
}

TEST_CASE("a NIC's link that goes down and comes back: its flow resumes after the outage",
          "[net][outage]") {
  const Topology topo = star(2);
  const std::vector<FlowSpec> flows{{0, 1, 4'000'000, 0}};
  NetworkConfig cfg = config(cc::Kind::kNone);
  const LinkId nic_link = topo.nodes[topo.nics[0]].ports[0];
  const core::Time until = 500 * core::kMicrosecond;
  cfg.outages = {{nic_link, 100 * core::kMicrosecond, until}};
  const NetworkResult r = Network(topo, cfg, flows).run({});
  require_conservation(r, flows);
  REQUIRE(r.flows[0].finish > until);
  REQUIRE(r.flows[0].retransmitted_bytes > 0);
}

TEST_CASE("failures that cannot run are refused before the run", "[net][outage]") {
  const Topology topo = leaf_spine(2, 2, 1, 2);
  const LinkId nic_link = topo.nodes[topo.nics[0]].ports[0];
  const LinkId up0 = link_between(topo, "leaf0", "spine0");
  const LinkId up1 = link_between(topo, "leaf0", "spine1");
  // A NIC link that never comes back: its flows could never finish.
  REQUIRE_THROWS_WITH(Outages(topo, {{nic_link, 0}}),
                      Catch::Contains("NIC's only link") && Catch::Contains("until"));
  // Both uplinks of leaf0 at once cut it off from the other leaf.
  const core::Time us = core::kMicrosecond;
  REQUIRE_THROWS_WITH(Outages(topo, {{up0, 10 * us}, {up1, 5 * us, 20 * us}}),
                      Catch::Contains("cut in two") && Catch::Contains("from 10.000 us"));
  REQUIRE_NOTHROW(Outages(topo, {{up0, 10 * us, 20 * us}, {up1, 20 * us}}));
  REQUIRE_THROWS_WITH(Outages(topo, {{up0, 10 * us, 10 * us}}),
                      Catch::Contains("must come back after"));
  // The flow level has no packets to lose.
  NetworkConfig cfg;
  cfg.fidelity = Fidelity::kFlow;
  cfg.outages = {{up0, 10}};
  REQUIRE_THROWS_WITH(check_config(topo, cfg), Catch::Contains("needs the packet level"));
}
