#pragma once
// Ring algorithms (NCCL's ring kernels, src/device/all_reduce.h and friends, as patterns):
// reduce-scatter and all-gather walk each channel's ring in n-1 steps, all-reduce is the two
// back to back (2(n-1) steps, the "RingTwice" pattern); broadcast and reduce pipeline the data
// along the ring opened into a chain that starts (broadcast) or ends (reduce) at the root.
#include <cstdint>

#include "collectives/builder.hpp"

namespace fabricsim::collectives {

// `chunk` is the payload of one ring chunk (one ring position's share per loop); `slices`
// slices per chunk are the unit of a step. With threads > 1 the ranks' step lists are built on
// that many threads (a plan of a thousand ranks holds tens of millions of steps); the plan is
// the same for every thread count.
void build_ring_collective(PlanBuilder& b, Plan& plan, const RankLayout& layout, const Hosts& hosts,
                           std::uint64_t chunk, int slices, unsigned threads = 1);
void build_ring_chain(PlanBuilder& b, Plan& plan, const RankLayout& layout, const Hosts& hosts,
                      int root, std::uint64_t chunk);

}  // namespace fabricsim::collectives
