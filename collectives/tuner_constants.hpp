#pragma once
// NCCL's tuning constants as each release ships them (src/graph/tuning.cc: baseLat, hwLat,
// llMaxBws and the per-channel bandwidth caps; from 2.28 the ncclTunerConstants defaults), and
// the few rules of its model that changed with them. The tuner picks with the constants of the
// version a scenario names (collectives.nccl_version). What a step costs in the executor stays
// the latest release's figures (2.30.7), whatever the version: the constants are NCCL's model of
// the hardware, which later releases re-measured (LL's base latency 3.6 -> 6.6 us in 2.18 on the
// same GPUs; Blackwell's caps revised four times from 2.25's doubled Hopper figures), so a
// release's constants decide what NCCL runs, not how fast it runs.
//
// Releases and what changed (NVIDIA/nccl tags, tables compared value by value):
//   2.17.1  the oldest ported (earlier versions take its constants): ring Simple over the
//           network 9.6 us; one LL128 cap per architecture; bus bandwidth at most 235 GB/s on
//           Ampere and 370 on Hopper; no NVLSTree.
//   2.18.1  new latencies; NVLS / NVLSTree 23 us base, 18 / 19 us per network hop.
//   2.18.3  tree Simple 4 / 6 / 14 us per NVLink / PCI / network hop; LL128 caps per node
//           count.
//   2.19.1  CollNet 3.7 / 2.8 us (31 / 30 over the network); NVLS 23 us per NVLink hop;
//           NVLSTree 14 us per network hop; tree Simple back to 28 us on every hop.
//   2.21.5  NVLS 25 us per NVLink hop; Hopper's own LL cap row (was Ampere's figures); ring
//           LL at half the bus bandwidth (a quarter before, a third for one node's gathers).
//   2.23.4  tree Simple 8.4 us base, 4 / 4 / 14 us per hop; ring all-reduce counts
//           2 (nodes - 1) network steps (2 nodes before); ring LL128 without the 0.7 at one GPU
//           per node.
//   2.25.1  Blackwell rows (twice Hopper's caps; Hopper's row before).
//   2.28.3  Blackwell tree caps lowered; perChMaxNVLSTreeBw (no such cap before: the tuner
//           takes 2.28.3's for earlier releases, whose NVLSTree formula is not modelled);
//           NVLS per head min(bwIntra x nvlsEfficiency x (heads - 1) / heads x 2, bwInter) and
//           a ring's bus-to-algorithm ratio (bwIntra per head at 5/6 from 2.18.1).
//   2.28.7  Blackwell ring LL128 34.6 GB/s at 2 nodes.   2.28.9  NVLSTree 20.9 us per network
//   hop; Blackwell NVLSTree cap 43.8 beyond 2 nodes.     2.29.2  Blackwell ring LL128 34.5.
//   2.29.7  Blackwell ring LL128 40.                     2.30.3  Blackwell NVLSTree cap 80.
#include <array>

#include "collectives/call.hpp"

namespace fabricsim::collectives {

using ProtoRow = std::array<double, 3>;  // [LL, LL128, Simple]
using NodeCaps = std::array<double, 3>;  // [1 node, 2 nodes, more], GB/s

// NCCL's algorithm order in its tables.
enum class TableAlgo { Tree, Ring, CollNetDirect, CollNetChain, Nvls, NvlsTree, Pat, kCount };
inline constexpr std::size_t kTableAlgos = static_cast<std::size_t>(TableAlgo::kCount);

// How NCCL's model turns one node's NVLS graph into bandwidth (tuning.cc): 2.17 from the ring
// graph at 3/4; 2.18-2.27 bwIntra per head at 5/6; from 2.28.3 per head min(bwIntra x
// nvlsEfficiency x (heads - 1) / heads x 2, bwInter), converted as a ring's.
enum class NvlsFormula { RingGraph, Heads, Efficiency };

struct TunerConstants {
  int since = 0;  // the first release these hold for (2YYZZ)
  std::array<ProtoRow, kTableAlgos> base_lat{};
  std::array<std::array<ProtoRow, kTableAlgos>, 3> hw_lat{};  // [NVLink, PCI, network hop]
  std::array<NodeCaps, 4> ll_max_bw{};            // [arch]; across nodes NCCL reads rows 0-1 by CPU
  std::array<NodeCaps, 4> ring_ll128{};           // per channel, [arch]
  std::array<NodeCaps, 4> tree_ll128{};           // per channel
  std::array<NodeCaps, 4> tree{};                 // per channel
  std::array<NodeCaps, 4> nvls_tree{};            // per head (2.28.3's before 2.28)
  double ampere_bus_cap = 0, hopper_bus_cap = 0;  // 2.17's caps on any bus bandwidth (0: none)
  bool ring_ll_quarter = false;        // ring LL at 1/4 (1/3) of the bus bandwidth, not 1/2
  bool ring_ar_all_nodes = false;      // ring all-reduce counts 2 nodes network steps
  bool ring_ll128_one_ppn_07 = false;  // ring LL128 x 0.7 at one GPU per node
  bool nvls_tree_linear = false;       // NVLSTree latency 2 (nodes - 1) network hops (2.18)
  bool has_nvls_tree = true;           // NVLSTree exists (2.18.1 on)
  bool ll_intra_x18 = false;           // across nodes LL's intra-node hops x 1.8 (2.17)
  bool net_overhead_floor = true;      // ring hops at least the network post overhead (2.18.1)
  bool tree_pattern_085 = true;        // trees of one GPU per node x 0.85 (2.18.3)
  bool one_ppn_tree_net = true;        // one GPU per node: the tree's network hop (2.23.4)
  bool blackwell_rows = true;          // Blackwell its own GPU, LL128 on by default (2.25.1)
  bool blackwell_nvls_tree_correction = true;          // tree correction on NVLSTree, x86 (2.28.9)
  NvlsFormula nvls_formula = NvlsFormula::Efficiency;  // one node's NVLS bandwidth (2.28.3)
  double ring_plateau_hopper = 1.4;      // ring Simple all-reduce plateau on sm90+ (1.5 in 2.17)
  int ring_plateau_below = 80;           // compute capability below which it is 1.9 (90 in 2.17)
  double collnet_direct_arity_us = 0.4;  // per GPU of the node (0.5 before 2.19)
};

// The constants of release `version` (2YYZZ, e.g. 22602 for 2.26.2).
const TunerConstants& tuner_constants(int version);

// The table row of an algorithm (P2P reads the ring's; Auto has none).
TableAlgo table_algo(Algo a);

}  // namespace fabricsim::collectives
