#pragma once
// NCCL's tuning model (src/graph/tuning.cc ncclTopoTuneModel / ncclTopoGetAlgoTime, 2.30.7;
// nccl-facts.md §4): for every enabled (algorithm, protocol)
//   time_us = latency_us + bytes / (1000 x algbw_GBps)
// and the fastest wins; then, like NCCL, the channel count shrinks for small messages.
#include <cstdint>
#include <vector>

#include "collectives/call.hpp"

namespace fabricsim::collectives {

struct TuningInput {
  Op op = Op::AllReduce;
  std::uint64_t bytes = 0;
  int n_ranks = 1;
  int n_nodes = 1;
  Hardware hw;
  // A hop between hosts as NCCL's tuner sees it, with the latency the transport reports to it
  // (collectives/transport.hpp); false: as the executor runs it, with the transport's message
  // latency instead (the same on NCCL's IB transport, which reports none).
  bool reported_latency = true;
  bool average = false;  // Call::average
  // Every host holds as many of the ranks: NVLS and NVLSTree (whose heads are one GPU index on
  // every host) and CollNet need it, as make_plan checks for a forced algorithm.
  bool same_per_host = true;
  // CollNetDirect's heads sit on the same NIC rails on every host (make_plan checks it too).
  bool direct_rails = true;
};

struct AlgoTime {
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  bool enabled = false;  // NCCL's model does not offer this pair for this op / machine
  int channels = 0;      // channels the model assumed
  double latency_us = 0;
  double algbw_gbps = 0;
  double time_us = 0;
};

// Every (Ring, Tree, NVLS, NVLSTree, CollNetChain, CollNetDirect, PAT) x (LL, LL128, Simple) pair,
// enabled or not.
std::vector<AlgoTime> algo_times(const TuningInput& in);

struct Choice {
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  int channels = 1;
  double time_us = 0;
};

// Fastest enabled pair, optionally restricted to one algorithm and/or protocol (Auto = any).
// Throws PlanError if no enabled pair matches.
Choice choose(const TuningInput& in, Algo algo = Algo::Auto, Proto proto = Proto::Auto);

// Whether NCCL offers LL128 when NCCL_PROTO is unset (tuning.cc ncclTopoTuneModel, enable
// "2"): only over NVLink inside hosts (typeIntra <= PATH_NVB), and across hosts only where the
// GPU reaches its NIC through PCIe switches (typeInter <= PATH_PXB), or, from NCCL 2.27 on
// Hopper and later (NCCL_LL128_C2C=1), through a Grace CPU over NVLink-C2C (PATH_P2C). Before
// 2.27 NCCL had no C2C path type: that route was PATH_PHB, and LL128 stayed off between GH200
// nodes (NVIDIA/nccl tags 2.23.4-1 and 2.27.3-1, src/graph/tuning.cc and topo.h). A protocol
// the caller names (NCCL_PROTO=LL128) is used whatever this says, as in NCCL.
bool ll128_by_default(const TuningInput& in);

// NCCL's post-choice shrink: fewer channels while bytes < channels x threads x threshold.
int tuned_channels(const TuningInput& in, Algo algo, Proto proto, int channels);

// NCCL's per-step network overhead, us (getNetOverhead, src/graph/tuning.cc): 2 on AMD x86
// hosts, 1 on Intel and every other CPU. A multi-node ring pays at least this per step (x3 for
// Simple), and so does the executor's GPU part of a step to another host.
double net_overhead_us(Cpu cpu);

// NCCL's nvlsEfficiency, the share of NVLink an NVLS transfer gets: Hopper 0.85, Blackwell 0.74
// (src/graph/tuning.cc; nccl-facts.md §4).
double nvls_efficiency(Arch a);

// Payload one channel (one thread block) moves per second at most, GB/s, under a protocol
// whose throughput the model caps below the links' (LL, LL128, tree, ring Simple to another
// host), for a call that runs `running` channels: LL128's and tree's per-channel caps spread
// over the channels the communicator runs; ring Simple's bandwidth between hosts (graph rings x
// speed) over the channels that share it, a ring's speed at most; LL's cap, one for the whole
// call, over the channels it runs (each at most half its channel's bandwidth, LL's payload share
// of a line). 0 when the protocol has no such cap (ring Simple inside a host, NVLS). LL's cap
// depends on the path: NCCL's one-node figure inside a host, its multi-node figure for a step
// that crosses the network (`net`); NVLSTree's per-head cap bounds its network legs.
double channel_gbps(const TuningInput& in, Algo algo, Proto proto, bool net, int running);

}  // namespace fabricsim::collectives
