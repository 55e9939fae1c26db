#pragma once
// NCCL's PAT, Parallel Aggregated Trees (S. Jeaugey, "PAT: a new algorithm for all-gather and
// reduce-scatter operations at scale", arXiv:2506.20252, 2025: Bruck's algorithm with its
// dimensions reversed, the far distances first, and aggregation bounded by the intermediate
// buffers; NCCL 2.23+: src/include/collectives.h PatAGAlgorithm and PatRSAlgorithm,
// src/device/all_gather.h and reduce_scatter.h, ncclTransportPatConnect in
// src/transport/generic.cc), for all-gather and reduce-scatter on communicators with one GPU per
// node. Every rank has a connection per distance 2^d (d < ceil(log2 n)) and channel; each block
// travels a binomial tree over those distances, so a call takes log2(n) network hops where a
// ring takes n - 1.
//
// All-gather: on distance 2^d rank r sends rank r - 2^d the blocks of ranks r + t, for t = 0 and
// every multiple t of 2^(d+1) with t + 2^d < n: its own and those it received over larger
// distances, the largest distance first. Reduce-scatter is the same trees run backwards: the
// smallest distance first, rank r sends rank r + 2^d its partial sums for ranks r + s (s an odd
// multiple of 2^d, s < n), each its own block plus what arrived for that rank over smaller
// distances.
//
// Aggregation: NCCL packs pieces into one FIFO step (one network message) when a channel's share
// of a block is small beside the chunk. `per_post` pieces go together: the largest power of two
// that still fits the chunk (doubling while chunk >= 2 x share x per_post and per_post < n / 2).
// The kernel walks the pieces of a distance 2^d below its stride in classes of equal s mod the
// stride, the larger distances as one class; each class in ascending s is cut into messages of
// per_post pieces. All-gather's stride is P / A (P: n rounded up to a power of two; A: per_post
// doubled once more per halving of NCCL_STEPS, while A < n / 2); reduce-scatter, which visits
// its classes in bit-reversed order, has P / per_post. (Checked against NCCL 2.30.7's own
// schedule: all-gather's messages for n = 2..100 at nine chunk-to-share ratios; reduce-scatter's
// where its schedule holds no slots back for later distances.)
#include <cstdint>

#include "collectives/builder.hpp"

namespace fabricsim::collectives {

// Pieces of a channel's share of a block per message (see above).
int pat_per_post(std::uint64_t chunk, std::uint64_t share, int n);

// All-gather or reduce-scatter (plan.op) over plan.channels, each channel's share of a block
// cut into loops of at most `chunk` bytes.
void build_pat(PlanBuilder& b, Plan& plan, std::uint64_t chunk);

}  // namespace fabricsim::collectives
