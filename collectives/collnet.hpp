#pragma once
// CollNetChain all-reduce (NCCL's collnet chain, src/device/all_reduce.h; in-network reduction
// with InfiniBand SHARP): on every channel the GPUs of each host form a chain whose head sits on
// the channel's NIC rail. Each chunk is reduced up the chain; the head sends the host's sum to
// the aggregation node in the switches, which reduces the sums of all hosts and returns the
// total to every head; the heads broadcast it back down their chains. The aggregation node is
// a participant of the plan (one per channel, Plan::sharp_rails), so that its reduction and
// its replies appear as steps like any other.
#include <cstdint>
#include <vector>

#include "collectives/builder.hpp"

namespace fabricsim::collectives {

// Hosts need the same GPU count. Agent k (participant n_ranks + switch_host.size() + k) serves
// channel k.
void build_collnet_chain_allreduce(PlanBuilder& b, Plan& plan, const RankLayout& layout,
                                   const Hosts& hosts, std::uint64_t chunk);

// CollNetDirect's heads on host `host` (its index in `hosts`): the first GPU on each NIC rail the
// host's GPUs use, at most 8 (NCCL_MAX_DIRECT_ARITY + 1), by rail (search.cc, the COLLNET_DIRECT
// pattern's one head per NIC with a GPU next to it).
std::vector<int> collnet_direct_heads(const Hosts& hosts, const RankLayout& layout, int host);

// Head h of every host reaches the same aggregation node: the heads sit on the same NIC rails
// on every host.
bool collnet_direct_same_rails(const Hosts& hosts, const RankLayout& layout);

// CollNetDirect all-reduce (src/device/all_reduce.h, NCCL_ALGO_COLLNET_DIRECT): the buffer is
// cut per channel, loop and head. Every GPU of a host sends each head its copy of that head's
// part over NVLink (the scatter); the head reduces them with its own and sends the host's sum
// through its NIC to the aggregation node, which returns the total of all hosts; the head sends
// it to every GPU of its host (the broadcast, on the channel's second connection, channel +
// channels, as the kernel keeps its scatter and broadcast apart). Agent
// n_ranks + switch_host.size() + c x heads + h serves channel c's head h.
void build_collnet_direct_allreduce(PlanBuilder& b, Plan& plan, const RankLayout& layout,
                                    const Hosts& hosts, std::uint64_t chunk);

}  // namespace fabricsim::collectives
