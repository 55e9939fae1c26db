#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "core/error.hpp"
#include "net/ecn.hpp"
#include "net/topology/partition.hpp"
#include "net/wire.hpp"
#include "tests/net/net_fixtures.hpp"

using namespace fabricsim;
using namespace fabricsim::net;
using namespace fabricsim::net::test;

TEST_CASE("one flow on an idle path runs at wire goodput with the path's latency", "[net]") {
  const Topology topo = star(2);
  const std::uint32_t mtu = 4096;
  const std::uint64_t bytes = 4000ULL * mtu;
  std::vector<FlowSpec> flows{{0, 1, bytes, 5 * core::kMicrosecond}};
  NetworkConfig cfg = config(cc::Kind::kNone);
  cfg.nic.mtu = mtu;
  Network net(topo, cfg, flows);
  const NetworkResult r = net.run({});
  require_conservation(r, flows);

  const double goodput = double(kRate) * mtu / data_wire_bytes(mtu);  // bits/s
  REQUIRE(data_wire_bytes(mtu) == mtu + 82);
  const double fct_s = double(r.flows[0].fct()) * 1e-12;
  // Two links of 1 us, and the switch stores the last packet before forwarding it.
  const double latency_s = 2e-6 + double(serialization(data_wire_bytes(mtu), kRate)) * 1e-12;
  REQUIRE(fct_s == Approx(double(bytes) * 8 / goodput + latency_s).epsilon(0.01));
  REQUIRE(double(bytes) * 8 / fct_s == Approx(goodput).epsilon(0.01));
  // Alone on an idle path, a flow takes its unloaded FCT: slowdown 1.
  REQUIRE(r.flows[0].slowdown() == Approx(1).epsilon(0.005));
  REQUIRE(r.flows[0].retransmitted_bytes == 0);
  REQUIRE(total_drops(r) == 0);
}

TEST_CASE("HPCC alone on a short path settles at its target utilization", "[net][hpcc]") {
  // 100 Gb/s links of 50 ns: the window is ~2.7 packets. HPCC-ns3 sends while fewer bytes than
  // the window are in flight (IsWinBound), so a lone flow settles near eta = 0.95 of the line;
  // holding every packet inside the window gave 2 packets a round trip, 75%.
  SingleParams p;
  p.hosts = 2;
  p.host = plain_host();
  p.nic = {kRate, 50 * core::kNanosecond};
  const Topology topo = single(p);
  const std::uint64_t bytes = 40'000'000;
  std::vector<FlowSpec> flows{{0, 1, bytes, 0}};
  NetworkConfig cfg = config(cc::Kind::kHpcc);
  cfg.nic.mtu = 4096;
  Network net(topo, cfg, flows);
  const NetworkResult r = net.run({});
  require_conservation(r, flows);
  const double busy = double(r.ports[r.port_base[topo.nics[0]]].busy) / double(r.end);
  CHECK(busy > 0.93);
  CHECK(busy < 0.97);
}

TEST_CASE("HPCC's telemetry costs 42 bytes on the wire on every data packet and ACK", "[net]") {
  const Topology topo = star(2);
  const std::uint32_t mtu = 1000;
  const std::uint64_t packets = 200;
  std::vector<FlowSpec> flows{{0, 1, packets * mtu, 0}};
  for (const cc::Kind kind : {cc::Kind::kNone, cc::Kind::kHpcc}) {
    CAPTURE(cc::name(kind));
    NetworkConfig cfg = config(kind);
    cfg.nic.mtu = mtu;
    const NetworkResult r = Network(topo, cfg, flows).run({});
    require_conservation(r, flows);
    REQUIRE(r.flows[0].retransmitted_bytes == 0);
    const std::uint32_t extra = kind == cc::Kind::kHpcc ? kHpccIntBytes : 0;
    // The sending NIC's port carries the data packets, the receiving NIC's one ACK each.
    const PortStats& tx = r.ports[r.port_base[topo.nics[0]]];
    const PortStats& rx = r.ports[r.port_base[topo.nics[1]]];
    REQUIRE(tx.tx_bytes == packets * (data_wire_bytes(mtu) + extra));
    REQUIRE(rx.tx_bytes == packets * (kAckWireBytes + extra));
  }
}

TEST_CASE("time on the wire is bits over rate rounded up to a picosecond, at every size", "[net]") {
  // The exact value in 128 bits, to compare the 64-bit path for frames with.
  const auto exact = [](std::uint64_t bytes, Bps rate) {
    const unsigned __int128 bits_ps = static_cast<unsigned __int128>(bytes) * 8'000'000'000'000ULL;
    return static_cast<Time>((bits_ps + rate - 1) / rate);
  };
  for (const std::uint64_t bytes :
       {std::uint64_t{1}, std::uint64_t{84}, std::uint64_t{4178}, std::uint64_t{9084},
        std::uint64_t{1'999'999}, std::uint64_t{2'000'000}, std::uint64_t{2'000'001}}) {
    for (const Bps rate :
         {Bps{2}, Bps{3}, Bps{1'000}, 25 * kGbps, 100 * kGbps, 400 * kGbps, Bps{999'999'999'999},
          2'400 * kGbps, Bps{1'000'000'000'000'000'000}, Bps{1'000'000'000'000'000'001}}) {
      CAPTURE(bytes, rate);
      REQUIRE(serialization(bytes, rate) == exact(bytes, rate));
    }
  }
}

TEST_CASE("a frame whose time on the wire passes the simulated horizon is an error", "[net]") {
  // 1 GB at 1 bps: 8e9 s, past int64 picoseconds (about 106.7 days); 1 GB at 1 Gbps is 8 s.
  REQUIRE(serialization(1'000'000'000, kGbps) == 8 * core::kSecond);
  REQUIRE_THROWS_AS(serialization(1'000'000'000, 1), core::HorizonError);
  REQUIRE_THROWS_WITH(
      serialization(1'000'000'000, 1),
      Catch::Contains("1000000000 bytes on a 1 bps link") && Catch::Contains("about 106.7 days"));
  // A 1 TB flow on 1 kbps NICs: its unloaded time alone passes the horizon, refused up front.
  const Topology topo = [] {
    SingleParams p;
    p.hosts = 2;
    p.host = plain_host();
    p.nic = {1000, kDelay};
    return single(p);
  }();
  NetworkConfig cfg = config(cc::Kind::kNone);
  cfg.nic.rto = 1000 * core::kSecond;  // above the round trip of a packet at 1 kbps
  REQUIRE_THROWS_AS(Network(topo, cfg, {{0, 1, 1'000'000'000'000, 0}}), core::HorizonError);
}

TEST_CASE("a queue pair's own rate limit paces it below the line rate", "[net]") {
  const Topology topo = star(2);
  const std::uint32_t mtu = 4096;
  const std::uint64_t bytes = 1000ULL * mtu;
  std::vector<FlowSpec> flows{{0, 1, bytes, 0}};
  flows[0].max_rate = kRate / 4;
  NetworkConfig cfg = config(cc::Kind::kNone);
  cfg.nic.mtu = mtu;
  const NetworkResult r = Network(topo, cfg, flows).run({});
  require_conservation(r, flows);
  // The limit counts the application's bytes: payload at a quarter of the line rate (the
  // latency of the path is negligible here), not the wire bytes with the NIC's headers.
  const double payload_s = double(bytes) * 8 / double(kRate / 4);
  REQUIRE(double(r.flows[0].fct()) * 1e-12 == Approx(payload_s).epsilon(0.002));
}

namespace {

struct IncastOutcome {
  NetworkResult r;
  std::vector<FlowSpec> flows;
  double bottleneck_busy = 0;  // share of the active period the receiver's link was sending
  double fairness = 0;
  std::uint64_t max_queue = 0;
};

IncastOutcome run_incast(const NetworkConfig& cfg, std::uint64_t bytes) {
  const Topology topo = star(17);
  IncastOutcome o;
  o.flows = incast(17, 16, 16, bytes, 0);
  Network net(topo, cfg, o.flows);
  o.r = net.run({});
  core::Time last = 0;
  std::vector<double> tput;
  for (const FlowResult& f : o.r.flows) {
    last = std::max(last, f.finish);
    if (f.finish > 0) tput.push_back(double(bytes) / double(f.fct()));
  }
  // The switch's port toward NIC 16.
  const NodeId sw = topo.peer(topo.nics[16], 0);
  const PortStats& bottleneck = o.r.ports[o.r.port_base[sw] + topo.peer_port(topo.nics[16], 0)];
  o.bottleneck_busy = double(bottleneck.busy) / double(last);
  o.fairness = jain(tput);
  o.max_queue = bottleneck.max_queue_bytes;
  return o;
}

IncastOutcome run_incast(cc::Kind kind, bool pfc, std::uint64_t bytes) {
  NetworkConfig cfg = config(kind);
  cfg.sw.pfc = pfc;
  return run_incast(cfg, bytes);
}

}  // namespace

TEST_CASE("16-to-1 incast, lossless: no drops, a busy bottleneck, fair shares", "[net][incast]") {
  const auto dcqcn = run_incast(cc::Kind::kDcqcn, true, 2'000'000);
  const auto hpcc = run_incast(cc::Kind::kHpcc, true, 2'000'000);
  NetworkConfig paper_cfg = config(cc::Kind::kDcqcn);
  paper_cfg.cc.dcqcn = cc::dcqcn_paper();
  const auto paper = run_incast(paper_cfg, 2'000'000);
  for (const auto* o : {&dcqcn, &hpcc, &paper}) {
    require_conservation(o->r, o->flows);
    REQUIRE(total_drops(o->r) == 0);
    REQUIRE(o->fairness >= 0.95);
  }
  // HPCC aims at eta = 95% utilisation and loses some more while flows finish at different
  // times (measured 0.88); a drop well below its target is a regression.
  REQUIRE(hpcc.bottleneck_busy >= config(cc::Kind::kHpcc).cc.hpcc.eta - 0.1);
  // DCQCN as ConnectX runs it keeps the bottleneck mostly busy (measured 0.86): Rt is not
  // clamped to Rc unless the increase timer fired, and the 32 KB byte counter climbs back
  // within microseconds; what it loses is the 300 us increase timer that restarts at every
  // cut while the first queue drains (docs/network.md, "DCQCN"). The published variant cuts at
  // every CNP, clamps Rt each time and recovers only every 55 us, so a synchronized incast leaves
  // its bottleneck idle most of the time (measured 0.41): the mechanism, not a tuning, makes the
  // difference.
  REQUIRE(dcqcn.bottleneck_busy > 0.85);
  REQUIRE(paper.bottleneck_busy > 0.2);
  REQUIRE(dcqcn.bottleneck_busy > paper.bottleneck_busy + 0.3);
  // Without congestion control, PFC alone keeps the lossless bottleneck saturated.
  const auto none = run_incast(cc::Kind::kNone, true, 2'000'000);
  require_conservation(none.r, none.flows);
  REQUIRE(total_drops(none.r) == 0);
  REQUIRE(none.bottleneck_busy >= 0.95);
  CAPTURE(dcqcn.max_queue, hpcc.max_queue);
  REQUIRE(hpcc.max_queue < dcqcn.max_queue);
}

TEST_CASE(
    "TIMELY incast: the reference model's rules climb back from the floor; the paper's "
    "10 Mb/s step at 100 Gb/s does not",
    "[net][incast]") {
  const auto ns3 = run_incast(cc::Kind::kTimely, true, 2'000'000);
  NetworkConfig paper_cfg = config(cc::Kind::kTimely);
  paper_cfg.cc.timely = cc::timely_paper();
  const auto paper = run_incast(paper_cfg, 2'000'000);
  CAPTURE(ns3.bottleneck_busy, ns3.fairness, paper.bottleneck_busy, paper.fairness);
  for (const auto* o : {&ns3, &paper}) {
    require_conservation(o->r, o->flows);
    REQUIRE(total_drops(o->r) == 0);
  }
  // The first queue (~21 MB, PFC-bounded) drives every flow to its floor. With HPCC-ns3's
  // rules (a step of 1/1000 of the line rate, hyper increase after five increases of any kind,
  // a 1 Gb/s floor) the flows are back at their share within tens of round trips and then
  // oscillate around it (measured 0.87 busy); with the paper's 10 Mb/s step and 64 KB
  // completion events, a flow at its 100 Mb/s floor waits 5 ms per update (measured 0.08).
  REQUIRE(ns3.bottleneck_busy > 0.8);
  REQUIRE(ns3.fairness >= 0.9);
  REQUIRE(paper.bottleneck_busy < 0.5 * ns3.bottleneck_busy);
}

TEST_CASE("PFC keeps a long incast lossless: XOFF re-sent while congested, headroom freed first",
          "[net][pfc]") {
  // 16 x 20 MB at line rate into one port with PFC alone: the queue sits at its XOFF threshold
  // for milliseconds. A PAUSE lapses after 65535 quanta (335 us at 100 Gb/s) and a paused
  // upstream sends nothing that could prompt a refresh, so the switch must re-send XOFF on its
  // own; and headroom must drain as the port drains, not when the packets that overflowed into
  // it reach the head of a 20 MB queue.
  const std::uint64_t bytes = GENERATE(20'000'000ULL, 2'000'000ULL);
  NetworkConfig cfg = config(cc::Kind::kNone);
  // Short pauses (20 us at 100 Gb/s) make every lapse show within the 2 MB case too.
  if (bytes == 2'000'000) cfg.sw.pfc_pause_quanta = 4000;
  const auto o = run_incast(cfg, bytes);
  require_conservation(o.r, o.flows);
  REQUIRE(total_drops(o.r) == 0);
  REQUIRE(total_retransmitted(o.r) == 0);
  REQUIRE(o.bottleneck_busy >= 0.95);
  std::uint64_t pauses = 0;
  for (const PortStats& p : o.r.ports) pauses += p.pauses_sent;
  REQUIRE(pauses > 0);
}

TEST_CASE("PFC: a paused port that holds nothing in the buffer resumes its sender", "[net][pfc]") {
  // 63 senders into one port of a small buffer: while the pool is full every port's dynamic
  // threshold (alpha x free pool) is low, and a port can drain its last packet without ever
  // passing below threshold - resume offset. HPCC-ns3's switch resumes a port that holds nothing
  // (switch-mmu.cc CheckShouldResume); without that rule 13 senders stayed paused for good and
  // the run ended with their flows unfinished.
  const Topology topo = star(64);
  const auto flows = incast(64, 63, 63, 2'000'000, 0);
  NetworkConfig cfg = config(cc::Kind::kDcqcn);
  cfg.sw.buffer_bytes = 6'000'000;
  cfg.sw.pfc_alpha = 1;
  Network net(topo, cfg, flows);
  RunOptions opt;
  opt.end = core::kSecond;
  const NetworkResult r = net.run(opt);
  require_conservation(r, flows);
  REQUIRE(total_drops(r) == 0);
  for (const FlowResult& f : r.flows) REQUIRE(f.acked >= 0);
  // The incast moves 126 MB through one 100 Gb/s port: ~10 ms, not a second of pauses.
  core::Time last = 0;
  for (const FlowResult& f : r.flows) last = std::max(last, f.acked);
  REQUIRE(last < 20 * core::kMillisecond);
}

TEST_CASE("PFC: a lossless fabric that must drop stops with the place and the cause",
          "[net][pfc]") {
  const Topology topo = star(5);
  const auto flows = incast(5, 4, 4, 1'000'000, 0);
  NetworkConfig cfg = config(cc::Kind::kNone);
  cfg.sw.ecn = false;
  cfg.sw.pfc_headroom_factor = 0;  // two packets of headroom for 1 us of cable: too little
  cfg.sw.pfc_xoff_bytes = 20'000;
  cfg.sw.buffer_bytes = 2'000'000;
  Network net(topo, cfg, flows);
  REQUIRE_THROWS_AS(Network(topo, cfg, flows).run({}), LosslessDrop);
  // The four senders are symmetric: which of their ports overflows first is a matter of event
  // order at equal times, so the message must name one of them, not a particular one.
  REQUIRE_THROWS_WITH(net.run({}), Catch::Contains("lossless fabric dropped a packet") &&
                                       Catch::Matches(".* at switch port ([0-3]) \\(from "
                                                      "host\\1\\.nic0\\) .*") &&
                                       Catch::Contains("pfc_headroom_factor"));
}

TEST_CASE("PFC: a port faster than the NICs pauses later (alpha x 2 per doubling of its rate)",
          "[net][pfc]") {
  // Two leaves of 8 hosts, one 400 Gb/s uplink each through one spine: 8 hosts of leaf 0 send
  // 1 MB each to one host of leaf 1, whose 400 Gb/s ingress from the spine fills behind the
  // 100 Gb/s port to the receiver.
  FatTreeParams p;
  p.leaves = 2;
  p.hosts_per_leaf = 8;
  p.host = plain_host();
  p.nic = {kRate, kDelay};
  p.uplink = {4 * kRate, kDelay};
  const Topology topo = fat_tree(p);
  std::vector<FlowSpec> flows;
  for (std::uint32_t s = 0; s < 8; ++s) flows.push_back({s, 8, 1'000'000, 0});
  core::Time paused[2] = {};
  std::uint64_t held[2] = {};
  for (const bool by_rate : {false, true}) {
    NetworkConfig cfg = config(cc::Kind::kNone);
    cfg.sw.ecn = false;
    cfg.sw.buffer_bytes = 4'000'000;
    cfg.sw.pfc_alpha_by_rate = by_rate;
    const NetworkResult r = Network(topo, cfg, flows).run({});
    require_conservation(r, flows);
    REQUIRE(total_drops(r) == 0);
    // How long leaf 1 held the spine's port towards it paused, and the deepest queue it built
    // before the receiver.
    const NodeId leaf1 = topo.peer(topo.nics[8], 0);
    for (PortId q = 0; q < topo.nodes[leaf1].ports.size(); ++q) {
      const NodeId peer = topo.peer(leaf1, q);
      if (topo.nodes[peer].kind == NodeKind::kSwitch) {
        paused[by_rate] += r.ports[r.port_base[peer] + topo.peer_port(leaf1, q)].paused;
      } else if (peer == topo.nics[8]) {
        held[by_rate] = r.ports[r.port_base[leaf1] + q].max_queue_bytes;
      }
    }
  }
  CAPTURE(paused[0], paused[1], held[0], held[1]);
  // At 4 x 1/8 = 1/2 of the free buffer instead of 1/8 the leaf holds more of the burst before
  // it pauses the spine: an ingress holding x pauses at x = a (F - x), x = aF / (1 + a), F/3
  // instead of F/9 of the free buffer F (measured 1.84 against 0.84 MB, the headroom and the
  // hosts' own ports included), so the spine is paused for less time (875 against 1,037 us).
  REQUIRE(paused[0] > 0);
  REQUIRE(held[1] > 2 * held[0]);
  REQUIRE(paused[1] < paused[0]);
}

TEST_CASE("PFC: a refresh period that lets pauses lapse is refused", "[net][pfc]") {
  NetworkConfig cfg = config(cc::Kind::kNone);
  cfg.sw.pfc_pause_quanta = 100;            // 0.512 us at 100 Gb/s
  cfg.sw.pfc_refresh = core::kMicrosecond;  // longer than one pause
  REQUIRE_THROWS_WITH(check_config(star(2), cfg), Catch::Contains("pfc_refresh"));
  cfg.sw.pfc_pause_quanta = 0;
  REQUIRE_THROWS_WITH(check_config(star(2), cfg), Catch::Contains("pfc_pause_quanta"));
  // One quantum (512 bit times) is shorter than the 84-byte PAUSE frame itself: its pauses
  // lapsed as they arrived and a lossless switch overran its buffer mid-run.
  cfg = config(cc::Kind::kNone);
  cfg.sw.pfc_pause_quanta = 1;
  REQUIRE_THROWS_WITH(check_config(star(2), cfg),
                      Catch::Contains("no longer than the PAUSE frame that carries it (672 bit") &&
                          Catch::Contains("use at least 2"));
  cfg.sw.pfc_pause_quanta = 2;
  REQUIRE_NOTHROW(check_config(star(2), cfg));
}

TEST_CASE("16-to-1 incast, lossy without congestion control: drops, then go-back-N recovers",
          "[net][incast]") {
  const Topology topo = star(17);
  const auto flows = incast(17, 16, 16, 500'000, 0);
  NetworkConfig cfg = config(cc::Kind::kNone);
  cfg.sw.pfc = false;
  cfg.sw.buffer_bytes = 400'000;
  cfg.nic.rto = 100 * core::kMicrosecond;
  Network net(topo, cfg, flows);
  const NetworkResult r = net.run({});
  REQUIRE(total_drops(r) > 0);
  // All at the congested egress, the switch port toward the receiver (once at the ingresses).
  const NodeId sw = topo.peer(topo.nics[16], 0);
  const PortId to_receiver = topo.peer_port(topo.nics[16], 0);
  REQUIRE(r.ports[r.port_base[sw] + to_receiver].drops == total_drops(r));
  REQUIRE(total_retransmitted(r) > 0);
  require_conservation(r, flows);  // every byte delivered exactly once, in order
}

TEST_CASE("PFC: a low XOFF pauses the senders and nothing is dropped; without PFC it drops",
          "[net][pfc]") {
  const Topology topo = star(5);
  const auto flows = incast(5, 4, 4, 1'000'000, 0);
  NetworkConfig cfg = config(cc::Kind::kNone);
  cfg.sw.ecn = false;
  cfg.sw.pfc_xoff_bytes = 20'000;
  cfg.sw.buffer_bytes = 2'000'000;
  const NetworkResult lossless = Network(topo, cfg, flows).run({});
  require_conservation(lossless, flows);
  REQUIRE(total_drops(lossless) == 0);
  std::uint64_t sent = 0, received = 0;
  core::Time paused = 0;
  for (std::uint32_t n = 0; n < 4; ++n) {
    const NodeId nic = topo.nics[n];
    const NodeId sw = topo.peer(nic, 0);
    sent += lossless.ports[lossless.port_base[sw] + topo.peer_port(nic, 0)].pauses_sent;
    received += lossless.ports[lossless.port_base[nic]].pauses_received;
    paused += lossless.ports[lossless.port_base[nic]].paused;
  }
  REQUIRE(sent > 0);
  REQUIRE(received == sent);
  REQUIRE(paused > 0);  // the senders' ports stopped

  cfg.sw.pfc = false;
  cfg.sw.buffer_bytes = 200'000;
  cfg.nic.rto = 100 * core::kMicrosecond;
  const NetworkResult lossy = Network(topo, cfg, flows).run({});
  REQUIRE(total_drops(lossy) > 0);
  require_conservation(lossy, flows);
}

TEST_CASE("RED marks with the configured probability between Kmin and Kmax", "[net][ecn]") {
  REQUIRE(red_probability(1000, 1000, 5000, 0.2) == 0.0);
  REQUIRE(red_probability(3000, 1000, 5000, 0.2) == Approx(0.1));
  REQUIRE(red_probability(5000, 1000, 5000, 0.2) == Approx(0.2));
  REQUIRE(red_probability(5001, 1000, 5000, 0.2) == 1.0);
  // The switch draws against it with its node's stream: the marked share on a fixed queue
  // converges to p (binomial, 4 sigma).
  core::Rng rng(5, 3);
  for (std::uint64_t q : {2000, 3000, 4500}) {
    const double p = red_probability(q, 1000, 5000, 0.2);
    int marked = 0;
    constexpr int kN = 100000;
    for (int i = 0; i < kN; ++i) marked += rng.uniform() < p;
    REQUIRE(std::abs(double(marked) / kN - p) < 4 * std::sqrt(p * (1 - p) / kN));
  }
}

namespace {

// Per leaf, max over mean of the bytes it sent up each of its spine links; averaged over the
// leaves that sent anything up (how unevenly a leaf spread its own traffic).
double spine_imbalance(const Topology& topo, const NetworkResult& r) {
  double sum = 0;
  int leaves = 0;
  for (NodeId v = 0; v < topo.nodes.size(); ++v) {
    if (topo.nodes[v].kind != NodeKind::kSwitch || topo.nodes[v].tier != 0) continue;
    std::vector<double> up;
    for (PortId p = 0; p < topo.nodes[v].ports.size(); ++p) {
      if (topo.nodes[topo.peer(v, p)].kind == NodeKind::kSwitch) {
        up.push_back(double(r.ports[r.port_base[v] + p].tx_data_bytes));
      }
    }
    const double mean = std::accumulate(up.begin(), up.end(), 0.0) / double(up.size());
    if (mean == 0) continue;
    sum += *std::max_element(up.begin(), up.end()) / mean;
    ++leaves;
  }
  return sum / leaves;
}

}  // namespace

TEST_CASE("ECMP spreads a permutation over the spines; spraying spreads it better",
          "[net][routing]") {
  const Topology topo = leaf_spine(4, 4);
  double ecmp = 0, spray = 0;
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    const auto flows = permutation(16, 1'000'000, 0, seed);
    NetworkConfig cfg = config(cc::Kind::kDcqcn);
    const NetworkResult re = Network(topo, cfg, flows).run({});
    require_conservation(re, flows);
    cfg.sw.routing = Routing::kSpray;
    const NetworkResult rs = Network(topo, cfg, flows).run({});
    require_conservation(rs, flows);
    ecmp += spine_imbalance(topo, re);
    spray += spine_imbalance(topo, rs);
  }
  CAPTURE(ecmp / 4, spray / 4);
  REQUIRE(spray < ecmp);
  REQUIRE(spray / 4 < 1.15);
}

TEST_CASE("network results are identical for every thread count and partition",
          "[net][determinism]") {
  const auto check = [](const Topology& topo, const NetworkConfig& cfg,
                        const std::vector<FlowSpec>& flows) {
    const NetworkResult ref = Network(topo, cfg, flows).run({1, 1, 3});
    for (unsigned threads : {1u, 2u, 4u}) {
      for (std::uint32_t lps : {2u, 8u}) {
        CAPTURE(threads, lps);
        const NetworkResult r = Network(topo, cfg, flows).run({lps, threads, 3});
        // One switch is one group: only threads (which cut the NICs from it) make more LPs.
        const bool one_group = partition_groups(topo) == 1;
        REQUIRE((r.kernel.lps > 1 || (one_group && threads == 1)));
        REQUIRE(r.kernel.events == ref.kernel.events);
        for (std::size_t f = 0; f < flows.size(); ++f) {
          REQUIRE(r.flows[f].finish == ref.flows[f].finish);
          REQUIRE(r.flows[f].acked == ref.flows[f].acked);
        }
        for (std::size_t p = 0; p < ref.ports.size(); ++p) {
          REQUIRE(r.ports[p].tx_bytes == ref.ports[p].tx_bytes);
          REQUIRE(r.ports[p].max_queue_bytes == ref.ports[p].max_queue_bytes);
          REQUIRE(r.ports[p].ecn_marks == ref.ports[p].ecn_marks);
          REQUIRE(r.ports[p].pauses_sent == ref.ports[p].pauses_sent);
        }
      }
    }
    return ref;
  };
  SECTION("a sprayed permutation under DCQCN (random numbers per packet)") {
    NetworkConfig cfg = config(cc::Kind::kDcqcn);
    cfg.sw.routing = Routing::kSpray;
    check(leaf_spine(4, 4), cfg, permutation(16, 500'000, 0, 9));
  }
  SECTION("HPCC with ACKs in the data class (echoed telemetry queued behind data)") {
    NetworkConfig cfg = config(cc::Kind::kHpcc);
    cfg.nic.ack_in_data_class = true;
    check(leaf_spine(4, 4), cfg, permutation(16, 500'000, 0, 9));
  }
  SECTION("an incast on one switch under DCQCN (threads cut the NICs from the switch)") {
    std::vector<FlowSpec> flows;
    for (NodeId h = 1; h < 8; ++h) flows.push_back({h, 0, 300'000, h * core::kMicrosecond});
    const NetworkResult ref = check(star(8), config(cc::Kind::kDcqcn), flows);
    std::uint64_t marks = 0;
    for (const PortStats& p : ref.ports) marks += p.ecn_marks;
    REQUIRE(marks > 0);
  }
  SECTION("Poisson flows on a 4:1 fat tree with short PAUSEs (refresh timers, lazy DCQCN cuts)") {
    NetworkConfig cfg = config(cc::Kind::kDcqcn);
    cfg.sw.pfc_pause_quanta = 2000;  // 10 us at 100 Gb/s: refreshes every 5 us
    cfg.sw.pfc_xoff_bytes = 50'000;  // pauses well before DCQCN has settled
    const Topology topo = leaf_spine(4, 8, 4, 2);
    const FlowSizeCdf sizes({{1000, 0}, {100'000, 0.5}, {2'000'000, 1}});
    const NetworkResult ref =
        check(topo, cfg, poisson(topo, sizes, 1.0, 0, 200 * core::kMicrosecond, 5, 100'000));
    std::uint64_t pauses = 0;
    for (const PortStats& p : ref.ports) pauses += p.pauses_sent;
    REQUIRE(pauses > 0);
  }
}

TEST_CASE("ACKs in the data class wait behind data; in the control class they pass it", "[net]") {
  // Three senders fill host1's port (PFC, no CC); a one-packet flow host1 -> host0 starts
  // once that queue is deep. Its data goes out on idle links, its ACK comes back through the
  // congested port.
  const Topology topo = star(4);
  std::vector<FlowSpec> flows{{0, 1, 4'000'000, 0},
                              {2, 1, 4'000'000, 0},
                              {3, 1, 4'000'000, 0},
                              {1, 0, 1000, 100 * core::kMicrosecond}};
  const auto run = [&](bool data_class) {
    NetworkConfig cfg = config(cc::Kind::kNone);
    cfg.nic.ack_in_data_class = data_class;
    const NetworkResult r = Network(topo, cfg, flows).run({});
    require_conservation(r, flows);
    return r;
  };
  const NetworkResult control = run(false), data = run(true);
  // The small flow's data arrives at the same time either way; only its ACK's wait differs.
  REQUIRE(control.flows[3].finish == data.flows[3].finish);
  const core::Time rtt_control = control.flows[3].acked - control.flows[3].start;
  const core::Time rtt_data = data.flows[3].acked - data.flows[3].start;
  // Behind data: at least the drain time of a 1 MB queue at 100 Gb/s (80 us); the incast has
  // queued more than that by 100 us (3 x 100 Gb/s in, 100 Gb/s out).
  REQUIRE(rtt_control < 10 * core::kMicrosecond);
  REQUIRE(rtt_data > rtt_control + 80 * core::kMicrosecond);
  // The incast itself is not slowed by a few ACK frames.
  REQUIRE(double(data.flows[0].finish) == Approx(double(control.flows[0].finish)).epsilon(0.01));
}

TEST_CASE("flows of any size, down to one byte, use padded minimum frames", "[net]") {
  REQUIRE(data_wire_bytes(1) == padded_wire_bytes(kMinFrame));
  REQUIRE(data_wire_bytes(4096) == 4096 + 82);
  const Topology topo = star(3);
  const std::vector<FlowSpec> flows{{0, 2, 1, 0}, {1, 2, 4097, 0}, {0, 1, 8193, 0}};
  const NetworkResult r = Network(topo, config(cc::Kind::kDcqcn), flows).run({});
  require_conservation(r, flows);
}

TEST_CASE("coalesced ACKs do not stall window-limited senders", "[net]") {
  // HPCC's window falls below ack_every packets under incast; the sender's ACK request on the
  // packet that fills the window keeps the flow moving without timeouts.
  const Topology topo = star(17);
  const auto flows = incast(17, 16, 16, 500'000, 0);
  NetworkConfig cfg = config(cc::Kind::kHpcc);
  cfg.nic.ack_every = 4;
  const NetworkResult r = Network(topo, cfg, flows).run({});
  require_conservation(r, flows);
  for (const FlowResult& f : r.flows) REQUIRE(f.timeouts == 0);
  // 8 MB over 100 Gbps is 0.65 ms; a stall would cost a 67 ms timeout.
  core::Time last = 0;
  for (const FlowResult& f : r.flows) last = std::max(last, f.finish);
  REQUIRE(last < 2 * core::kMillisecond);
}

TEST_CASE("a CE mark makes a receiver acknowledge early only under DCTCP, where marks change",
          "[net][ecn]") {
  // A 16-to-1 incast of whole packets; the receiver sends nothing but ACKs.
  const std::uint64_t packets_per_flow = 488;
  const auto run = [&](NetworkConfig cfg, std::uint32_t every) {
    cfg.nic.ack_every = every;
    const IncastOutcome o = run_incast(cfg, packets_per_flow * cfg.nic.mtu);
    require_conservation(o.r, o.flows);
    const Topology topo = star(17);
    const PortStats& receiver = o.r.ports[o.r.port_base[topo.nics[16]]];
    REQUIRE(receiver.tx_bytes % kAckWireBytes == 0);
    return o;
  };
  const auto marks = [](const IncastOutcome& o) {
    std::uint64_t m = 0;
    for (const PortStats& p : o.r.ports) m += p.ecn_marks;
    return m;
  };
  const auto echoed = [](const IncastOutcome& o) {
    std::uint64_t b = 0;
    for (const FlowResult& f : o.r.flows) b += f.ecn_echoed_bytes;
    return b;
  };
  const std::uint64_t packets = 16 * packets_per_flow;
  // No congestion control, ECN on: the incast's queue marks most packets, and the receiver still
  // acknowledges every 16th packet and each flow's last (a RoCE NIC answers marks with CNPs,
  // which only DCQCN sends; HPCC-ns3 acknowledges at its ACK interval).
  const IncastOutcome none = run(config(cc::Kind::kNone), 16);
  const Topology topo = star(17);
  const std::uint64_t acks = none.r.ports[none.r.port_base[topo.nics[16]]].tx_bytes / kAckWireBytes;
  CAPTURE(acks, marks(none));
  REQUIRE(marks(none) > packets / 2);
  REQUIRE(acks <= packets / 16 + 16);
  // DCTCP's receiver (RFC 8257) acknowledges at once where the mark changes between two
  // packets, so each ACK's ECN-Echo covers packets marked alike: the senders learn of exactly
  // the marked packets' bytes, with an ACK per packet or one per 8.
  for (const std::uint32_t every : {1u, 8u}) {
    const IncastOutcome dctcp = run(config(cc::Kind::kDctcp), every);
    CAPTURE(every, marks(dctcp), echoed(dctcp));
    REQUIRE(marks(dctcp) > 0);
    REQUIRE(echoed(dctcp) == marks(dctcp) * config(cc::Kind::kDctcp).nic.mtu);
  }
}

TEST_CASE("a flow alone takes its unloaded FCT exactly, wherever its path's slowest hop is",
          "[net]") {
  // 100 Gb/s host links, 25 Gb/s between leaf and spine: the slowest hops are in the middle.
  // Sizes that end in a short packet are where the unloaded FCT once counted a full packet on
  // the hops after the slowest (a slowdown of 0.995 for 100 kB). (From about 250 kB the leaf's
  // queue reaches PFC's threshold and pauses add time: not an unloaded run any more.)
  const Topology topo = leaf_spine(2, 2, 1, 0, 25 * kGbps);
  for (const std::uint64_t bytes : {1ull, 4096ull, 50'001ull, 100'000ull}) {
    const NetworkResult r = Network(topo, config(cc::Kind::kNone), {{0, 3, bytes, 0}}).run({});
    CAPTURE(bytes);
    REQUIRE(r.flows[0].fct() == r.flows[0].ideal);
  }
}

TEST_CASE("a flow alone takes its unloaded FCT on the path ECMP gives it, not the first one",
          "[net]") {
  // Two spines, one of them behind a 10 Gb/s link: the reference (and HPCC's base RTT, and the
  // timeout check) must follow the spine the flow's hash picks. Walking the first shortest path
  // gave a lone flow over the fast spine a slowdown of 0.15, over the slow one 6.55.
  Topology topo = leaf_spine(2, 4, 1, 2);
  for (Link& l : topo.links) {
    const std::string& a = topo.nodes[l.a].name;
    const std::string& b = topo.nodes[l.b].name;
    if ((a == "leaf0" && b == "spine0") || (a == "spine0" && b == "leaf0")) l.rate = 10 * kGbps;
  }
  std::set<core::Time> ideals;
  for (std::uint32_t src = 0; src < 4; ++src) {
    for (std::uint32_t dst = 4; dst < 8; ++dst) {
      const NetworkResult r =
          Network(topo, config(cc::Kind::kNone), {{src, dst, 100'000, 0}}).run({});
      CAPTURE(src, dst);
      REQUIRE(r.flows[0].fct() == r.flows[0].ideal);
      ideals.insert(r.flows[0].ideal);
    }
  }
  REQUIRE(ideals.size() == 2);  // some flows hash to each spine
}

TEST_CASE("under per-packet routing the reference is the best path the routing can give", "[net]") {
  // The same fabric: adaptive routing and spraying may take the fast spine whatever the hash,
  // so the reference is the widest shortest path. Walking the hashed path gave lone flows
  // slowdowns of 0.11 (adaptive) and 0.51 (spraying) when it crossed the slow link.
  Topology topo = leaf_spine(2, 4, 1, 2);
  for (Link& l : topo.links) {
    const std::string& a = topo.nodes[l.a].name;
    const std::string& b = topo.nodes[l.b].name;
    if ((a == "leaf0" && b == "spine0") || (a == "spine0" && b == "leaf0")) l.rate = 10 * kGbps;
  }
  for (const Routing routing : {Routing::kAdaptive, Routing::kSpray}) {
    NetworkConfig cfg = config(cc::Kind::kNone);
    cfg.sw.routing = routing;
    cfg.nic.out_of_order = true;
    std::set<core::Time> ideals;
    for (std::uint32_t src = 0; src < 4; ++src) {
      const NetworkResult r = Network(topo, cfg, {{src, 4 + src, 2'000'000, 0}}).run({});
      CAPTURE(static_cast<int>(routing), src);
      REQUIRE(r.flows[0].slowdown() >= 0.999);
      ideals.insert(r.flows[0].ideal);
    }
    REQUIRE(ideals.size() == 1);  // every flow's reference is the fast spine's
  }
}

TEST_CASE("go-back-N duplicates that drain after the last ACK count in the run's time", "[net]") {
  // 4-to-1 across two spines, adaptive routing, no congestion control: packets reordered over
  // the spines make go-back-N resend, and duplicates still queued at the last ACK keep the
  // receiver's port busy after it. Over the last ACK alone that port was 118% busy.
  const Topology topo = leaf_spine(2, 4, 1, 2);
  NetworkConfig cfg = config(cc::Kind::kNone);
  cfg.sw.routing = Routing::kAdaptive;
  const auto flows = incast(8, 4, 4, 2'000'000, 0);
  const NetworkResult r = Network(topo, cfg, flows).run({});
  require_conservation(r, flows);
  REQUIRE(total_retransmitted(r) > 0);
  for (const PortStats& p : r.ports) REQUIRE(p.busy <= r.end);
}

TEST_CASE("a run cut off at its end counts a port busy no longer than the run", "[net]") {
  // A frame counts its serialization when it starts; one still on the serializer at the end
  // once made a port 103% busy over a 10 us run (and 33,424,000% over 1 ns).
  const Topology topo = star(2);
  for (const core::Time end : {core::Time{1000}, 10 * core::kMicrosecond}) {
    RunOptions opt;
    opt.end = end;
    const NetworkResult r =
        Network(topo, config(cc::Kind::kNone), {{0, 1, 10'000'000, 0}}).run(opt);
    CAPTURE(end, r.end);
    REQUIRE(r.end <= end);
    core::Time busiest = 0;
    for (const PortStats& p : r.ports) busiest = std::max(busiest, p.busy);
    REQUIRE(busiest <= r.end);
    if (end > core::kMicrosecond) REQUIRE(busiest > r.end * 9 / 10);  // the sender's NIC
  }
}

TEST_CASE("network set-up errors say what is wrong", "[net]") {
  const Topology topo = star(2);
  NetworkConfig cfg = config(cc::Kind::kNone);
  cfg.sw.pfc_xoff_bytes = 4000;
  REQUIRE_THROWS_WITH(Network(topo, cfg, {{0, 1, 1000, 0}}),
                      Catch::Contains("network.pfc_xoff (4000 bytes) must exceed"));
  cfg = config(cc::Kind::kNone);
  REQUIRE_THROWS_WITH(Network(topo, cfg, {{0, 0, 1000, 0}}), Catch::Contains("same NIC"));
  REQUIRE_THROWS_WITH(Network(topo, cfg, {{0, 5, 1000, 0}}), Catch::Contains("out of range"));
  cfg.cc.kind = cc::Kind::kHpcc;
  cfg.sw.routing = Routing::kSpray;
  REQUIRE_THROWS_WITH(Network(topo, cfg, {{0, 1, 1000, 0}}),
                      Catch::Contains("network.cc=hpcc needs network.routing=ecmp"));
  // A timeout inside the unloaded round trip (two 1 us links each way, ~4.7 us) would resend
  // every packet before its ACK could come back.
  cfg = config(cc::Kind::kNone);
  cfg.nic.rto = 4 * core::kMicrosecond;
  REQUIRE_THROWS_WITH(Network(topo, cfg, {{0, 1, 1000, 0}}),
                      Catch::Contains("network.rto (4.000 us) is not longer than the unloaded "
                                      "round trip of flow 0 (host0.nic0 -> host1.nic0"));
  cfg.nic.rto = 10 * core::kMicrosecond;
  REQUIRE_NOTHROW(Network(topo, cfg, {{0, 1, 1000, 0}}));
  cfg = config(cc::Kind::kNone);
  Network once(topo, cfg, {{0, 1, 1000, 0}});
  once.run({});
  REQUIRE_THROWS_WITH(once.run({}), Catch::Contains("runs once"));
}

TEST_CASE("spraying reorders packets: go-back-N retransmits, an out-of-order receiver does not",
          "[net][routing]") {
  const Topology topo = leaf_spine(4, 4);
  const auto flows = permutation(16, 1'000'000, 0, 5);
  NetworkConfig cfg = config(cc::Kind::kDcqcn);
  cfg.sw.routing = Routing::kSpray;
  const NetworkResult gbn = Network(topo, cfg, flows).run({});
  require_conservation(gbn, flows);
  REQUIRE(total_retransmitted(gbn) > 0);
  cfg.nic.out_of_order = true;
  const NetworkResult ooo = Network(topo, cfg, flows).run({});
  require_conservation(ooo, flows);  // every byte counted once, however it arrived
  REQUIRE(total_retransmitted(ooo) == 0);
  for (const FlowResult& f : ooo.flows) REQUIRE(f.timeouts == 0);
}

TEST_CASE("DCQCN on a 2:1 fat-tree permutation: busy links, a tail close to HPCC's",
          "[net][incast]") {
  const Topology topo = leaf_spine(4, 8, 2, 4);
  const auto flows = permutation(32, 10'000'000, 0, 1);
  struct Outcome {
    double busiest = 0;  // busy share of the most loaded port over the run
    core::Time tail = 0;
  };
  const auto run = [&](const NetworkConfig& cfg) {
    const NetworkResult r = Network(topo, cfg, flows).run({});
    require_conservation(r, flows);
    Outcome o;
    for (const FlowResult& f : r.flows) o.tail = std::max(o.tail, f.fct());
    for (const PortStats& p : r.ports)
      o.busiest = std::max(o.busiest, double(p.busy) / double(r.end));
    return o;
  };
  const Outcome connectx = run(config(cc::Kind::kDcqcn));
  const Outcome hpcc = run(config(cc::Kind::kHpcc));
  NetworkConfig paper_cfg = config(cc::Kind::kDcqcn);
  paper_cfg.cc.dcqcn = cc::dcqcn_paper();
  const Outcome paper = run(paper_cfg);
  CAPTURE(connectx.busiest, connectx.tail, hpcc.busiest, hpcc.tail, paper.busiest, paper.tail);
  // Issue bar: the busiest link at least 80% busy, the slowest flow within 2x HPCC's.
  REQUIRE(connectx.busiest >= 0.8);
  REQUIRE(connectx.tail <= 2 * hpcc.tail);
  // The published variant's clamp and slow timers leave the shared uplinks idle (measured:
  // a third busy, the tail near 3x HPCC's).
  REQUIRE(paper.tail > connectx.tail);
}

TEST_CASE("a queue pair that makes no progress fails after retry_count timeouts", "[net]") {
  // Lossy, and an egress share too small for one packet: every packet is dropped.
  NetworkConfig cfg = config(cc::Kind::kNone);
  cfg.sw.pfc = false;
  cfg.sw.egress_alpha = 1e-4;
  cfg.nic.rto = 10 * core::kMicrosecond;
  const std::vector<FlowSpec> flows{{0, 1, 100'000, 0}};
  Network net(star(2), cfg, flows);
  REQUIRE_THROWS_AS(Network(star(2), cfg, flows).run({}), TransportError);
  REQUIRE_THROWS_WITH(net.run({}), Catch::Contains("flow 0 (host0.nic0 -> host1.nic0)") &&
                                       Catch::Contains("8 retransmission timeouts") &&
                                       Catch::Contains("network.retry_count = 7"));
  // Lossless, routes around a ring of five switches two hops each: the buffers fill in a cycle
  // of pauses (a PFC deadlock) and nothing is lost, so the failure says so.
  TorusParams ring;
  ring.dims = {5, 1};
  ring.hosts_per_switch = 1;
  ring.host = plain_host();
  ring.nic = ring.link = {kRate, kDelay};
  NetworkConfig lossless = config(cc::Kind::kNone);
  lossless.sw.buffer_bytes = 400'000;
  lossless.nic.rto = 100 * core::kMicrosecond;
  std::vector<FlowSpec> around;
  for (std::uint32_t i = 0; i < 5; ++i) around.push_back({i, (i + 2) % 5, 5'000'000, 0});
  REQUIRE_THROWS_WITH(Network(torus(ring), lossless, around).run({}),
                      Catch::Contains("no frame was lost") && Catch::Contains("PFC deadlock"));
  // A buffer that cannot hold one packet is refused before any run.
  cfg.sw.buffer_bytes = 1000;
  REQUIRE_THROWS_WITH(check_config(star(2), cfg),
                      Catch::Contains("network.buffer (1000 bytes) cannot hold one full packet"));
}

TEST_CASE("a network estimated above the memory limit is refused before it is built", "[net]") {
  const std::uint64_t before = memory_limit();
  REQUIRE(before > 0);
  // A 3-tier fat tree of k = 16: 320 switches x 128 edge switches of routing rows.
  KaryFatTreeParams p;
  p.k = 16;
  p.host = plain_host();
  p.nic = p.edge_agg = p.agg_core = {kRate, kDelay};
  const Topology topo = fat_tree_3tier(p);
  REQUIRE(Routes::anchor_count(topo) == 128);
  const std::uint64_t routes =
      Routes::estimate_bytes(320, 128, topo.nodes.size(), topo.nics.size());
  REQUIRE(routes >= 320ULL * 128 * 8);
  set_memory_limit(100'000);
  REQUIRE_THROWS_WITH(Network(topo, config(cc::Kind::kNone), {{0, 1, 1000, 0}}),
                      Catch::Contains("routing tables for 320 switches") &&
                          Catch::Contains("above the 100000 bytes limit (--max-memory"));
  // The builder refuses it too, before building anything, from the same counts.
  REQUIRE_THROWS_WITH(fat_tree_3tier(p),
                      Catch::Contains("fat_tree_3tier cluster needs about") &&
                          Catch::Contains("320 switches, 1024 NICs and 3072 links"));
  set_memory_limit(before);
  REQUIRE_NOTHROW(Network(topo, config(cc::Kind::kNone), {{0, 1, 1000, 0}}));
  // The estimate is of the right size: the built tables hold no more.
  REQUIRE(Routes::build(topo).memory_bytes() <= routes + 64 * 1024);
  // The builder's counts are the built topology's.
  REQUIRE(topo.nodes.size() - topo.nics.size() == 320);
  REQUIRE(topo.links.size() == 3072);
}
