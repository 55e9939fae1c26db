#pragma once
// CollNetChain all-reduce (NCCL's collnet chain, src/device/all_reduce.h; in-network reduction
// with InfiniBand SHARP): on every channel the GPUs of each host form a chain whose head sits on
// the channel's NIC rail. Each chunk is reduced up the chain; the head sends the host's sum to
// the aggregation node in the switches, which reduces the sums of all hosts and returns the
// total to every head; the heads broadcast it back down their chains. The aggregation node is
// a participant of the plan (one per channel, Plan::sharp_rails), so that its reduction and
// its replies appear as steps like any other.
#include <cstdint>

#include "collectives/builder.hpp"

namespace fabricsim::collectives {

// Hosts need the same GPU count. Agent k (participant n_ranks + switch_host.size() + k) serves
// channel k.
void build_collnet_chain_allreduce(PlanBuilder& b, Plan& plan, const RankLayout& layout,
                                   const Hosts& hosts, std::uint64_t chunk);

}  // namespace fabricsim::collectives
