#pragma once
// Why an iteration took as long as it did: the chain of operations, back from the one that
// ended last, each held up by the one before it. An op waits for whichever of these ended last:
// its dependencies, or the op ahead of it on its stream. A communication also waits for its
// peers: when another member reached a collective later (or a transfer's send started after its
// receive was posted), the chain continues on that rank.
#include <array>
#include <cstdint>
#include <vector>

#include "workload/training.hpp"
#include "workload/training_exec.hpp"

namespace fabricsim::workload {

struct PathStep {
  std::uint32_t rank = 0;
  std::uint32_t op = 0;
  core::Time from = 0;  // when this op became the chain's (its start, or a later peer's)
  core::Time to = 0;    // when the next op of the chain could go (its end, at most)
};

struct CriticalPath {
  std::vector<PathStep> steps;  // in time order
  // Time on the path: compute by phase, communication by stream, and gaps where the chain's
  // op started after what held it up had ended (none in a consistent timeline).
  static constexpr int kPhases = static_cast<int>(Phase::Optimizer) + 1;
  std::array<core::Time, kPhases> compute{};  // by Phase
  std::array<core::Time, static_cast<int>(Stream::Count)> comm{};
  core::Time idle = 0;
  std::vector<std::uint32_t> ranks;  // the ranks the path visits, in order of first visit
};

CriticalPath critical_path(const Dag& dag, const TrainingTimeline& timeline);

}  // namespace fabricsim::workload
