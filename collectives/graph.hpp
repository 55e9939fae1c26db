#pragma once
// NCCL's channel count and per-channel bandwidth for a communicator that spans hosts, as its
// graph search and connect step produce them (src/graph/search.cc ncclTopoCompute and
// ncclTopoDupChannels, src/graph/connect.cc ncclTopoPostset; NVIDIA/nccl @ 5067397c):
//   1. the search runs one ring per NIC the node's GPUs use, at the fastest entry of NCCL's
//      speed array that the GPU-NIC path carries (the lesser of the NIC's and PCIe's rate);
//   2. ncclTopoDupChannels doubles those rings (halving their bandwidth) when a ring runs at
//      >= 25 GB/s, except above SM80 with rings below 50 GB/s and more than 4 of them;
//   3. connect doubles the channels again (each search ring runs on two channels), and on SM90+
//      multi-node communicators with rings above 45 GB/s doubles them once more up to 16.
//   4. the tree graph starts from the same rings; its second pass then raises the trees'
//      intra-node bandwidth (bwIntra) a speed at a time while it is below twice bwInter and
//      the GPUs' NVLink carries every tree at that speed. The tuning model reads bwIntra for
//      communicators of up to two nodes ("increase bwIntra for trees (2 nodes or collnet)").
// The tuning model multiplies the search rings by their bandwidth; the kernels run `channels`.
#include "collectives/call.hpp"

namespace fabricsim::collectives {

struct NetGraph {
  double path_gbps = 0;        // the search's speed for one NIC's GPU path (before duplication)
  int rings = 0;               // rings the search found (after ncclTopoDupChannels)
  double ring_gbps = 0;        // bandwidth of each (bwIntra = bwInter for these graphs)
  int channels = 0;            // channels the kernels run (connect's duplication)
  double tree_intra_gbps = 0;  // the tree graph's bwIntra after its second pass
};

// `ranks_per_node` GPUs of each node are in the communicator; Hardware::nics_per_host,
// nic_gbps and pci_gbps describe the node. Requires nic_gbps > 0.
NetGraph net_graph(const Hardware& hw, int ranks_per_node);

}  // namespace fabricsim::collectives
