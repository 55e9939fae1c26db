// Tuning model, protocol costs, busbw factors and refused requests.
#include <catch2/catch.hpp>

#include "collectives/busbw.hpp"
#include "collectives/plan.hpp"
#include "collectives/protocol.hpp"
#include "collectives/tuning.hpp"
#include "layouts.hpp"

using namespace fabricsim::collectives;
using namespace fabricsim::collectives::test;

namespace {

const AlgoTime& find(const std::vector<AlgoTime>& times, Algo a, Proto p) {
  for (const AlgoTime& t : times) {
    if (t.algo == a && t.proto == p) return t;
  }
  FAIL("missing pair");
  return times.front();
}

}  // namespace

TEST_CASE("latencies follow NCCL's base + per-hop model", "[collectives]") {
  // 2 GPUs over NVLink, all-reduce: ring LL = 6.6 + 2 x 0.6, ring Simple = 8.4 + 2 x 3.4,
  // tree LL = 6.8 + 2 x 0.6 (tuning.cc figures, nccl-facts.md §4).
  const TuningInput in{Op::AllReduce, 8192, 2, 1, Hardware{}};
  const auto times = algo_times(in);
  CHECK(find(times, Algo::Ring, Proto::LL).latency_us == Approx(7.8));
  CHECK(find(times, Algo::Ring, Proto::Simple).latency_us == Approx(15.2));
  CHECK(find(times, Algo::Tree, Proto::LL).latency_us == Approx(8.0));
  CHECK(find(times, Algo::Ring, Proto::LL128).latency_us == Approx(17.8));
  const Choice c = choose(in);
  CHECK(c.algo == Algo::Ring);
  CHECK(c.proto == Proto::LL);
  CHECK(c.channels == 1);  // 8 KiB cannot keep more than one LL channel busy
}

TEST_CASE("trees of one GPU per node lose NCCL's 15%", "[collectives]") {
  // Hopper defaults, 8 nodes: 16 channels of 12 GB/s. A tree all-reduce's Simple bus bandwidth
  // is min(0.92 x 16 x 12, 16 x perChMaxTreeBw 36.0) = 176.64 GB/s, halved to algbw. With one
  // GPU per node NCCL's tree graph has the plain TREE pattern and the model takes 15% off
  // (tuning.cc maxTreePattern); two GPUs per node keep the balanced tree.
  const auto tree_simple = [](int ranks) {
    const TuningInput in{Op::AllReduce, 1ULL << 30, ranks, 8, Hardware{}};
    const auto times = algo_times(in);
    return find(times, Algo::Tree, Proto::Simple).algbw_gbps;
  };
  CHECK(tree_simple(16) == Approx(0.5 * 176.64));
  CHECK(tree_simple(8) == Approx(0.5 * 176.64 * 0.85));
}

TEST_CASE("PAT is tuned as NCCL's model tunes it, from 2.23 and at one GPU per node",
          "[collectives]") {
  // Hopper defaults, 16 nodes of one GPU: 16 channels of 12 GB/s (bwInter beyond two nodes).
  // busBw = 16 x 12 x 0.75 (0.85 in 2.23), taken as algbw for all-gather and reduce-scatter;
  // latency 8 + log2(16) x 14 / 3.5 + 16 x 2.8 (tuning.cc).
  const auto pat = [](Op op, int ranks, int nodes, int version, std::uint64_t bytes = 1 << 20) {
    Hardware hw;
    hw.nccl_version = version;
    return find(algo_times(TuningInput{op, bytes, ranks, nodes, hw}), Algo::Pat, Proto::Simple);
  };
  for (Op op : {Op::AllGather, Op::ReduceScatter}) {
    const AlgoTime now = pat(op, 16, 16, 23007);
    CHECK(now.enabled);
    CHECK(now.algbw_gbps == Approx(16 * 12 * 0.75));
    CHECK(now.latency_us == Approx(8 + 4 * 14 / 3.5 + 16 * 2.8));
    CHECK(pat(op, 16, 16, 22304).algbw_gbps == Approx(16 * 12 * 0.85));
    CHECK_FALSE(pat(op, 16, 16, 22203).enabled);  // 2.22.3: no PAT yet
    CHECK_FALSE(pat(op, 32, 16, 23007).enabled);  // two GPUs per node
  }
  CHECK_FALSE(pat(Op::AllReduce, 16, 16, 23007).enabled);
  // ncclAvg: PAT gathers, but does not reduce-scatter (enqueue.cc).
  for (Op op : {Op::AllGather, Op::ReduceScatter}) {
    TuningInput avg{op, 1 << 20, 16, 16, Hardware{}};
    avg.average = true;
    CHECK(find(algo_times(avg), Algo::Pat, Proto::Simple).enabled == (op == Op::AllGather));
  }
  // Auto: PAT's log2 hops win at small sizes on many nodes, the ring at large ones.
  const auto pick = [](std::uint64_t bytes, int version) {
    Hardware hw;
    hw.nccl_version = version;
    return choose(TuningInput{Op::AllGather, bytes, 16, 16, hw}).algo;
  };
  CHECK(pick(64 << 10, 23007) == Algo::Pat);
  CHECK(pick(64 << 10, 22203) == Algo::Ring);
  CHECK(pick(std::uint64_t{4} << 30, 23007) == Algo::Ring);
}

TEST_CASE("multi-node ring latency counts inter-node steps", "[collectives]") {
  // 16 ranks on 2 nodes: 30 steps, 2 of them over the network; Simple intra floor 3 x 1 us.
  const TuningInput in{Op::AllReduce, 1, 16, 2, Hardware{}};
  const auto times = algo_times(in);
  CHECK(find(times, Algo::Ring, Proto::Simple).latency_us == Approx(8.4 + 28 * 3.4 + 2 * 14.0));
  CHECK(find(times, Algo::Ring, Proto::LL).latency_us == Approx(6.6 + 28 * 1.0 + 2 * 2.7));
  CHECK(find(times, Algo::Tree, Proto::LL).latency_us == Approx(6.8 + 2 * (7 * 0.6 + 1 * 5.0)));
}

TEST_CASE("across nodes the host CPU sets LL's cap and the network overhead", "[collectives]") {
  // NCCL reads llMaxBws by GPU on one node and by CPU across nodes (AMD row 1, others row 0),
  // and getNetOverhead is 2 us on AMD, 1 us elsewhere (tuning.cc; nccl-facts.md §4). 16 Hopper
  // ranks on 2 nodes, 8 rings of 48 GB/s: the ring LL bus bandwidth is the cap itself.
  const Hardware hw = ndr_node();
  const auto ring_ll = [](const TuningInput& in) {
    const std::vector<AlgoTime> times = algo_times(in);
    const AlgoTime& t = find(times, Algo::Ring, Proto::LL);
    return t.algbw_gbps * 2 * (in.n_ranks - 1) / in.n_ranks;  // back to bus bandwidth
  };
  TuningInput in{Op::AllReduce, 1 << 20, 16, 2, hw};
  CHECK(ring_ll(in) == Approx(39.0));  // Intel, 2 nodes (not the Hopper row's 45)
  in.hw.cpu = Cpu::Arm;
  CHECK(ring_ll(in) == Approx(39.0));
  in.hw.cpu = Cpu::Amd;
  CHECK(ring_ll(in) == Approx(22.5));
  in.n_nodes = 4;
  in.n_ranks = 32;
  CHECK(ring_ll(in) == Approx(19.0));
  in.hw.cpu = Cpu::Intel;
  CHECK(ring_ll(in) == Approx(20.4));
  in.n_nodes = 1;  // one node: the GPU's row
  in.n_ranks = 8;
  CHECK(ring_ll(in) == Approx(141.0).epsilon(0.01));

  CHECK(net_overhead_us(Cpu::Intel) == 1.0);
  CHECK(net_overhead_us(Cpu::Arm) == 1.0);
  CHECK(net_overhead_us(Cpu::Amd) == 2.0);
  // The floor of a multi-node ring's intra-host step: 2 us on AMD (x3 for Simple).
  TuningInput amd{Op::AllReduce, 1, 16, 2, Hardware{}};
  amd.hw.cpu = Cpu::Amd;
  const auto times = algo_times(amd);
  CHECK(find(times, Algo::Ring, Proto::LL).latency_us == Approx(6.6 + 28 * 2.0 + 2 * 2.7));
  CHECK(find(times, Algo::Ring, Proto::Simple).latency_us == Approx(8.4 + 28 * 6.0 + 2 * 14.0));
}

TEST_CASE("Blackwell on x86 hosts corrects NVLSTree as NCCL does", "[collectives]") {
  // tuning.cc applies treeCorrectionFactor to NVLSTree when compCap >= 100 and the CPU is x86:
  // at 4 MiB (log2(bytes/64) = 16) Simple's factor is .7; Arm hosts (GB200) keep 1.
  TuningInput in{Op::AllReduce, 4u << 20, 16, 2, ndr_node(Arch::Blackwell, true)};
  const auto nvls_tree = [](const TuningInput& t) {
    const std::vector<AlgoTime> times = algo_times(t);
    return find(times, Algo::NvlsTree, Proto::Simple).algbw_gbps;
  };
  const double x86 = nvls_tree(in);
  in.hw.cpu = Cpu::Arm;
  CHECK(x86 / nvls_tree(in) == Approx(0.7));
  in.hw.arch = Arch::Hopper;  // Hopper: no correction on any CPU
  const double hopper_arm = nvls_tree(in);
  in.hw.cpu = Cpu::Intel;
  CHECK(nvls_tree(in) == Approx(hopper_arm));
}

TEST_CASE("tree shrinks its channels with ring's thread counts", "[collectives]") {
  // enqueue.cc: nc shrinks while bytes < nc x maxThreads x threshold; tree's maxThreads are LL
  // 512, LL128 640, Simple 512 (threshold 8, 8, 64); 20 KiB = 5 x 512 x 8 = 4 x 640 x 8.
  const TuningInput in{Op::AllReduce, 20480, 16, 2, Hardware{}};
  CHECK(tuned_channels(in, Algo::Tree, Proto::LL, 16) == 5);
  CHECK(tuned_channels(in, Algo::Tree, Proto::LL128, 16) == 4);
  const TuningInput simple{Op::AllReduce, 5 * 512 * 64, 16, 2, Hardware{}};
  CHECK(tuned_channels(simple, Algo::Tree, Proto::Simple, 16) == 5);
}

TEST_CASE("the tree correction stops where NCCL's does", "[collectives]") {
  // Tree all-reduce takes treeCorrectionFactor for log2(bytes/64) < 23 only: Simple's .9 at
  // 256 MiB (index 22), none at 512 MiB (index 23).
  TuningInput in{Op::AllReduce, 256ull << 20, 8, 1, Hardware{}};
  const double at_256m = find(algo_times(in), Algo::Tree, Proto::Simple).algbw_gbps;
  in.bytes = 512ull << 20;
  const double at_512m = find(algo_times(in), Algo::Tree, Proto::Simple).algbw_gbps;
  CHECK(at_512m / at_256m == Approx(1.0 / 0.9));
}

TEST_CASE("small messages pick LL, large ones Simple or NVLS", "[collectives]") {
  Hardware hw;
  TuningInput in{Op::AllReduce, 1024, 8, 1, hw};
  CHECK(choose(in).proto == Proto::LL);
  in.bytes = 1ull << 30;
  CHECK(choose(in).proto == Proto::Simple);
  CHECK(choose(in).channels == hw.max_channels);
  in.hw.nvls = true;
  CHECK(choose(in).algo == Algo::Nvls);
  in.n_nodes = 2;  // NVLS across hosts is not offered
  in.n_ranks = 16;
  CHECK(choose(in).algo != Algo::Nvls);
  // NVLSTree is, once the NICs are known (NCCL's model: 8 heads x min(2 x 48, 57.7) GB/s of bus
  // bandwidth beats the ring's 8 x 48 on two H100 nodes with 400G NICs).
  in.hw.nics_per_host = 8;
  in.hw.nic_gbps = 50;
  in.hw.pci_gbps = 48;
  CHECK(choose(in).algo == Algo::NvlsTree);
  in.hw.nvls = false;
  CHECK(choose(in).algo == Algo::Ring);
  in.hw.nvls = true;
  in.op = Op::AllGather;
  CHECK(choose(in).algo == Algo::Ring);
  CHECK_THROWS_AS(choose(in, Algo::Tree), PlanError);
}

TEST_CASE("protocol figures", "[collectives]") {
  CHECK(kNcclSteps == 8);
  CHECK(buffer_bytes(Proto::Simple) == 4u << 20);
  CHECK(buffer_bytes(Proto::LL) == 512u << 10);
  CHECK(buffer_bytes(Proto::LL128) == 4915200u);
  CHECK(step_payload(Proto::Simple) == 512u << 10);
  CHECK(step_payload(Proto::LL) == 32u << 10);
  CHECK(step_payload(Proto::LL128) == 576000u);
  CHECK(chunk_payload(Op::AllReduce, Algo::Ring, Proto::Simple, true) == 2u << 20);
  CHECK(chunk_payload(Op::Broadcast, Algo::Ring, Proto::Simple, true) == 512u << 10);
  CHECK(wire_bytes(Proto::LL128, 120) == 128);
  CHECK(wire_bytes(Proto::Simple, 1000) == 1000);
  CHECK(wire_efficiency(Proto::LL) == 0.5);
  CHECK(credits(Op::AllReduce, Algo::Ring, Proto::Simple) == 4);
  CHECK(credits(Op::AllReduce, Algo::Tree, Proto::Simple) == 8);
}

TEST_CASE("NVLS channels and chunks follow NCCL's set-up by GPU generation and version",
          "[collectives]") {
  Hardware hopper;
  hopper.nic_gbps = 50;
  // Hopper: 16 channels, 128 KiB chunks, the tree's at most 64 KiB from 4 nodes on.
  CHECK(nvls_setup(hopper, 1, 8).channels == 16);
  CHECK(nvls_setup(hopper, 2, 8).tree_max_chunk == 128u << 10);
  CHECK(nvls_setup(hopper, 4, 8).tree_max_chunk == 64u << 10);
  Hardware b200 = hopper;
  b200.arch = Arch::Blackwell;
  // 2.25.1 doubled the channels on SM100; 2.27.3 keeps 24 inside one NVLink domain.
  b200.nccl_version = 22602;
  CHECK(nvls_setup(b200, 2, 8).channels == 32);
  CHECK(nvls_setup(b200, 2, 8).tree_max_chunk == 128u << 10);
  CHECK(nvls_setup(b200, 1, 8).channels == 32);
  b200.nccl_version = 22703;
  CHECK(nvls_setup(b200, 1, 8).channels == 24);
  // 2.30.3 tunes NVLSTree across hosts: two nodes of 8 GPUs behind PCIe switches with 400 Gb/s
  // NICs take 64 KiB tree chunks; 4 GPUs per node 256 KiB; past two nodes 24 channels.
  b200.nccl_version = 23007;
  CHECK(nvls_setup(b200, 2, 8).channels == 32);
  CHECK(nvls_setup(b200, 2, 8).tree_max_chunk == 64u << 10);
  CHECK(nvls_setup(b200, 2, 4).chunk == 256u << 10);
  CHECK(nvls_setup(b200, 2, 4).tree_max_chunk == 256u << 10);
  CHECK(nvls_setup(b200, 4, 8).channels == 24);
  CHECK(nvls_setup(b200, 4, 8).tree_max_chunk == 64u << 10);
  b200.nic_path = NicPath::Cpu;
  CHECK(nvls_setup(b200, 2, 8).tree_max_chunk == 128u << 10);
  // The chunk a message gets: the set-up's, cut while the channels x heads have too few.
  const NvlsSetup big = nvls_setup(b200, 2, 4);
  CHECK(nvls_tree_chunk(1ULL << 30, 32, 4, big) == 256u << 10);
  CHECK(nvls_tree_chunk(128ULL << 20, 32, 4, big) == 128u << 10);
  CHECK(nvls_tree_chunk(1u << 20, 32, 4, big) == 32u << 10);
}

TEST_CASE("busbw factors are nccl-tests'", "[collectives]") {
  CHECK(busbw_factor(Op::AllReduce, 8) == Approx(14.0 / 8));
  CHECK(busbw_factor(Op::AllGather, 8) == Approx(7.0 / 8));
  CHECK(busbw_factor(Op::ReduceScatter, 4) == Approx(0.75));
  CHECK(busbw_factor(Op::AllToAll, 2) == Approx(0.5));
  CHECK(busbw_factor(Op::Broadcast, 8) == 1.0);
  CHECK(busbw_factor(Op::Reduce, 8) == 1.0);
  CHECK(busbw_factor(Op::SendRecv, 2) == 1.0);
  CHECK(algbw_gbps(1'000'000'000, 0.5) == Approx(2.0));
  CHECK(busbw_gbps(Op::AllReduce, 2, 1'000'000'000, 1.0) == Approx(1.0));
}

TEST_CASE("a plan too large for the memory limit is refused before it is built", "[collectives]") {
  const RankLayout two_hosts = layout_hosts(16, 8, true);
  for (const Op op : {Op::AllReduce, Op::AllGather}) {
    CAPTURE(name(op));
    const Call call{.op = op, .bytes = 1u << 30};
    const Plan plan = make_plan(call, two_hosts);
    std::uint64_t steps = 0;
    for (const std::vector<Step>& rank : plan.steps) steps += rank.size();
    // The estimate (2 steps per piece of the bus traffic) is within a factor 2 of the count.
    CHECK_THROWS_WITH(make_plan(call, two_hosts, 1, steps / 2),
                      Catch::Contains("steps, more than fit in the memory limit"));
    CHECK_NOTHROW(make_plan(call, two_hosts, 1, steps * 2));
  }
}

TEST_CASE("impossible requests are errors, never fallbacks", "[collectives]") {
  const RankLayout two_hosts = layout_hosts(16, 8, true);
  const RankLayout one_host = layout_one_host(8, false);
  CHECK_THROWS_AS(make_plan({.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::Nvls}, two_hosts),
                  PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::Nvls}, one_host),
                  PlanError);
  CHECK_THROWS_AS(
      make_plan({.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::Nvls, .proto = Proto::LL},
                layout_one_host(8, true)),
      PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::AllToAll, .bytes = 1 << 20, .algo = Algo::Tree}, one_host),
                  PlanError);
  // NVLSTree: across hosts, Simple, equal hosts of 2+ GPUs, NVLS hardware.
  CHECK_THROWS_AS(make_plan({.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::NvlsTree},
                            layout_one_host(8, true)),
                  PlanError);
  CHECK_THROWS_AS(
      make_plan(
          {.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::NvlsTree, .proto = Proto::LL128},
          two_hosts),
      PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::NvlsTree},
                            layout_hosts(12, 8, true)),
                  PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::NvlsTree},
                            layout_hosts(16, 8, false)),
                  PlanError);
  CHECK_THROWS_AS(
      make_plan({.op = Op::AllGather, .bytes = 1 << 20, .algo = Algo::NvlsTree}, two_hosts),
      PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::AllGather, .bytes = 1 << 20, .algo = Algo::Tree}, one_host),
                  PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::P2P}, one_host),
                  PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::AllToAll, .bytes = 1 << 20, .proto = Proto::LL}, one_host),
                  PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::AllGather, .bytes = 1001}, one_host), PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::Broadcast, .bytes = 8, .root = 8}, one_host), PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::SendRecv, .bytes = 8, .root = 3, .peer = 3}, one_host),
                  PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::AllReduce, .bytes = 8, .channels = 65}, one_host),
                  PlanError);
  CHECK_THROWS_AS(make_plan({.op = Op::AllReduce, .bytes = 8}, RankLayout{}), PlanError);
  RankLayout dup = one_host;
  dup.ranks[1] = dup.ranks[0];
  CHECK_THROWS_AS(make_plan({.op = Op::AllReduce, .bytes = 8}, dup), PlanError);
}

TEST_CASE("a single rank or zero bytes moves nothing", "[collectives]") {
  const Plan one = make_plan({.op = Op::AllReduce, .bytes = 1 << 20}, layout_one_host(1));
  CHECK(one.steps.size() == 1);
  CHECK(one.steps[0].empty());
  const Plan none = make_plan({.op = Op::AllGather, .bytes = 0}, layout_one_host(4));
  for (const auto& s : none.steps) CHECK(s.empty());
  // ... so it takes no time, and its bandwidths are 0, never inf or NaN.
  CHECK(algbw_gbps(1 << 20, 0.0) == 0);
  CHECK(busbw_gbps(Op::AllReduce, 1, 1 << 20, 0.0) == 0);
  CHECK(busbw_gbps(Op::AllReduce, 1, 1 << 20, 1e-6) == 0);  // factor 2(n-1)/n = 0
}

namespace {

// A GH200 node as on CSCS Alps: 4 Hopper GPUs, 4 NICs of 200 Gb/s behind the Grace CPU.
Hardware gh200_node() {
  Hardware hw;
  hw.cpu = Cpu::Arm;
  hw.nic_path = NicPath::C2c;
  hw.nics_per_host = 4;
  hw.nic_gbps = 25;
  hw.pci_gbps = 48;
  hw.max_channels = 16;
  hw.bw_intra_gbps = 450.0 * 0.8 / 16;
  return hw;
}

bool picks_ll128(TuningInput in) {
  for (std::uint64_t b = 8; b <= (4ULL << 30); b *= 2) {
    in.bytes = b;
    if (choose(in).proto == Proto::LL128) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("LL128 between hosts only where NCCL enables it by default", "[collectives]") {
  // tuning.cc: LL128 needs NVLink inside the node and, across nodes, a GPU-NIC path up to
  // PATH_PXB, or PATH_P2C (Grace's NVLink-C2C) from NCCL 2.27. Before 2.27 GH200's path was
  // PATH_PHB (tags 2.23.4-1, 2.27.3-1).
  TuningInput in{Op::AllReduce, 0, 32, 8, gh200_node()};
  in.hw.nccl_version = 22304;
  CHECK_FALSE(picks_ll128(in));
  in.hw.nccl_version = 22703;
  CHECK(picks_ll128(in));
  in.hw.nic_path = NicPath::Cpu;  // behind the CPU's host bridge: off in every version
  CHECK_FALSE(picks_ll128(in));
  in.hw.nic_path = NicPath::PcieSwitch;
  in.hw.nccl_version = 22304;
  CHECK(picks_ll128(in));
  // One node never crosses a NIC.
  TuningInput one{Op::AllReduce, 0, 4, 1, gh200_node()};
  one.hw.nccl_version = 22304;
  CHECK(picks_ll128(one));
  // A PCIe-only node: no LL128 at all.
  one.hw.intra = IntraLink::PCI;
  CHECK_FALSE(picks_ll128(one));
  // NCCL_PROTO=LL128 is obeyed whatever the defaults say.
  in.hw.nic_path = NicPath::C2c;
  in.bytes = 1 << 20;
  CHECK(choose(in, Algo::Auto, Proto::LL128).proto == Proto::LL128);
}

TEST_CASE("up to two nodes the tree is tuned with its raised intra-node bandwidth",
          "[collectives]") {
  // GH200 x 2 nodes: rings of 24 GB/s, trees of 48 (graph.hpp); ring busBw 4 x 24 = 96, tree
  // min(0.92 x 4 x 48, 4 x perChMaxTreeBw 41.4) = 165.6, halved: 82.8 against 96 x 8 / 14.
  TuningInput two{Op::AllReduce, 1ULL << 30, 8, 2, gh200_node()};
  const auto times = algo_times(two);
  CHECK(find(times, Algo::Tree, Proto::Simple).algbw_gbps == Approx(82.8));
  CHECK(find(times, Algo::Ring, Proto::Simple).algbw_gbps == Approx(96.0 * 8 / 14));
  CHECK(choose(two).algo == Algo::Tree);
  // From three nodes NCCL reads bwInter: the ring wins again.
  TuningInput four{Op::AllReduce, 1ULL << 30, 16, 4, gh200_node()};
  CHECK(choose(four).algo == Algo::Ring);
}

TEST_CASE("the analytical fidelity is NCCL's model's time for the pair it picks", "[collectives]") {
  const RankLayout layout = layout_hosts(16, 8);
  Call call{.op = Op::AllReduce, .bytes = 64 << 20};
  const Choice m = model_time(call, layout);
  const Choice c = choose(TuningInput{Op::AllReduce, 64 << 20, 16, 2, layout.hw});
  CHECK(m.algo == c.algo);
  CHECK(m.proto == c.proto);
  CHECK(m.time_us == c.time_us);
  CHECK(m.time_us > 0);
  // A forced pair is timed as NCCL would time it; nothing moves on one rank.
  call.algo = Algo::Ring;
  call.proto = Proto::LL;
  CHECK(model_time(call, layout).proto == Proto::LL);
  CHECK(model_time(call, layout).time_us > m.time_us);
  CHECK(model_time(Call{.op = Op::AllReduce, .bytes = 1 << 20}, layout_one_host(1)).time_us == 0);
  // NCCL's model has no point-to-point times.
  CHECK_THROWS_AS(model_time(Call{.op = Op::AllToAll, .bytes = 1 << 20}, layout), PlanError);
  CHECK_THROWS_AS(model_time(Call{.op = Op::SendRecv, .bytes = 1 << 20}, layout), PlanError);
}

TEST_CASE("NCCL_BUFFSIZE sets Simple's steps and ring slices and leaves LL's and LL128's",
          "[collectives]") {
  // Two 8-GPU hosts, a 4 GiB ring all-reduce on 16 channels: a rank's share per channel
  // (16 MiB) is larger than a chunk either way, so a slice is two steps of buffsize / 8.
  RankLayout layout = layout_hosts(16, 8);
  Call call;
  call.bytes = 4ull << 30;
  call.algo = Algo::Ring;
  call.proto = Proto::Simple;
  call.channels = 16;
  const Plan standard = make_plan(call, layout);
  layout.hw.buffsize = 8u << 20;
  const Plan doubled = make_plan(call, layout);
  CHECK(standard.slice_bytes == 1u << 20);
  CHECK(doubled.slice_bytes == 2u << 20);
  CHECK(doubled.steps[0].size() * 2 == standard.steps[0].size());
  CHECK(step_payload(Proto::Simple, 8u << 20) == 1u << 20);
  CHECK(step_payload(Proto::LL, 8u << 20) == step_payload(Proto::LL));
  CHECK(step_payload(Proto::LL128, 8u << 20) == step_payload(Proto::LL128));
}

TEST_CASE("CollNetChain is tuned as NCCL's model tunes it, and only when CollNet is on",
          "[collectives]") {
  // Hopper defaults (16 channels of 20.6 GB/s over NVLink, NICs unknown), 4 nodes x 8: busBw
  // = channels x bwIntra, algbw half of it; latency 2 x 7 x 2.8 (NVLink) + 30 (the network's
  // reduction), base 0 (tuning.cc, NCCL 2.18 to 2.30).
  TuningInput in{Op::AllReduce, 1ULL << 30, 32, 4, Hardware{}};
  CHECK_FALSE(find(algo_times(in), Algo::CollNetChain, Proto::Simple).enabled);
  in.hw.collnet = true;
  const auto times = algo_times(in);
  const AlgoTime& t = find(times, Algo::CollNetChain, Proto::Simple);
  CHECK(t.enabled);
  CHECK(t.algbw_gbps == Approx(0.5 * 16 * 20.6));
  CHECK(t.latency_us == Approx(2 * 7 * 2.8 + 30.0));
  CHECK_FALSE(find(times, Algo::CollNetChain, Proto::LL).enabled);
  // All-reduce only, across hosts only.
  CHECK_FALSE(find(algo_times(TuningInput{Op::AllGather, 1ULL << 30, 32, 4, in.hw}),
                   Algo::CollNetChain, Proto::Simple)
                  .enabled);
  CHECK_FALSE(find(algo_times(TuningInput{Op::AllReduce, 1ULL << 30, 8, 1, in.hw}),
                   Algo::CollNetChain, Proto::Simple)
                  .enabled);
  // Its channels shrink for small messages at 640 threads x 512 bytes each.
  CHECK(tuned_channels(TuningInput{Op::AllReduce, 640 * 512 * 3, 32, 4, in.hw}, Algo::CollNetChain,
                       Proto::Simple, 16) == 3);
  CHECK(choose(in, Algo::CollNetChain).algo == Algo::CollNetChain);
}

TEST_CASE("NVLS across hosts needs CollNet and is bound by the heads' NICs", "[collectives]") {
  // 4 H100 hosts of 8 GPUs and 8 NICs of 50 GB/s: NVLS inside each host, 8 heads whose NICs
  // (the network graph's rings, 48 GB/s each) bound the bus bandwidth; latency NVLS's 25 us
  // plus its network figure, 18 (tuning.cc).
  TuningInput in{Op::AllReduce, 1ULL << 30, 32, 4, ndr_node(Arch::Hopper, true)};
  CHECK_FALSE(find(algo_times(in), Algo::Nvls, Proto::Simple).enabled);
  in.hw.collnet = true;
  const AlgoTime t = find(algo_times(in), Algo::Nvls, Proto::Simple);
  REQUIRE(t.enabled);
  CHECK(t.latency_us == Approx(25.0 + 18.0));
  CHECK(t.algbw_gbps <= Approx(8 * 48.0 * 32 / (2.0 * 31)));
  CHECK(t.channels <= 16);
  // With NVLS the large all-reduce goes to NVLS with SHARP; small ones stay with the rings
  // and trees.
  CHECK(choose(in).algo == Algo::Nvls);
  in.bytes = 4096;
  CHECK(choose(in).algo != Algo::Nvls);
}

TEST_CASE("CollNetChain's chunk shrinks as NCCL's does for short messages", "[collectives]") {
  // 16 channels, 8 GPUs a chain: 256 KiB from 16 x 256 KiB x 8 x 64 = 2 GiB, 128 KiB below.
  CHECK(collnet_chain_chunk(2ULL << 30, 16, 8) == 256 * 1024);
  CHECK(collnet_chain_chunk(1ULL << 30, 16, 8) == 128 * 1024);
  CHECK(collnet_chain_chunk(1ULL << 20, 16, 8) == 32 * 1024);
  // One step of NCCL_BUFFSIZE at most.
  CHECK(collnet_chain_chunk(8ULL << 30, 16, 8, 1 << 20) == 128 * 1024);
}

TEST_CASE("CollNetDirect is tuned as NCCL's model tunes it", "[collectives]") {
  // 4 H100 hosts of 8 GPUs and 8 NICs (rings of 48 GB/s): 8 heads x 48 GB/s, one GPU per NIC
  // (factor 1), x 0.85 on Hopper, halved: 163.2 GB/s. Latency 2 x (3.7 + 7 x 0.4) + 31.
  TuningInput in{Op::AllReduce, 1ULL << 30, 32, 4, ndr_node()};
  CHECK_FALSE(find(algo_times(in), Algo::CollNetDirect, Proto::Simple).enabled);
  in.hw.collnet = true;
  const AlgoTime t = find(algo_times(in), Algo::CollNetDirect, Proto::Simple);
  REQUIRE(t.enabled);
  CHECK(t.algbw_gbps == Approx(0.5 * 8 * 48 * 0.85));
  CHECK(t.latency_us == Approx(2 * (3.7 + 7 * 0.4) + 31.0));
  // Four NICs for eight GPUs: four channels of 48 GB/s, doubled to eight of 24 (search.cc,
  // ncclTopoDupChannels: SM90 keeps its channels only above four), one GPU per channel.
  TuningInput half = in;
  half.hw.nics_per_host = 4;
  CHECK(find(algo_times(half), Algo::CollNetDirect, Proto::Simple).algbw_gbps ==
        Approx(0.5 * 8 * 24 * 0.85));
  // Ampere keeps the 15%; PCIe hosts do not run it.
  TuningInput ampere = in;
  ampere.hw.arch = Arch::Ampere;
  CHECK(find(algo_times(ampere), Algo::CollNetDirect, Proto::Simple).algbw_gbps ==
        Approx(0.5 * 8 * 48));
  TuningInput pcie = in;
  pcie.hw.intra = IntraLink::PCI;
  CHECK_FALSE(find(algo_times(pcie), Algo::CollNetDirect, Proto::Simple).enabled);
  // enqueue.cc's channel tuning: 16 channels down to 8 until 8 heads x 640 threads x 256 bytes
  // per channel, then down to 4 below 12 channels' worth at 128 bytes, ...
  CHECK(tuned_channels(in, Algo::CollNetDirect, Proto::Simple, 16) == 16);
  TuningInput small = in;
  small.bytes = 1 << 20;
  CHECK(tuned_channels(small, Algo::CollNetDirect, Proto::Simple, 16) < 16);
}
