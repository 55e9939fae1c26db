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
  // DGX A100: 8 HDR NICs (25 GB/s) behind PCIe Gen4 (24): 8 rings of 24 GB/s, below the 25 GB/s
  // that ncclTopoDupChannels asks for; connect runs each on two channels.
  const NetGraph a100 = net_graph(node(Arch::Ampere, 8, 25, 24), 8);
  CHECK(a100.rings == 8);
  CHECK(a100.ring_gbps == 24.0);
  CHECK(a100.channels == 16);
  // H100 with 8 NDR NICs (50 GB/s) on Gen5 (48): 8 rings of 48; SM90 keeps 8 rings under 50 GB/s.
  const NetGraph h100 = net_graph(node(Arch::Hopper, 8, 50, 48), 8);
  CHECK(h100.rings == 8);
  CHECK(h100.ring_gbps == 48.0);
  CHECK(h100.channels == 16);
  // One H100 per node: a single 48 GB/s ring is duplicated into two of 24, run on 4 channels.
  const NetGraph one = net_graph(node(Arch::Hopper, 8, 50, 48), 1);
  CHECK(one.rings == 2);
  CHECK(one.ring_gbps == 24.0);
  CHECK(one.channels == 4);
  // A 100 Gb/s NIC (12.5 GB/s) runs at 12 GB/s, one ring, never duplicated.
  const NetGraph slow = net_graph(node(Arch::Hopper, 1, 12.5, 48), 8);
  CHECK(slow.ring_gbps == 12.0);
  CHECK(slow.rings == 1);
  CHECK(slow.channels == 2);
  // 800 Gb/s NICs (100 GB/s) without a PCIe limit: two 48 GB/s rings each.
  const NetGraph fast = net_graph(node(Arch::Hopper, 8, 100, 0), 8);
  CHECK(fast.rings == 16);
  CHECK(fast.channels == 32);
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
  // The per-channel ceilings: LL128 20 GB/s per Ampere ring over the 16 channels; LL's
  // multi-node cap (22.5) across the network, its one-node cap (87.7) inside a host; ring
  // Simple has none.
  CHECK(channel_gbps(in, Algo::Ring, Proto::LL128, true) == Approx(8 * 20.0 / 16));
  CHECK(channel_gbps(in, Algo::Ring, Proto::LL, true) == Approx(22.5 / 16));
  CHECK(channel_gbps(in, Algo::Ring, Proto::LL, false) == Approx(87.7 / 16));
  CHECK(channel_gbps(in, Algo::Ring, Proto::Simple, true) == 0);
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
