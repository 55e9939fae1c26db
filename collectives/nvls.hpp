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

}  // namespace fabricsim::collectives
