#pragma once
// Runs one collective plan alone on the simulated cluster (workload/plan_runner.hpp says how
// its steps move), and the parameters of that execution.
#include <cstdint>

#include "collectives/call.hpp"
#include "collectives/plan.hpp"
#include "net/config.hpp"
#include "net/network.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::workload {

struct ExecParams {
  // Usable share of the NVLink line rate: NCCL's maintainers put NVLink protocol overhead at
  // ~20% (H100: ~370 of 450 GB/s per direction; NVIDIA/nccl-tests#212, nccl-facts.md §6).
  double nvlink_efficiency = 0.8;
  // NVLS transfers (NVSwitch reduction and multicast) reach this share of the NVLink
  // capacity: NCCL's tuning model nvlsEfficiency, Hopper 0.85 (src/graph/tuning.cc 2.30.7;
  // nccl-facts.md §4).
  double nvls_efficiency = 0.85;
  // GPU proxy <-> NIC, each way (work request doorbell; completion): half of NCCL's per-step
  // network overhead of 1 us (getNetOverhead, Intel/other CPUs; nccl-facts.md §4).
  core::Time host_delay = 500 * core::kNanosecond;
  // Charge NCCL's tuning-model latencies: the base latency once at the start, the hardware
  // latency of the hop before every ring/tree send, NVLS's once (its steps overlap). Inside a
  // host a send's latency holds back the next send on its connection (the channel's thread
  // block does one step at a time). A send to another host holds its connection only for the
  // GPU's part (the intra-host hop latency, at least NCCL's per-step proxy overhead); the rest
  // of the network hop latency is the proxy and NIC pipeline, which overlaps successive sends.
  bool latencies = true;
  // >= 0: every send pays this instead, and no base latency (SimAI's fixed per-step send
  // latency, for like-for-like comparisons with it). A Simple send to another host then leaves
  // as soon as its data is there, as in SimAI, without the thread block's write at NCCL's ring
  // bandwidth per channel (collectives/tuning.hpp channel_gbps).
  core::Time fixed_step_latency = -1;
  // fixed_step_latency once per ring step (on its first slice) instead of on every slice: SimAI
  // sends a ring step as one message and charges its latency once (astra-sim's ring flow model
  // in SimAI 1.6), where NCCL's ring moves a step as `slices` slices.
  bool fixed_latency_per_ring_step = false;
  // Each GPU sends and receives between hosts through its own NIC, instead of both ends using
  // the channel's rail: SimAI's rings (MockNcclGroup::genringchannels, SimAI 1.6) rotate the
  // GPUs of every host by the channel and join host k's last GPU to host k+1's first, so every
  // hop between hosts changes rail and crosses the spines. NCCL keeps a ring on one rail.
  bool own_nics = false;
  // The flow level's coarse plans (collectives/whole_transfers.hpp, `simulation.flow_transfers:
  // whole`): each connection's share of a call moves as one transfer.
  bool whole_transfers = false;
};

struct CollectiveResult {
  core::Time time = 0;  // start to the completion of the last step
  net::NetworkResult net;
  std::uint64_t steps = 0;
  std::uint64_t net_bytes = 0;     // wire bytes the plan sent between hosts
  std::uint64_t nvlink_bytes = 0;  // wire bytes it moved inside hosts
  std::uint32_t queue_pairs = 0;   // RDMA connections used
  // Over MPI ranks: the most plan steps one rank held (collectives::Plan::held); else `steps`.
  std::uint64_t held_steps = 0;
};

// The most plan steps that fit in the memory limit (net::memory_limit, --max-memory): a step
// is held twice at most, as the plan's Step and as the executor's state (make_plan's
// max_steps).
std::uint64_t plan_step_budget();

// The plan the executor runs for `call` on `layout`: collectives::make_plan's (within the step
// budget), in its whole-transfer form when `params` asks for it.
// `held` (held_ranks): only those ranks' steps are built, the rest as briefs (collectives::Plan).
collectives::Plan build_plan(const collectives::Call& call, const collectives::RankLayout& layout,
                             const ExecParams& params, unsigned threads,
                             const std::vector<bool>* held = nullptr);

// Over MPI ranks (`run.ranks`), the ranks of `layout` whose plan steps this process needs: those
// on hosts whose agent or any of whose NICs it runs (a flow's messages are read at both its
// NICs). Empty when one process runs everything, and for the flow level (one process).
std::vector<bool> held_ranks(const net::Topology& topo, const net::NetworkConfig& cfg,
                             const collectives::RankLayout& layout, const net::RunOptions& run);

// Every GPU of the topology as a rank, host by host (rank = host x gpus + local).
collectives::RankLayout rank_layout(const net::Topology& topo, const collectives::Hardware& hw);

// Several collectives at once on disjoint groups of ranks: group g's plan, whose rank r is
// global rank groups[g][r] (a rank of `layout`), becomes part of one plan over all ranks.
// NVLS plans (with switch agents) cannot be merged.
collectives::Plan merge_plans(const std::vector<collectives::Plan>& plans,
                              const std::vector<std::vector<int>>& groups, int n_ranks);

// Throws std::invalid_argument when the plan does not fit the topology, std::runtime_error if
// the plan stalls (a step that can never run). The plan is taken by value: move it in when it
// is not needed afterwards, and its steps are freed as the executor indexes them (a plan of a
// thousand ranks holds gigabytes).
CollectiveResult run_collective(const net::Topology& topo, const net::NetworkConfig& cfg,
                                collectives::Plan plan, const collectives::RankLayout& layout,
                                const ExecParams& params, const net::RunOptions& run);

}  // namespace fabricsim::workload
