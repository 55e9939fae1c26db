#include "collectives/graph.hpp"

#include <catch2/catch.hpp>

#include "collectives/protocol.hpp"
#include "collectives/tuning.hpp"

using namespace fabricsim::collectives;

namespace {

Hardware node(Arch arch, int nics, double nic_gbps, double pci_gbps) {
  Hardware hw;
  hw.arch = arch;
  hw.nics_per_host = nics;
  hw.nic_gbps = nic_gbps;
  hw.pci_gbps = pci_gbps;
  return hw;
}

}  // namespace

TEST_CASE("network graph: rings per NIC at the speed the GPU-NIC path carries, then duplicated",
          "[collectives]") {
  struct Case {
    const char* what;
    Hardware hw;
    int ranks_per_node;
    int rings;
    double ring_gbps;
    int channels;
  };
  const Case cases[] = {
      // 8 HDR NICs (25 GB/s) behind PCIe Gen4 (24): 8 rings of 24 GB/s, below the 25 GB/s
      // ncclTopoDupChannels asks for; connect runs each on two channels.
      {"DGX A100", node(Arch::Ampere, 8, 25, 24), 8, 8, 24.0, 16},
      // 8 NDR NICs (50 GB/s) on Gen5 (48): SM90 keeps its 8 rings under 50 GB/s.
      {"H100 x8 NDR", node(Arch::Hopper, 8, 50, 48), 8, 8, 48.0, 16},
      // One H100 per node: a single 48 GB/s ring is duplicated into two of 24, on 4 channels.
      {"H100 x1", node(Arch::Hopper, 8, 50, 48), 1, 2, 24.0, 4},
      // A 100 Gb/s NIC (12.5 GB/s) runs one ring at 12 GB/s, never duplicated.
      {"100G NIC", node(Arch::Hopper, 1, 12.5, 48), 8, 1, 12.0, 2},
      // 800 Gb/s NICs (100 GB/s) without a PCIe limit carry two 48 GB/s rings each.
      {"800G NICs", node(Arch::Hopper, 8, 100, 0), 8, 16, 48.0, 32},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const NetGraph g = net_graph(c.hw, c.ranks_per_node);
    CHECK(g.rings == c.rings);
    CHECK(g.ring_gbps == c.ring_gbps);
    CHECK(g.channels == c.channels);
  }
}

TEST_CASE("network graph: Hopper's extra ring channels by NCCL version", "[collectives]") {
  Hardware h100 = node(Arch::Hopper, 8, 50, 48);
  h100.nccl_version = 21703;  // before the rule: the 8 rings on 16 channels
  CHECK(net_graph(h100, 8).channels == 16);
  h100.nccl_version = 21903;  // 2.18-2.19: doubled while 2 x 16 fits in 32
  CHECK(net_graph(h100, 8).channels == 32);
  h100.nccl_version = 22003;  // from 2.20.3 only below 16
  CHECK(net_graph(h100, 8).channels == 16);
  // Six NICs: 6 rings of 48 GB/s on 12 channels, below 16, doubled from 2.18.1 on Hopper and
  // from 2.25.1 on Blackwell.
  Hardware six = node(Arch::Hopper, 6, 50, 48);
  six.nccl_version = 22003;
  CHECK(net_graph(six, 8).channels == 24);
  six.arch = Arch::Blackwell;
  six.nccl_version = 22403;
  CHECK(net_graph(six, 8).channels == 12);
  six.nccl_version = 22501;
  CHECK(net_graph(six, 8).channels == 24);
}

TEST_CASE("tuning across hosts counts the network graph's rings", "[collectives]") {
  TuningInput in;
  in.op = Op::AllReduce;
  in.bytes = 1ULL << 30;
  in.n_ranks = 16;
  in.n_nodes = 2;
  in.hw = node(Arch::Ampere, 8, 25, 24);
  in.hw.max_channels = 24;  // the single-node count, not what a 2-node communicator runs
  const Choice c = choose(in, Algo::Ring, Proto::Simple);
  CHECK(c.channels == 16);
  // Ring Simple: 8 rings x 24 GB/s of bus bandwidth, algbw = bus x n / (2 (n - 1)).
  for (const AlgoTime& t : algo_times(in)) {
    if (t.algo == Algo::Ring && t.proto == Proto::Simple) {
      CHECK(t.algbw_gbps == Approx(8 * 24.0 * 16 / 30));
    }
  }
  // The per-channel ceilings of a call that runs all 16 channels: LL128 20 GB/s per Ampere ring
  // over the 16 channels; LL's multi-node cap across the network (by CPU: 22.5 on a DGX A100's
  // AMD EPYC, 39 on Intel), its one-node cap (87.7, by GPU) inside a host; ring Simple writes a
  // step for the network at NCCL's ring bandwidth over the channels and has no cap inside a host.
  CHECK(channel_gbps(in, Algo::Ring, Proto::LL128, true, 16) == Approx(8 * 20.0 / 16));
  CHECK(channel_gbps(in, Algo::Ring, Proto::LL, true, 16) == Approx(39.0 / 16));
  // A call on fewer channels: LL128's cap is per channel, LL's is shared by the channels that
  // run, each at most half its ring channel's bus bandwidth (8 rings x 24 GB/s over 16).
  CHECK(channel_gbps(in, Algo::Ring, Proto::LL128, true, 2) == Approx(8 * 20.0 / 16));
  CHECK(channel_gbps(in, Algo::Ring, Proto::LL, true, 8) == Approx(39.0 / 8));
  CHECK(channel_gbps(in, Algo::Ring, Proto::LL, true, 2) == Approx(0.5 * 8 * 24.0 / 16));
  // Tree LL alone on one channel: half the tree graph's channel (its second pass doubles the
  // ring's 24 GB/s inside the node, the most it may).
  CHECK(channel_gbps(in, Algo::Tree, Proto::LL, true, 1) == Approx(0.5 * 8 * 48.0 / 16));
  in.hw.cpu = Cpu::Amd;
  CHECK(channel_gbps(in, Algo::Ring, Proto::LL, true, 16) == Approx(22.5 / 16));
  CHECK(channel_gbps(in, Algo::Ring, Proto::LL, false, 16) == Approx(87.7 / 16));
  // Ring Simple between hosts: the 8 rings' 24 GB/s over the channels that share them, a ring's
  // speed at most (a call on 4 channels), less on more channels than the communicator's 16.
  CHECK(channel_gbps(in, Algo::Ring, Proto::Simple, true, 16) == Approx(8 * 24.0 / 16));
  CHECK(channel_gbps(in, Algo::Ring, Proto::Simple, true, 4) == Approx(24.0));
  CHECK(channel_gbps(in, Algo::Ring, Proto::Simple, true, 32) == Approx(8 * 24.0 / 32));
  CHECK(channel_gbps(in, Algo::Ring, Proto::Simple, false, 16) == 0);
  in.n_nodes = 1;
  in.n_ranks = 8;
  CHECK(channel_gbps(in, Algo::Ring, Proto::Simple, true, 16) == 0);
}

TEST_CASE("tree LL128 shrinks its chunk for messages too small to fill the tree", "[collectives]") {
  const std::uint64_t full = step_payload(Proto::LL128);
  // 16 ranks on 2 nodes: (1 + 1 + 0.8) x 64 / 8 = 22.4 chunks per channel wanted.
  CHECK(tree_ll128_chunk(full, 1ULL << 30, 16, 16, 2) == full);
  // 1 MiB over 16 channels: halved to the 128 KiB floor, then toward 32 KiB.
  const std::uint64_t small = tree_ll128_chunk(full, 1ULL << 20, 16, 16, 2);
  CHECK(small < 32768);
  CHECK(small > 16384);
  const std::uint64_t mid = tree_ll128_chunk(full, 64ULL << 20, 16, 16, 2);
  CHECK(mid < full);
  CHECK(mid >= 131072 / 2);
}

TEST_CASE("network graph: the tree's intra-node bandwidth rises to twice its rings' speed",
          "[collectives]") {
  // Pass 2 of ncclTopoCompute raises a tree's bwIntra one speed at a time while it is below
  // twice bwInter and NVLink carries every tree at it (src/graph/search.cc).
  // GH200 x4 with 200 Gb/s NICs: 4 rings of 24 GB/s; 24 -> 30 -> 40 -> 42 -> 45 -> 48.
  Hardware gh200 = node(Arch::Hopper, 4, 25, 48);
  gh200.bw_intra_gbps = 450.0 / 16;
  CHECK(net_graph(gh200, 4).tree_intra_gbps == 48.0);
  // NVLink as the limit: at 120 GB/s per GPU the 4 trees stop at 30.
  gh200.bw_intra_gbps = 120.0 / 16;
  CHECK(net_graph(gh200, 4).tree_intra_gbps == 30.0);
  // DGX A100: 8 rings of 24 on 240 GB/s of NVLink: 28 and 30 fit, 48 does not.
  Hardware a100 = node(Arch::Ampere, 8, 25, 24);
  a100.bw_intra_gbps = 240.0 / 24;
  a100.max_channels = 24;
  CHECK(net_graph(a100, 8).tree_intra_gbps == 30.0);
  // H100 x8 NDR: 48 GB/s is the top of SM90's inter-node speeds; nothing to raise.
  CHECK(net_graph(node(Arch::Hopper, 8, 50, 48), 8).tree_intra_gbps == 48.0);
  // Blackwell takes SM100's speeds: the same NICs' 48 GB/s rings reach 96.
  Hardware b200 = node(Arch::Blackwell, 8, 50, 0);
  b200.bw_intra_gbps = 900.0 / 16;
  CHECK(net_graph(b200, 8).tree_intra_gbps == 96.0);
}

namespace {

// One node's GPUs as a scenario describes them: a GPU's NCCL NVLink (links x per-link figure)
// spread over the channels the kernels run.
Hardware nvswitch_node(Arch arch, double nvlink_gbps, int version) {
  Hardware hw;
  hw.arch = arch;
  hw.nvls = true;
  hw.nccl_version = version;
  hw.bw_intra_gbps = nvlink_gbps / hw.max_channels;
  return hw;
}

}  // namespace

TEST_CASE("one node's ring graph: as many rings as the NVLink carries at the first speed",
          "[collectives]") {
  struct Case {
    const char* what;
    Arch arch;
    double nvlink;
    int version;
    int rings;
    double gbps;
  };
  const Case cases[] = {
      // 6 rings at 60, duplicated to 12 at 30 (NVIDIA/nccl#1367: 24 channels after connect).
      {"H100", Arch::Hopper, 370.8, 23007, 12, 30.0},
      // 6 rings at 40 fill the NVLink; Ampere is not spared the duplication.
      {"A100", Arch::Ampere, 240.0, 23007, 12, 20.0},
      // 2.17's Hopper array (66, 33, ...): 11 rings at 33 carry more than 5 at 66.
      {"H100 2.17", Arch::Hopper, 370.8, 21701, 11, 33.0},
      {"B200", Arch::Blackwell, 721.8, 23007, 16, 45.0},  // 8 rings at 90, duplicated
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const RingGraph g = one_node_ring_graph(nvswitch_node(c.arch, c.nvlink, c.version));
    CHECK(g.rings == c.rings);
    CHECK(g.gbps == c.gbps);
  }
}

TEST_CASE("one node's NVLS graph: a head per GPU, each GPU's NVLink carrying heads + 1 speeds",
          "[collectives]") {
  struct Case {
    Arch arch;
    double nvlink;
    int gpus;
    int version;
    int heads;
    double bw_intra;
    double bw_inter;
  };
  const Case cases[] = {
      {Arch::Hopper, 370.8, 8, 23007, 8, 40.0, 60.0},  // 9 x 40 <= 370.8 < 9 x 50
      {Arch::Hopper, 370.8, 6, 23007, 6, 50.0, 60.0},
      {Arch::Hopper, 370.8, 6, 21805, 6, 40.0, 60.0},  // 2.18's array has no 50
      {Arch::Hopper, 370.8, 5, 23007, 5, 60.0, 60.0},
      {Arch::Hopper, 370.8, 4, 23007, 4, 60.0, 60.0},
      {Arch::Blackwell, 721.8, 8, 23007, 8, 80.0, 90.0},
      {Arch::Blackwell, 721.8, 7, 23007, 7, 90.0, 90.0},  // 8 x 90 = 720 fits 721.8
      // 72 GPUs of one NVLink domain: 32 heads (NCCL_MAX_NVLS_ARITY), 33 x 20 <= 721.8.
      {Arch::Blackwell, 721.8, 72, 22602, 32, 20.0, 40.0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.gpus, c.version);
    const NvlsGraph g = nvls_graph(nvswitch_node(c.arch, c.nvlink, c.version), c.gpus);
    CHECK(g.heads == c.heads);
    CHECK(g.bw_intra == c.bw_intra);
    CHECK(g.bw_inter == c.bw_inter);
  }
  CHECK(nvls_graph(nvswitch_node(Arch::Hopper, 370.8, 23007), 1).heads == 0);
}

TEST_CASE("one node picks NVLS where NCCL's model of its NVLS graph does", "[collectives]") {
  const auto algo = [](Arch arch, double nvlink, int gpus, int version) {
    TuningInput in{Op::AllReduce, 8ull << 30, gpus, 1, nvswitch_node(arch, nvlink, version)};
    return choose(in).algo;
  };
  // NCCL 2.27: 4 H200 ring, 5 and more NVLS; 2.28's nvlsEfficiency and bwInter bound make 5
  // a ring too, 6 a tie NVLS wins on latency (ml-engineering's sweeps; tests/data/busbw).
  CHECK(algo(Arch::Hopper, 370.8, 4, 22707) == Algo::Ring);
  CHECK(algo(Arch::Hopper, 370.8, 5, 22707) == Algo::Nvls);
  CHECK(algo(Arch::Hopper, 370.8, 5, 22902) == Algo::Ring);
  CHECK(algo(Arch::Hopper, 370.8, 6, 22902) == Algo::Nvls);
  CHECK(algo(Arch::Hopper, 370.8, 2, 22902) == Algo::Ring);
  // B200 under 2.27: ring up to 5 GPUs, NVLS from 6.
  CHECK(algo(Arch::Blackwell, 721.8, 5, 22707) == Algo::Ring);
  CHECK(algo(Arch::Blackwell, 721.8, 6, 22707) == Algo::Nvls);
}

TEST_CASE("one node's NVLS bandwidth follows each release's formula", "[collectives]") {
  const auto nvls_algbw = [](int version) {
    const TuningInput in{Op::AllReduce, 1ull << 30, 8, 1,
                         nvswitch_node(Arch::Hopper, 370.8, version)};
    for (const AlgoTime& t : algo_times(in)) {
      if (t.algo == Algo::Nvls) return t.algbw_gbps;
    }
    return 0.0;
  };
  // 8 H100: 2.17 the ring graph (11 rings at 33 GB/s) at 3/4; 2.18-2.27 8 heads at 40 at 5/6;
  // 2.28 on, 8 x min(40 x 0.85 x 7/8 x 2, 60) as a ring's 8/14.
  CHECK(nvls_algbw(21701) == Approx(11 * 33.0 * 0.75));
  CHECK(nvls_algbw(22707) == Approx(8 * 40.0 * 5.0 / 6.0));
  CHECK(nvls_algbw(23007) == Approx(8 * 59.5 * 8.0 / 14.0));
}

TEST_CASE("one node: a channel moves LL at NCCL's LL figure for one search ring", "[collectives]") {
  // min(half the ring's speed, llMaxBw / rings), whatever channels the kernels run.
  const auto ll = [](Arch arch, double nvlink, int channels) {
    Hardware hw = nvswitch_node(arch, nvlink, 23007);
    hw.max_channels = channels;
    hw.bw_intra_gbps = nvlink / channels;
    const TuningInput in{Op::AllReduce, 1 << 20, 8, 1, hw};
    return channel_gbps(in, Algo::Ring, Proto::LL, false, 1);
  };
  CHECK(ll(Arch::Hopper, 370.8, 24) == Approx(141.0 / 12));  // 12 rings of 30: min(15, 11.75)
  CHECK(ll(Arch::Hopper, 370.8, 16) == Approx(141.0 / 12));
  CHECK(ll(Arch::Ampere, 240.0, 24) == Approx(87.7 / 12));
  CHECK(ll(Arch::Blackwell, 721.8, 32) == Approx(282.0 / 16));
}
