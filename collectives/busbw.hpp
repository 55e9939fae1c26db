#pragma once
// nccl-tests' bandwidth metrics (doc/PERFORMANCE.md; nccl-facts.md §5): algbw = bytes / time,
// busbw = algbw x a per-op factor that makes the figure comparable to the bottleneck link
// speed whatever the rank count.
#include <cstdint>

#include "collectives/call.hpp"

namespace fabricsim::collectives {

// All-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce,
// send/recv 1.
double busbw_factor(Op op, int n_ranks);
// Bytes as nccl-tests counts them (the whole array, see Call::bytes), seconds > 0; GB/s (1e9).
double algbw_gbps(std::uint64_t bytes, double seconds);
double busbw_gbps(Op op, int n_ranks, std::uint64_t bytes, double seconds);

}  // namespace fabricsim::collectives
