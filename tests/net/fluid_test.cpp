// The flow level (net/fluid.hpp): max-min fair shares, path latency, and agreement with the
// packet level where no congestion transient matters.
#include <algorithm>
#include <catch2/catch.hpp>

#include "net/wire.hpp"
#include "tests/net/net_fixtures.hpp"

using namespace fabricsim;
using namespace fabricsim::net;
using namespace fabricsim::net::test;

namespace {

NetworkConfig flow_config() {
  NetworkConfig c = config(cc::Kind::kNone);
  c.fidelity = Fidelity::kFlow;
  return c;
}

// Seconds to move `bytes` of payload in full packets at `share` of kRate.
double payload_seconds(std::uint64_t bytes, double share, std::uint32_t mtu) {
  return double(bytes) * 8 / (double(kRate) * share * mtu / data_wire_bytes(mtu));
}

double seconds(core::Time t) {
  return double(t) * 1e-12;
}

}  // namespace

TEST_CASE("flow level: one flow alone takes the packet level's goodput and path latency",
          "[net][fluid]") {
  const Topology topo = star(2);
  const std::uint32_t mtu = 4096;
  const std::vector<FlowSpec> flows{{0, 1, 4000ULL * mtu, 5 * core::kMicrosecond}};
  NetworkConfig cfg = flow_config();
  cfg.nic.mtu = mtu;
  const NetworkResult f = Network(topo, cfg, flows).run({});
  require_conservation(f, flows);
  // Two links of 1 us; the switch stores the last packet before forwarding it.
  const double latency = 2e-6 + seconds(serialization(data_wire_bytes(mtu), kRate));
  REQUIRE(seconds(f.flows[0].fct()) ==
          Approx(payload_seconds(flows[0].bytes, 1, mtu) + latency).epsilon(1e-6));
  REQUIRE(f.flows[0].slowdown() == Approx(1).epsilon(1e-4));
  // The packet level's time for the same flow, within 0.5%.
  const NetworkResult p = Network(topo, config(cc::Kind::kNone), flows).run({});
  REQUIRE(double(f.flows[0].fct()) == Approx(double(p.flows[0].fct())).epsilon(0.005));
  // A few events, not a few per packet.
  REQUIRE(f.kernel.events * 100 < p.kernel.events);
}

TEST_CASE("flow level: shares are max-min fair and change when flows end", "[net][fluid]") {
  // Into NIC 3: A (0), B (1) and C (2) share its link, a third each; D (2 -> 1) shares NIC 2's
  // link with C, whose share the link into NIC 3 fixes, so D takes the other two thirds. When D
  // ends, C cannot go faster: the link into NIC 3 still holds it.
  const Topology topo = star(4);
  const std::uint64_t bytes = 1000ULL * 4096;
  const std::vector<FlowSpec> flows{
      {0, 3, bytes, 0}, {1, 3, bytes, 0}, {2, 3, bytes, 0}, {2, 1, bytes, 0}};
  const NetworkResult r = Network(topo, flow_config(), flows).run({});
  require_conservation(r, flows);
  const double t = payload_seconds(bytes, 1, 4096);
  const double latency = seconds(r.flows[0].fct()) - 3 * t;
  REQUIRE(latency > 0);
  REQUIRE(latency < 3e-6);
  for (int f = 0; f < 3; ++f) REQUIRE(seconds(r.flows[f].fct()) == Approx(3 * t + latency));
  REQUIRE(seconds(r.flows[3].fct()) == Approx(1.5 * t + latency));
  // Every link a flow crossed counted its bytes; the link into NIC 3 was busy throughout.
  const NodeId sw = topo.peer(topo.nics[3], 0);
  const PortStats& into3 = r.ports[r.port_base[sw] + topo.peer_port(topo.nics[3], 0)];
  REQUIRE(into3.tx_data_bytes == 3 * bytes);
  REQUIRE(seconds(into3.busy) == Approx(3 * t).epsilon(1e-3));
}

TEST_CASE("flow level: a queue pair's own limit caps it and frees the rest for others",
          "[net][fluid]") {
  const Topology topo = star(3);
  const std::uint64_t bytes = 1000ULL * 4096;
  std::vector<FlowSpec> flows{{0, 2, bytes, 0}, {1, 2, bytes, 0}};
  flows[0].max_rate = kRate / 4;
  const NetworkResult r = Network(topo, flow_config(), flows).run({});
  // Flow 0 moves its payload at a quarter of the line rate (the limit counts payload); flow 1
  // takes the rest of the link's payload capacity, until it ends first.
  const double quarter = double(kRate) / 4 / 8;                                      // bytes/s
  const double capacity = double(kRate) / 8 * 4096 / double(data_wire_bytes(4096));  // payload
  REQUIRE(seconds(r.flows[1].fct()) == Approx(double(bytes) / (capacity - quarter)).epsilon(0.01));
  REQUIRE(seconds(r.flows[0].fct()) == Approx(double(bytes) / quarter).epsilon(0.01));
}

TEST_CASE("flow level: an incast ends when the packet level's lossless incast does",
          "[net][fluid]") {
  // 16 senders into one port, no congestion control, PFC: the bottleneck stays busy and the
  // last flow ends after 16 flows' bytes at the link's goodput, at both levels.
  const Topology topo = star(17);
  const std::vector<FlowSpec> flows = incast(17, 16, 16, 2'000'000, 0);
  const NetworkResult f = Network(topo, flow_config(), flows).run({});
  const NetworkResult p = Network(topo, config(cc::Kind::kNone), flows).run({});
  const auto last = [](const NetworkResult& r) {
    core::Time t = 0;
    for (const FlowResult& x : r.flows) t = std::max(t, x.finish);
    return double(t);
  };
  REQUIRE(last(f) == Approx(last(p)).epsilon(0.02));
  // Fluid flows share exactly: every flow ends together.
  for (const FlowResult& x : f.flows) REQUIRE(x.finish == f.flows[0].finish);
}

TEST_CASE("flow level: the same results for any thread count, and spraying refused",
          "[net][fluid]") {
  const Topology topo = leaf_spine(4, 4, 2);
  const std::vector<FlowSpec> flows = permutation(16, 3'000'000, 0, 7);
  const NetworkResult a = Network(topo, flow_config(), flows).run({.lps = 4, .threads = 1});
  const NetworkResult b = Network(topo, flow_config(), flows).run({.lps = 8, .threads = 2});
  for (std::size_t f = 0; f < flows.size(); ++f) REQUIRE(a.flows[f].finish == b.flows[f].finish);
  for (std::size_t p = 0; p < a.ports.size(); ++p) REQUIRE(a.ports[p].busy == b.ports[p].busy);
  // Flows that share an uplink (ECMP collisions on a 2:1 fabric) take longer than alone.
  REQUIRE(std::any_of(a.flows.begin(), a.flows.end(),
                      [](const FlowResult& x) { return x.slowdown() > 1.5; }));

  NetworkConfig spray = flow_config();
  spray.sw.routing = Routing::kSpray;
  REQUIRE_THROWS_WITH(Network(topo, spray, flows),
                      Catch::Contains("network.routing") && Catch::Contains("ecmp"));
}

TEST_CASE("flow level: a run cut short counts the bytes sent by then", "[net][fluid]") {
  const Topology topo = star(2);
  const std::uint64_t bytes = 1000ULL * 4096;
  const std::vector<FlowSpec> flows{{0, 1, bytes, 0}};
  const double t = payload_seconds(bytes, 1, 4096);
  // A later flow that starts at half the first one's time is the run's last event there.
  std::vector<FlowSpec> two = flows;
  two.push_back({1, 0, 4096, static_cast<core::Time>(t / 2 * 1e12)});
  const NetworkResult r =
      Network(topo, flow_config(), two).run({.end = static_cast<core::Time>(t / 2 * 1e12) + 1});
  REQUIRE(r.flows[0].finish < 0);
  REQUIRE(double(r.nic_data_sent) == Approx(double(bytes) / 2).epsilon(0.01));
  REQUIRE(r.nic_data_received == r.nic_data_sent);
  const PortStats& nic0 = r.ports[r.port_base[topo.nics[0]]];
  REQUIRE(double(nic0.tx_data_bytes) == Approx(double(bytes) / 2).epsilon(0.01));
}
