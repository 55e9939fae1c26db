#pragma once
// NVLS all-reduce inside one host (NVLink SHARP; nccl-facts.md §3): every GPU is the head of
// 1/n of the data. For the head's part the NVSwitch reads every GPU's copy and reduces it
// (multimem load-reduce: each GPU sends its part to the switch, the switch sends the sum to the
// head), then the head stores the result to the multicast address (head -> switch) and the
// switch writes it to every GPU. The switch is a participant of the plan (Plan::switch_host)
// so that its reduction and replication appear as steps like any other.
#include <cstdint>

#include "collectives/builder.hpp"

namespace fabricsim::collectives {

void build_nvls_allreduce(PlanBuilder& b, Plan& plan, const Hosts& hosts, std::uint64_t chunk);

// NVLSTree (NCCL 2.18+, multi-node Hopper+ all-reduce without SHARP switches): inside every
// host NVLS reduces each head's part into that head; the heads of the same index then reduce
// up and broadcast down a double binary tree over the hosts through their own NICs (channels
// alternate the two trees); each head finally stores the result to its host's multicast
// address. Hosts need the same GPU count; switch agent n + h belongs to host h.
void build_nvls_tree_allreduce(PlanBuilder& b, Plan& plan, const RankLayout& layout,
                               const Hosts& hosts, std::uint64_t chunk);

// NVLS across hosts with CollNet (NCCL_ALGO=NVLS on more than one node): inside every host NVLS
// reduces each head's part into that head; each head sends its host's sum through its own NIC
// to the aggregation node in the switches, which reduces all hosts' sums and returns the total;
// each head then stores it to its host's multicast address. Hosts need the same GPU count;
// switch agent n + h belongs to host h; aggregation agent n + hosts + c x heads + h serves
// channel c's head h (Plan::sharp_rails: that head's NIC).
void build_nvls_sharp_allreduce(PlanBuilder& b, Plan& plan, const Hosts& hosts,
                                std::uint64_t chunk);

}  // namespace fabricsim::collectives
