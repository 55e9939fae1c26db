// The faster fidelities against the packet level. Flow (net/fluid.hpp): the same plans and
// executor, within 5% of packet level where no congestion transient matters, at a fraction of
// the events; contention between communications is kept. Analytical (comm_model.hpp): closed
// forms, no network run.
#include <catch2/catch.hpp>

#include "collectives/busbw.hpp"
#include "collectives/tuning.hpp"
#include "compute/gpu.hpp"
#include "core/error.hpp"
#include "net/topology/build.hpp"
#include "net/wire.hpp"
#include "tests/workload/test_clusters.hpp"
#include "tests/workload/test_models.hpp"
#include "workload/collective_exec.hpp"
#include "workload/comm_model.hpp"
#include "workload/training_run.hpp"

using namespace fabricsim;
using namespace fabricsim::workload;
using collectives::Algo;
using collectives::Proto;

namespace {

using test::fat_tree;
using test::single_switch;

net::NetworkConfig config(net::Fidelity fidelity) {
  net::NetworkConfig cfg;  // DCQCN, PFC: the defaults
  cfg.fidelity = fidelity;
  return cfg;
}

CollectiveResult all_reduce(const net::Topology& topo, std::uint64_t bytes, Algo algo,
                            net::Fidelity fidelity, bool whole = false,
                            Proto proto = Proto::Simple) {
  const collectives::RankLayout layout = rank_layout(topo, {});
  collectives::Call call;
  call.op = collectives::Op::AllReduce;
  call.bytes = bytes;
  call.algo = algo;
  call.proto = proto;
  ExecParams params;
  params.whole_transfers = whole;
  return run_collective(topo, config(fidelity), build_plan(call, layout, params, 1), layout, params,
                        {});
}

TrainingReport train(const net::Topology& topo, int tp, int pp, int dp, CommMode mode,
                     net::Fidelity fidelity, unsigned threads = 1,
                     ModelSpec model = test::gpt(4, 512, 8, 256, 1024), bool whole = false) {
  static const compute::KernelDb db;
  const net::NetworkConfig cfg = config(fidelity);
  TrainingInputs in;
  in.model = std::move(model);
  in.config.tp = tp;
  in.config.pp = pp;
  in.config.dp = dp;
  in.config.micro_batch = 1;
  in.config.global_batch = 4 * dp;
  in.gpu = *compute::find_gpu("H100");
  in.kernels = &db;
  in.topology = &topo;
  in.network = &cfg;
  // What NCCL's graph reports for these hosts (tools/scenario_collectives.cpp): H100 NVLink's
  // usable share and the hosts' 400 Gb/s NICs, per channel.
  const net::Host& h = topo.hosts.front();
  in.hw.bw_intra_gbps = 450 * ExecParams{}.nvlink_efficiency / in.hw.max_channels;
  in.hw.nic_gbps = 50;
  in.hw.nics_per_host = static_cast<int>(h.nics.size());
  in.hw.bw_inter_gbps = in.hw.nic_gbps * in.hw.nics_per_host / in.hw.max_channels;
  in.hw.pci_gbps = compute::pcie_gbps(compute::GpuArch::Hopper);
  in.comm = mode;
  in.exec.whole_transfers = whole;
  in.run.threads = threads;
  in.run.lps = 4 * threads;
  return simulate_training(in);
}

}  // namespace

TEST_CASE("flow level: large all-reduces across hosts land within 5% of the packet level",
          "[workload][fluid]") {
  const net::Topology topo = single_switch(GENERATE(2u, 4u), 8);
  const Algo algo = GENERATE(Algo::Ring, Algo::Tree);
  const std::uint64_t bytes = 256ULL << 20;
  const CollectiveResult p = all_reduce(topo, bytes, algo, net::Fidelity::kPacket);
  const CollectiveResult f = all_reduce(topo, bytes, algo, net::Fidelity::kFlow);
  CAPTURE(topo.hosts.size(), collectives::name(algo), p.time, f.time, p.net.kernel.events,
          f.net.kernel.events);
  REQUIRE(double(f.time) == Approx(double(p.time)).epsilon(0.05));
  REQUIRE(f.net_bytes == p.net_bytes);
  REQUIRE(f.nvlink_bytes == p.nvlink_bytes);
  // The network's packets are gone; what is left is the executor's own steps.
  REQUIRE(f.net.kernel.events * 10 < p.net.kernel.events);
}

TEST_CASE("flow level: a training iteration on a non-blocking fabric within 5% of packet level",
          "[workload][fluid][training]") {
  const net::Topology topo = single_switch(4, 2);
  const TrainingReport p = train(topo, 2, 2, 2, CommMode::Packet, net::Fidelity::kPacket);
  const TrainingReport f = train(topo, 2, 2, 2, CommMode::Packet, net::Fidelity::kFlow);
  CAPTURE(p.iteration_s, f.iteration_s, p.network_events, f.network_events);
  REQUIRE(f.iteration_s == Approx(p.iteration_s).epsilon(0.05));
  REQUIRE(f.network_events < p.network_events);
  // Deterministic whatever the threads: the flow level runs on one logical process.
  const TrainingReport f2 = train(topo, 2, 2, 2, CommMode::Packet, net::Fidelity::kFlow, 2);
  REQUIRE(f2.iteration_s == f.iteration_s);
  REQUIRE(f2.timeline.iteration == f.timeline.iteration);
}

TEST_CASE("flow level: communications that share an oversubscribed uplink still slow each other",
          "[workload][fluid][training]") {
  // tp 2 inside each host, dp 2 across two leaves: both gradient rings leave a leaf over the
  // same 4:1 uplinks. Costed alone (isolated) they never meet; on the fluid fabric they do.
  const net::Topology topo = fat_tree(2, 2, 4.0);
  const TrainingReport iso = train(topo, 2, 1, 2, CommMode::Isolated, net::Fidelity::kFlow);
  const TrainingReport shared = train(topo, 2, 1, 2, CommMode::Packet, net::Fidelity::kFlow);
  const TrainingReport pkt = train(topo, 2, 1, 2, CommMode::Packet, net::Fidelity::kPacket);
  CAPTURE(iso.iteration_s, shared.iteration_s, pkt.iteration_s);
  REQUIRE(shared.iteration_s > 1.02 * iso.iteration_s);
  // Reported, not a bar: congestion control and PFC transients are what the levels differ by.
  WARN("4:1 uplinks, flow vs packet: " << shared.iteration_s / pkt.iteration_s);
}

TEST_CASE(
    "flow level, whole transfers: large ring all-reduces within 5% of packet level, in "
    "far fewer events than step by step",
    "[workload][fluid]") {
  const net::Topology topo = single_switch(GENERATE(2u, 4u), 8);
  const std::uint64_t bytes = 256ULL << 20;
  const CollectiveResult p = all_reduce(topo, bytes, Algo::Ring, net::Fidelity::kPacket);
  const CollectiveResult steps = all_reduce(topo, bytes, Algo::Ring, net::Fidelity::kFlow);
  const CollectiveResult whole = all_reduce(topo, bytes, Algo::Ring, net::Fidelity::kFlow, true);
  CAPTURE(topo.hosts.size(), p.time, steps.time, whole.time, steps.net.kernel.events,
          whole.net.kernel.events);
  REQUIRE(double(whole.time) == Approx(double(p.time)).epsilon(0.05));
  REQUIRE(whole.net_bytes == p.net_bytes);
  REQUIRE(whole.nvlink_bytes == p.nvlink_bytes);
  REQUIRE(whole.net.kernel.events * 10 < steps.net.kernel.events);
  // Reported, not a bar: the tree's pipeline (up and down through every host's chain, a slice
  // at a time) is what whole transfers leave out, so they run it faster than packet level.
  const CollectiveResult tp = all_reduce(topo, bytes, Algo::Tree, net::Fidelity::kPacket);
  const CollectiveResult tw = all_reduce(topo, bytes, Algo::Tree, net::Fidelity::kFlow, true);
  WARN(topo.hosts.size() << " hosts, tree 256 MiB, whole transfers vs packet: "
                         << double(tw.time) / double(tp.time));
}

TEST_CASE("flow level, whole transfers: a small call pays NCCL's modelled latency",
          "[workload][fluid]") {
  // 4 KiB on two hosts under ring LL: NCCL's model gives the latency, the bytes add ~nothing.
  const net::Topology topo = single_switch(2, 8);
  const collectives::RankLayout layout = rank_layout(topo, {});
  const CollectiveResult whole =
      all_reduce(topo, 4096, Algo::Ring, net::Fidelity::kFlow, true, Proto::LL);
  const collectives::TuningInput in{collectives::Op::AllReduce, 4096, 16, 2, layout.hw};
  double latency_us = 0;
  for (const collectives::AlgoTime& t : collectives::algo_times(in)) {
    if (t.algo == Algo::Ring && t.proto == Proto::LL) latency_us = t.latency_us;
  }
  const double time_us = double(whole.time) / double(core::kMicrosecond);
  CAPTURE(latency_us, time_us);
  REQUIRE(latency_us > 5);
  REQUIRE(time_us >= latency_us);
  REQUIRE(time_us < latency_us + 3);
}

TEST_CASE(
    "flow level, whole transfers: a training iteration within 5% of packet level, and "
    "contention kept",
    "[workload][fluid][training]") {
  const net::Topology topo = single_switch(4, 2);
  const TrainingReport p = train(topo, 2, 2, 2, CommMode::Packet, net::Fidelity::kPacket);
  const TrainingReport w = train(topo, 2, 2, 2, CommMode::Packet, net::Fidelity::kFlow, 1,
                                 test::gpt(4, 512, 8, 256, 1024), true);
  CAPTURE(p.iteration_s, w.iteration_s, p.network_events, w.network_events);
  REQUIRE(w.iteration_s == Approx(p.iteration_s).epsilon(0.05));
  // The two gradient rings of the oversubscribed-uplink case above still slow each other.
  const net::Topology tree = fat_tree(2, 2, 4.0);
  const TrainingReport iso = train(tree, 2, 1, 2, CommMode::Isolated, net::Fidelity::kFlow, 1,
                                   test::gpt(4, 512, 8, 256, 1024), true);
  const TrainingReport shared = train(tree, 2, 1, 2, CommMode::Packet, net::Fidelity::kFlow, 1,
                                      test::gpt(4, 512, 8, 256, 1024), true);
  CAPTURE(iso.iteration_s, shared.iteration_s);
  REQUIRE(shared.iteration_s > 1.02 * iso.iteration_s);
}

TEST_CASE("analytical: point-to-point closed forms on the scenario's hardware",
          "[workload][analytical]") {
  const net::Topology topo = single_switch(2, 2);
  const net::NetworkConfig cfg;
  const ExecParams params;
  const collectives::RankLayout all = rank_layout(topo, {});
  const auto members = [&](std::vector<int> ranks) {
    collectives::RankLayout m;
    m.hw = all.hw;
    for (const int r : ranks) m.ranks.push_back(all.ranks[static_cast<std::size_t>(r)]);
    return m;
  };
  const double nvlink = 450e9 * params.nvlink_efficiency;  // bytes/s
  const double nic = 400e9 / 8 * cfg.nic.mtu / net::data_wire_bytes(cfg.nic.mtu);
  const core::Time link = 500 * core::kNanosecond;  // each NIC's link to the switch
  const std::uint64_t bytes = 64ULL << 20;
  collectives::Call call;
  call.op = collectives::Op::SendRecv;
  call.bytes = bytes;
  // Ranks 0 and 1 share host 0; rank 2 is on host 1.
  const core::Time inside = model_communication(call, members({0, 1}), topo, cfg, params);
  REQUIRE(double(inside) * 1e-12 == Approx(double(bytes) / nvlink).epsilon(1e-6));
  const core::Time across = model_communication(call, members({0, 2}), topo, cfg, params);
  const double latency = double(2 * params.host_delay + 2 * link) * 1e-12;
  REQUIRE(double(across) * 1e-12 == Approx(double(bytes) / nic + latency).epsilon(1e-6));
  // All-to-all over the four ranks: each sends a quarter to each peer, one over NVLink and two
  // through its own NIC; the NIC part is the longer.
  call.op = collectives::Op::AllToAll;
  const core::Time a2a = model_communication(call, members({0, 1, 2, 3}), topo, cfg, params);
  REQUIRE(double(a2a) * 1e-12 == Approx(2.0 * double(bytes) / 4 / nic + latency).epsilon(1e-6));
  // Collectives take NCCL's own estimate.
  call.op = collectives::Op::AllReduce;
  const collectives::RankLayout four = members({0, 1, 2, 3});
  REQUIRE(double(model_communication(call, four, topo, cfg, params)) ==
          Approx(collectives::model_time(call, four).time_us * 1e6).epsilon(1e-9));
  // A size whose closed form passes the largest simulated time (2^63 ps) is an error, not a
  // wrapped time: 2^60 bytes through a 50 GB/s NIC take ~730 years.
  call.op = collectives::Op::SendRecv;
  call.bytes = 1ULL << 60;
  REQUIRE_THROWS_AS(model_communication(call, members({0, 2}), topo, cfg, params),
                    core::HorizonError);
}

TEST_CASE(
    "analytical: a training iteration without a network run, near the packet level on one switch",
    "[workload][analytical][training]") {
  // Large enough that bandwidth, not per-step latency, sets the communication times.
  const net::Topology topo = single_switch(4, 2);
  const ModelSpec model = test::gpt(4, 2048, 16, 1024, 8192);
  const TrainingReport p = train(topo, 2, 2, 2, CommMode::Packet, net::Fidelity::kPacket, 1, model);
  const TrainingReport a =
      train(topo, 2, 2, 2, CommMode::Analytical, net::Fidelity::kPacket, 1, model);
  CAPTURE(p.iteration_s, a.iteration_s);
  REQUIRE(a.comm == CommMode::Analytical);
  REQUIRE(a.network_events == 0);
  REQUIRE(a.comm_shapes > 0);
  // NCCL's model and the alpha-beta forms against the simulated network: close, not equal.
  REQUIRE(a.iteration_s == Approx(p.iteration_s).epsilon(0.10));
  REQUIRE(a.iteration_s != p.iteration_s);
}
