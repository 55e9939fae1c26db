#pragma once
// Shared by the algorithm files: appends steps while keeping the bookkeeping an executor relies
// on consistent — per-connection sequence numbers, FIFO order on a connection (each step
// depends on the previous one of the same connection and direction), wire bytes and rails.
#include <cstdint>
#include <initializer_list>
#include <span>
#include <unordered_map>
#include <vector>

#include "collectives/plan.hpp"
#include "collectives/topology_order.hpp"

namespace fabricsim::collectives {

// Part i of `total` cut into `parts` near-equal parts (the first total % parts get one more).
inline std::uint64_t part_size(std::uint64_t total, std::uint64_t parts, std::uint64_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}
inline std::uint64_t part_offset(std::uint64_t total, std::uint64_t parts, std::uint64_t i) {
  return i * (total / parts) + std::min<std::uint64_t>(i, total % parts);
}
inline std::uint64_t div_up(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

class PlanBuilder {
 public:
  // `whole`: build the plan's whole-transfer form directly (whole_transfers.hpp): a step on a
  // connection that has one already adds its bytes to that first step instead of following it,
  // so a plan of millions of steps is never held. Dependencies and sequence numbers are then
  // dropped, and the returned index is the connection's one step.
  PlanBuilder(Plan& plan, const Hosts& hosts, bool whole = false);

  bool whole() const { return whole_; }

  int add_chunk(std::uint64_t offset, std::uint64_t bytes, int owner = -1, int dest = -1);
  // Room for `steps` more steps at `rank`, when the algorithm knows its count up front: a
  // large plan then neither regrows nor moves its step lists.
  void reserve_steps(int rank, std::size_t steps);

  // NCCL's loop over a channel's part: the buffer is cut into one share per channel and each
  // share into the same number of loops of at most `chunk` bytes. Chunk (c, l) gets index
  // `base + c * loops + l`; returns the loop count and sets the plan's slice size.
  std::uint64_t add_channel_loops(std::uint64_t chunk, int owner, int& base);

  // The buffer as the ring and PAT cut it: block j (rank j's part: its all-gather input, its
  // reduce-scatter result) shared by the channels, each share cut into the same number of loops
  // of at most `chunk` bytes and each loop into `slices`. Chunk (j, c, l, s) gets index
  // base + ((j x channels + c) x loops + l) x slices + s, owned by rank j if `owners`. Returns
  // the loop count and sets the plan's slice size.
  std::uint64_t add_block_loops(std::uint64_t chunk, int slices, bool owners, int& base);

  // `rail` overrides the channel's rail for an inter-host hop (P2P picks the receiver's);
  // `slice` is Step::slice.
  std::uint32_t send(int from, int to, int channel, int chunk,
                     std::span<const std::uint32_t> deps = {}, int rail = kNoRail, int slice = 0);
  std::uint32_t recv(int at, int from, int channel, int chunk, Combine combine,
                     std::span<const std::uint32_t> deps = {}, int rail = kNoRail);
  std::uint32_t send(int from, int to, int channel, int chunk, std::uint32_t dep) {
    return send(from, to, channel, chunk, std::span<const std::uint32_t>(&dep, 1));
  }
  // Several chunks in one message (Step::bundle): a bundle made once serves the send and its
  // receive. Not for plans built by several builders at once.
  int add_bundle(std::vector<int> chunks);
  std::uint32_t send_bundle(int from, int to, int channel, int bundle,
                            std::span<const std::uint32_t> deps = {}, int rail = kNoRail);
  std::uint32_t recv_bundle(int at, int from, int channel, int bundle, Combine combine,
                            std::span<const std::uint32_t> deps = {}, int rail = kNoRail);

 private:
  std::uint32_t step(int rank, int peer, Dir dir, Combine combine, int channel, int chunk,
                     int bundle, std::span<const std::uint32_t> deps, int rail, int slice);
  std::uint32_t add(int rank, Step step, std::span<const std::uint32_t> deps, int rail_override);
  int rail_for(int a, int b, int channel, int rail_override) const;

  Plan& plan_;
  const Hosts& hosts_;
  bool whole_;
  struct Conn {
    int next_seq = 0;
    std::int64_t last = -1;
    std::uint32_t brief = 0;  // its entry in the participant's Brief, when not held
  };
  std::uint32_t brief_step(int rank, const Step& step, Conn& conn);
  Conn& conn(std::uint64_t key);
  // Keyed by (self, peer, channel, dir) packed into 64 bits: looked up once per step. The
  // algorithms add a rank's steps in runs over the same few connections, so a small
  // direct-mapped cache of (key, connection) answers most lookups without hashing into the map
  // (whose elements never move).
  std::unordered_map<std::uint64_t, Conn> conns_;
  struct Cached {
    std::uint64_t key = ~std::uint64_t{0};
    Conn* conn = nullptr;
  };
  static constexpr std::size_t kCache = 64;
  Cached cache_[kCache];
  std::vector<std::uint32_t> scratch_;  // a step's dependencies while it is added
};

// The buffer cut as NVLS and CollNetDirect kernels cut it: per channel, per loop of at most
// `chunk` bytes, one part per head. Sets the plan's slice size; chunk(c, l, h) adds the piece and
// returns its id.
struct HeadChunks {
  HeadChunks(Plan& plan, int heads, std::uint64_t chunk) : plan_(plan), heads_(heads) {
    const std::uint64_t biggest = part_size(part_size(plan.bytes, plan.channels, 0), heads, 0);
    loops = std::max<std::uint64_t>(1, div_up(biggest, chunk));
    plan.slice_bytes = part_size(biggest, loops, 0);
  }
  int chunk(PlanBuilder& b, int c, std::uint64_t l, int h) const {
    const std::uint64_t share = part_size(plan_.bytes, plan_.channels, c);
    const std::uint64_t part = part_size(share, heads_, h);
    return b.add_chunk(part_offset(plan_.bytes, plan_.channels, c) + part_offset(share, heads_, h) +
                           part_offset(part, loops, l),
                       part_size(part, loops, l));
  }
  std::uint64_t loops = 1;

 private:
  const Plan& plan_;
  int heads_;
};

}  // namespace fabricsim::collectives
