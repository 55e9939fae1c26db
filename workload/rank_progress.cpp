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

std::vector<bool> runs_straight_on(const RankDag& rd, const RankProgress& st) {
  const std::size_t n = rd.ops.size();
  std::vector<bool> next(n, false);
  if (st.ready_order) return next;
  // Each op's place in its stream.
  std::vector<std::uint32_t> pos(n, 0);
  for (const std::vector<std::uint32_t>& ops : st.stream_ops) {
    for (std::uint32_t k = 0; k < ops.size(); ++k) pos[ops[k]] = k;
  }
  for (const std::vector<std::uint32_t>& ops : st.stream_ops) {
    for (std::size_t k = 0; k + 1 < ops.size(); ++k) {
      const std::uint32_t i = ops[k], j = ops[k + 1];
      const Op& a = rd.ops[i];
      const Op& b = rd.ops[j];
      if (a.kind != OpKind::Compute || b.kind != OpKind::Compute) continue;
      bool only_j = true;
      for (std::uint32_t d = st.dependents_begin[i]; d < st.dependents_begin[i + 1]; ++d) {
        only_j = only_j && st.dependents[d] == j;
      }
      if (!only_j) continue;
      const auto done_by_then = [&](std::uint32_t d) {
        if (d == i) return true;
        const Op& dep = rd.ops[d];
        if (dep.kind != OpKind::Recv && dep.stream == a.stream && pos[d] < pos[i]) return true;
        for (std::uint32_t x = a.deps_begin; x < a.deps_end; ++x) {
          if (rd.deps[x] == d) return true;
        }
        return false;
      };
      bool ready = true;
      for (std::uint32_t x = b.deps_begin; x < b.deps_end && ready; ++x) {
        ready = done_by_then(rd.deps[x]);
      }
      next[i] = ready;
    }
  }
  return next;
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
