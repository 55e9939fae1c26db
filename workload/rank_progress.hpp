#pragma once
// Where one rank stands in its operation DAG (training.hpp) while an executor runs it: the
// dependencies each op still waits for, the ops each one releases, and its streams, which
// behave as CUDA streams do (in list order within one, concurrent across them). A receive is
// on no stream: it is posted when its dependencies are done.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/time.hpp"
#include "workload/training.hpp"
#include "workload/training_exec.hpp"

namespace fabricsim::workload {

inline constexpr int kStreams = static_cast<int>(Stream::Count);

// What a rank's DAG means for walking it: how many dependencies each op waits for, the ops each
// one releases, and each stream's ops in list order. It depends on the ops' kinds, streams and
// dependencies only; the ranks whose DAGs are alike in those and in their kernels (in a
// Megatron iteration, every rank of a pipeline stage: 128 of the 1,024 ranks of GPT-3 175B at
// tp 8, dp 16) share one, and an executor may read their compute ops from the first of them.
struct RankShape {
  std::vector<std::uint32_t> dep_counts;  // per op: how many dependencies it waits for
  std::vector<std::uint32_t> dependents_begin;
  std::vector<std::uint32_t> dependents;
  std::array<std::vector<std::uint32_t>, kStreams> stream_ops;
};

// Throws std::invalid_argument naming rank r for an op that depends on a later one.
RankShape rank_shape(const RankDag& rd, std::uint32_t r);

// One shape per distinct rank structure (and kernels), numbered in order of the first rank that
// has it (a structure whose hash another one had comes after all of those).
struct RankShapes {
  std::vector<RankShape> shapes;
  std::vector<std::uint32_t> of_rank;     // per rank: its shape
  std::vector<std::uint32_t> first_rank;  // per shape: the first rank that has it
};

// `threads` compare and build them (oneTBB); the result is the same for any number. A rank
// that Dag::same_structure_as says is alike an earlier one takes its shape without a check.
// Throws std::invalid_argument when same_structure_as names a later rank or is not one per rank.
RankShapes rank_shapes(const Dag& dag, unsigned threads);

// Where one rank stands while an executor runs it: the dependencies each op still waits for
// and its streams (its RankShape, shared, says the rest).
struct RankProgress {
  const RankShape* shape = nullptr;
  std::vector<std::uint32_t> waiting;  // per op: dependencies not yet done
  std::array<std::uint32_t, kStreams> head{};
  std::array<bool, kStreams> busy{};
  std::uint32_t done = 0;
  // Dag::ready_order: a free stream takes the op of lowest issue key whose dependencies are
  // done (per stream, a heap of those), not the next in list order.
  bool ready_order = false;
  const std::vector<std::uint64_t>* issue_key = nullptr;  // RankDag::issue_key; null: index
  std::array<std::vector<std::uint32_t>, kStreams> ready;
  // Heap order: the op with the larger key sinks.
  bool later(std::uint32_t a, std::uint32_t b) const {
    return issue_key ? (*issue_key)[a] > (*issue_key)[b] : a > b;
  }

  // `s` is rank r's shape (rank_shapes); throws std::invalid_argument naming rank r for issue
  // keys given for some ops only.
  void init(const RankDag& rd, const RankShape& s, std::uint32_t r, bool ready_first = false);

  // Op i (on a stream: not a receive) has its dependencies done.
  void mark_ready(const Op& op, std::uint32_t i) {
    if (!ready_order) return;  // list order finds it at its stream's head
    std::vector<std::uint32_t>& h = ready[static_cast<int>(op.stream)];
    h.push_back(i);
    std::push_heap(h.begin(), h.end(),
                   [this](std::uint32_t a, std::uint32_t b) { return later(a, b); });
  }

  // The op stream s runs next when it may start now (its stream free, its dependencies done),
  // with the stream marked busy; -1 otherwise.
  std::int64_t take(int s) {
    if (ready_order) {
      std::vector<std::uint32_t>& h = ready[s];
      if (busy[s] || h.empty()) return -1;
      std::pop_heap(h.begin(), h.end(),
                    [this](std::uint32_t a, std::uint32_t b) { return later(a, b); });
      const std::uint32_t i = h.back();
      h.pop_back();
      busy[s] = true;
      return i;
    }
    const std::vector<std::uint32_t>& ops = shape->stream_ops[s];
    if (busy[s] || head[s] >= ops.size()) return -1;
    const std::uint32_t i = ops[head[s]];
    if (waiting[i] != 0) return -1;
    busy[s] = true;
    return i;
  }

  // An op ended: its stream moves on (the caller releases its dependents).
  void finish(const Op& op) {
    ++done;
    if (op.kind == OpKind::Recv) return;
    const int s = static_cast<int>(op.stream);
    busy[s] = false;
    ++head[s];
  }
};

// A compute op's duration on rank r: its kernel's time, times the rank's slowdown (a straggler;
// `slowdown` is empty when every rank runs at full speed).
inline core::Time kernel_duration(const std::vector<core::Time>& kernel_time,
                                  const std::vector<double>& slowdown, std::uint32_t r,
                                  std::uint32_t kernel) {
  const core::Time t = kernel_time[kernel];
  if (slowdown.empty() || slowdown[r] == 1.0) return t;
  return static_cast<core::Time>(std::llround(static_cast<double>(t) * slowdown[r]));
}

// Per op of a rank: whether it is a compute op whose stream's next op (list order) is a compute
// op that starts the moment it ends, whatever the rest of the run does: everything that next op
// waits for is done by then (this op, this op's dependencies, the stream's earlier ops) and
// nothing but it waits for this op. An executor may run such a string of kernels as one event,
// every op's start and end coming out as they would with one event each. None in ready order
// (Dag::ready_order), where a stream takes whichever ready op has the lowest issue key.
std::vector<bool> runs_straight_on(const RankDag& rd, const RankShape& shape, bool ready_order);

// Per op of a rank: whether it is a compute op that only one communication op j (a collective
// or a send) waits for, where j's stream takes it when it is free and heads it, and the op's own
// stream has nothing that may start when the op ends (its next op is j, waits for j, or there is
// none). If, when the op starts, j waits for nothing else and heads its free stream, j starts
// the moment the op ends, whatever the rest of the run does, and nothing else happens on the
// rank then: an executor may run the op's end and j's start in the event that begins j's
// communication. None in ready order (Dag::ready_order).
std::vector<bool> runs_into_comm(const RankDag& rd, const RankShape& shape, bool ready_order);

// Throws std::runtime_error naming the first op of rank r that never ended (`ops`: its timings,
// -1 for what never started or ended): a DAG that cannot finish, e.g. a cycle between ranks.
[[noreturn]] void throw_stalled(const Dag& dag, std::uint32_t r, const std::vector<OpTiming>& ops);

// Throws std::runtime_error: the iteration did not finish by `end` (simulation.end).
[[noreturn]] void throw_cut_off(core::Time end);

}  // namespace fabricsim::workload
