#pragma once
// Point-to-point collectives as NCCL runs them: grouped send/recv. All-to-all is n-1 rounds; in
// round i rank r sends to r+i and receives from r-i, so every rank has one partner of each kind
// per round. Each block is shared by the channels and cut into P2P chunks (NCCL_P2P_*_CHUNKSIZE).
// A block to another host goes through the receiver's rail (PXN, nccl-facts.md §3: NCCL 2.12+
// forwards over NVLink to the GPU next to the rail-matched NIC; UNVERIFIED detail).
#include <cstdint>

#include "collectives/builder.hpp"

namespace fabricsim::collectives {

void build_alltoall(PlanBuilder& b, Plan& plan, const RankLayout& layout, const Hosts& hosts,
                    std::uint64_t chunk_nvlink, std::uint64_t chunk_net);
void build_sendrecv(PlanBuilder& b, Plan& plan, const RankLayout& layout, const Hosts& hosts,
                    int from, int to, std::uint64_t chunk_nvlink, std::uint64_t chunk_net);

}  // namespace fabricsim::collectives
