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

// A GPU's NVLink per direction as NCCL's topology has it (links x per-link figure): the
// scenario spreads it over max_channels as bw_intra_gbps.
double gpu_nvlink_gbps(const Hardware& hw);

// NCCL's ring graph inside one node whose GPUs reach each other through NVSwitches (search.cc,
// no network): the search's first speed at most a GPU's NVLink runs floor(NVLink / speed) rings,
// and the slower speeds it then tries (down to half of it) replace them only with more rings x
// speed; ncclTopoDupChannels then doubles them as in net_graph. 8 H100: 6 rings at 60 GB/s, 12
// at 30 after duplication, which connect doubles again to the 24 channels of NVIDIA/nccl#1367's
// log. The tuning model reads rings x speed.
struct RingGraph {
  int rings = 0;
  double gbps = 0;  // per ring
};
RingGraph one_node_ring_graph(const Hardware& hw);

// The NVLS graph NCCL's search finds inside one node (search.cc ncclTopoCompute with the NVLS
// pattern and no network; ncclTopoSearchTryNvls):
//   1. one channel per head, a head per GPU up to NCCL_MAX_NVLS_ARITY (32), and all of them
//      (minChannels = maxChannels on a single node);
//   2. each channel pulls from and pushes to every GPU through the NVSwitch at the search's
//      speed, its head's twice, so a GPU's NVLink carries (heads + 1) x speed each way; the
//      speed is the fastest entry of the intra-node speed array that fits, starting from the
//      first at most the GPU's NVLink whose heads x speed is at most that NVLink x n / (n - 1);
//   3. its second pass raises bwInter a speed at a time while it is below twice bwIntra
//      (no network uses it; NCCL 2.28's tuning bounds NVLS by it).
struct NvlsGraph {
  int heads = 0;        // the graph's channels (not the nvlsChannels the kernels run)
  double bw_intra = 0;  // GB/s per channel
  double bw_inter = 0;
};

// `gpus` GPUs of one node; arch and nccl_version pick the speed array.
NvlsGraph nvls_graph(const Hardware& hw, int gpus);

}  // namespace fabricsim::collectives
