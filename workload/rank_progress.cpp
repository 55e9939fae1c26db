#include "workload/rank_progress.hpp"

#include <stdexcept>
#include <string>

namespace fabricsim::workload {

void RankProgress::init(const RankDag& rd, std::uint32_t r, bool ready_first) {
  ready_order = ready_first;
  if (!rd.issue_key.empty() && rd.issue_key.size() != rd.ops.size()) {
    throw std::invalid_argument("training DAG: rank " + std::to_string(r) +
                                " has an issue key for some ops only");
  }
  issue_key = rd.issue_key.empty() ? nullptr : &rd.issue_key;
  const std::size_t n = rd.ops.size();
  waiting.assign(n, 0);
  dependents_begin.assign(n + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const Op& op = rd.ops[i];
    waiting[i] = op.deps_end - op.deps_begin;
    for (std::uint32_t k = op.deps_begin; k < op.deps_end; ++k) {
      if (rd.deps[k] >= i) {
        throw std::invalid_argument("training DAG: rank " + std::to_string(r) + " op " +
                                    std::to_string(i) + " depends on a later op");
      }
      ++dependents_begin[rd.deps[k] + 1];
    }
    if (op.kind != OpKind::Recv) stream_ops[static_cast<int>(op.stream)].push_back(i);
  }
  for (std::size_t i = 0; i < n; ++i) dependents_begin[i + 1] += dependents_begin[i];
  dependents.resize(dependents_begin[n]);
  std::vector<std::uint32_t> fill(dependents_begin.begin(), dependents_begin.end() - 1);
  for (std::uint32_t i = 0; i < n; ++i) {
    const Op& op = rd.ops[i];
    for (std::uint32_t k = op.deps_begin; k < op.deps_end; ++k) dependents[fill[rd.deps[k]]++] = i;
  }
}

void throw_stalled(const Dag& dag, std::uint32_t r, const std::vector<OpTiming>& ops) {
  const RankDag& rd = dag.ranks[r];
  for (std::uint32_t i = 0; i < rd.ops.size(); ++i) {
    if (ops[i].end >= 0) continue;
    const Op& op = rd.ops[i];
    throw std::runtime_error(
        "training DAG stalls: rank " + std::to_string(r) + " never finishes op " +
        std::to_string(i) + " (" + kOpNames[op.name] + ", micro-batch " +
        std::to_string(op.micro_batch) + ", layer " + std::to_string(op.layer) + ")" +
        (ops[i].start >= 0 ? ": it started and waits for its peers" : ": it never became ready"));
  }
  throw std::logic_error("training DAG: rank " + std::to_string(r) + " stalled");
}

}  // namespace fabricsim::workload
