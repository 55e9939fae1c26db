#pragma once
// NCCL's three protocols as costs: how many wire bytes carry a payload, how much payload one
// FIFO step holds, how steps group into slices and chunks, and the per-hop latencies the
// tuning model charges. Figures: nccl-facts.md (NVIDIA/nccl @ 5067397c, NCCL 2.30.7).
#include <cstdint>

#include "collectives/call.hpp"

namespace fabricsim::collectives {

// Slots in each per-peer connection FIFO (src/include/device.h; nccl-facts.md §1).
inline constexpr int kNcclSteps = 8;
// Most channels a communicator can use (MAXCHANNELS, device.h; nccl-facts.md §1).
inline constexpr int kMaxChannels = 64;

enum class Hop { NVLink, PCI, Net };

// Per-connection buffer (init.cc computeBuffSizes defaults; nccl-facts.md §1); Simple's is
// `buffsize` (NCCL_BUFFSIZE), LL's and LL128's are fixed by their line layouts.
std::uint64_t buffer_bytes(Proto p, std::uint64_t buffsize = kDefaultBuffsize);
// Payload one FIFO step carries: buffer / NCCL_STEPS, minus LL's and LL128's flags.
std::uint64_t step_payload(Proto p, std::uint64_t buffsize = kDefaultBuffsize);
// Payload fraction of the wire bytes: Simple 1, LL 8/16 (two 4-byte flags per 16-byte line),
// LL128 120/128 (one 8-byte flag per 128-byte line). nccl-facts.md §2.
double wire_efficiency(Proto p);
std::uint64_t wire_bytes(Proto p, std::uint64_t payload);

// FIFO steps per slice and per chunk (calcCollChunking; *_SLICESTEPS / *_CHUNKSTEPS): only
// ring+Simple for all-reduce / all-gather / reduce-scatter groups steps (2 and 4).
int slice_steps(Op op, Algo a, Proto p);
int chunk_steps(Op op, Algo a, Proto p);
// Payload of one chunk: step_payload x chunk_steps; NVLS uses its own 128 KiB chunk
// (NCCL_NVLS_CHUNKSIZE) and P2P 512 KiB over NVLink, 128 KiB otherwise (NCCL_P2P_*_CHUNKSIZE).
std::uint64_t chunk_payload(Op op, Algo a, Proto p, bool p2p_over_nvlink,
                            std::uint64_t buffsize = kDefaultBuffsize);
// PAT's chunk: one Simple step, halved (down to 64 KiB) while channels x chunk x 32 (all-gather)
// or x 16 (reduce-scatter) exceeds the message (enqueue.cc calcCollChunking, 2.23.4 to 2.30.7).
std::uint64_t pat_chunk(Op op, std::uint64_t bytes, int channels,
                        std::uint64_t buffsize = kDefaultBuffsize);
// CollNetChain's chunk: one Simple step, at most 256 KiB, halved while the message is under
// ppn x 64 chunks per channel (down to 128 KiB), ppn x 8 (down to 64 KiB) and ppn (down to
// 32 KiB); the chain's depth is its GPUs per host. enqueue.cc (NCCL 2.18.1 and 2.30.7 alike).
std::uint64_t collnet_chain_chunk(std::uint64_t bytes, int channels, int ppn,
                                  std::uint64_t buffsize = kDefaultBuffsize);
// CollNetDirect's chunk: one Simple step, halved while the message is under depth x 64
// chunks per (channel, head) (down to 128 KiB), then depth x 8 (down to 64, then 32 KiB); depth
// 2, 1 with one GPU per host (enqueue.cc, connect.cc; NCCL 2.30.7).
std::uint64_t collnet_direct_chunk(std::uint64_t bytes, int channels, int heads, int ppn,
                                   std::uint64_t buffsize = kDefaultBuffsize);
// Tree LL128 shrinks its chunk so that a message fills the tree's pipeline: halved while the
// message is under (1 + log2(nodes) + 0.1 ppn) x 64 / ppn chunks per channel (down to
// 128 KiB), then x 16 (down to 32 KiB). enqueue.cc calcCollChunking (NVIDIA/nccl @ 5067397c).
std::uint64_t tree_ll128_chunk(std::uint64_t chunk, std::uint64_t bytes, int channels, int ranks,
                               int nodes);
// What NCCL sets up for NVLS on a communicator of `nodes` hosts of `ppn` GPUs (src/transport/
// nvls.cc, ncclNvlsInit / ncclNvlsTuning, keyed by hw.nccl_version): its channel count, chunk
// and the NVLSTree's largest chunk. Hopper: 16 channels, 128 KiB chunks, the tree's at most
// 64 KiB from 4 nodes on. Blackwell: 32 channels from 2.25.1 (NVLS_NCHANNELS_SM100), 24 inside
// one host from 2.27.3 (NVLS_NCHANNELS_SM100_NVL); from 2.30.3 across hosts, channels and
// chunks by node count, GPUs per node, NIC speed and the GPU-NIC path
// (ncclNvlsTreeSm100Tuning).
struct NvlsSetup {
  int channels = 16;
  std::uint64_t chunk = 128 * 1024;  // NCCL_NVLS_CHUNKSIZE default
  std::uint64_t tree_max_chunk = 0;  // NCCL_NVLSTREE_MAX_CHUNKSIZE as resolved
};
NvlsSetup nvls_setup(const Hardware& hw, int nodes, int ppn);
// NVLS across hosts (with CollNet): the set-up's chunk, at most 32 KiB when NCCL's modelled
// NVLS bandwidth is below 150 GB/s, cut to 64 / 32 / 16 KiB while the message is under 64 / 8 /
// 2 x channels x heads chunks (enqueue.cc, NCCL 2.30.7).
std::uint64_t nvls_multinode_chunk(std::uint64_t bytes, int channels, int heads,
                                   const NvlsSetup& setup, double nvls_algbw_gbps);
// NVLSTree's chunk: the set-up's chunk, at most its tree maximum, cut to 256 / 128 / 64 / 32
// KiB when the message gives each of the channels x heads concurrent operations fewer than
// 32 / 16 / 4 / 1 chunks (enqueue.cc calcCollChunking).
std::uint64_t nvls_tree_chunk(std::uint64_t bytes, int channels, int heads, const NvlsSetup& setup);
// Slices a connection may have in flight: NCCL_STEPS / slice_steps.
int credits(Op op, Algo a, Proto p);

// Tuning-model latencies in microseconds of NCCL release `version` (src/graph/tuning.cc baseLat
// / hwLat; collectives/tuner_constants.hpp; nccl-facts.md §4). NCCL's model does not time
// Algo::P2P; its sends and receives move with the ring's primitives over the same hops, so P2P
// reports the ring's figures (the executor charges the hop's once per connection: a transfer
// streams its steps).
double base_latency_us(Algo a, Proto p, int version);
double hw_latency_us(Algo a, Proto p, Hop h, int version);
// PAT's latency also has a part linear in the ranks, 2.8 us each (tuning.cc, 2.23.4 to 2.30.7:
// "Still a linear part"): the kernel steps through every peer distance one operation at a time.
inline constexpr double kPatRankLatencyUs = 2.8;

}  // namespace fabricsim::collectives
