#pragma once
// Runs a training DAG (training.hpp) given how long each kernel and each communication takes:
// compute kernels one at a time on each rank's compute stream, communications on their
// streams in list order, a collective once every member has reached it, a point-to-point
// transfer from the moment its sender issues it (the receiver waits for the data if it asks
// earlier). Deterministic: ties are broken by (time, rank, op).
#include <array>
#include <cstdint>
#include <vector>

#include "core/time.hpp"
#include "workload/training.hpp"

namespace fabricsim::workload {

struct OpTiming {
  core::Time start = 0;
  core::Time end = 0;
};

// Where a rank's iteration went: compute + exposed communication + bubble = iteration time.
struct RankBreakdown {
  core::Time compute = 0;  // compute stream busy
  // Compute stream idle while a communication it needs is moving data, per stream.
  std::array<core::Time, static_cast<int>(Stream::Count)> exposed{};
  // Compute stream idle for any other reason: waiting for another rank to reach a
  // collective or to send (pipeline bubble, imbalance), or done before the slowest rank.
  core::Time bubble = 0;
  core::Time exposed_total() const {
    core::Time t = 0;
    for (const core::Time e : exposed) t += e;
    return t;
  }
};

struct TrainingTimeline {
  core::Time iteration = 0;                // the last op's end
  std::vector<std::vector<OpTiming>> ops;  // per rank, per op
  std::vector<RankBreakdown> ranks;
};

// Fills `ranks` (the breakdown) and `iteration` from the op timings `ops` of every rank: what
// an executor calls when its run is over. `threads` account for ranks side by side (oneTBB);
// the result is the same for any number. Returns, per communication, when its data started to
// move: a collective's when its last member reached it, a transfer's at its send.
std::vector<core::Time> account(const Dag& dag, TrainingTimeline& timeline, unsigned threads = 1);

// kernel_time[i] is Dag::kernels[i]'s duration, comm_time[i] Dag::comms[i]'s. Throws
// std::runtime_error naming a stuck op if the DAG cannot finish (a cycle between ranks).
// `slowdown`: per rank, a factor on its kernels' times (empty: none).
TrainingTimeline execute_training(const Dag& dag, const std::vector<core::Time>& kernel_time,
                                  const std::vector<core::Time>& comm_time,
                                  const std::vector<double>& slowdown = {});

}  // namespace fabricsim::workload
