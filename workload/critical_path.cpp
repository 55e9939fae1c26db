#include "workload/critical_path.hpp"

#include <algorithm>
#include <numeric>

namespace fabricsim::workload {
namespace {

constexpr std::uint32_t kNone = ~0u;

struct OpRef {
  std::uint32_t rank = kNone, op = kNone;
};

}  // namespace

CriticalPath critical_path(const Dag& dag, const TrainingTimeline& t) {
  constexpr int kStreamCount = static_cast<int>(Stream::Count);
  // Each op's predecessor on its stream. In list order it depends on the rank's structure
  // only, so ranks the DAG says are alike (Dag::same_structure_as) share their first's.
  std::vector<std::vector<std::uint32_t>> own_prev(dag.ranks.size());
  std::vector<const std::vector<std::uint32_t>*> prev(dag.ranks.size(), nullptr);
  OpRef last;
  core::Time last_end = -1;
  std::size_t ops = 0;
  for (std::uint32_t r = 0; r < dag.ranks.size(); ++r) {
    const RankDag& rd = dag.ranks[r];
    if (!rd.simulated) continue;
    ops += rd.ops.size();
    for (std::uint32_t i = 0; i < rd.ops.size(); ++i) {
      if (t.ops[r][i].end > last_end) last_end = t.ops[r][i].end, last = {r, i};
    }
    const std::uint32_t like = dag.same_structure_as.empty() ? r : dag.same_structure_as[r];
    if (!dag.ready_order && like != r && prev[like]) {
      prev[r] = prev[like];
      continue;
    }
    std::array<std::uint32_t, kStreamCount> tail;
    tail.fill(kNone);
    std::vector<std::uint32_t>& p = own_prev[r];
    p.assign(rd.ops.size(), kNone);
    // A stream's ops in the order they ran: list order, unless Dag::ready_order.
    std::vector<std::uint32_t> order(rd.ops.size());
    std::iota(order.begin(), order.end(), 0u);
    if (dag.ready_order) {
      std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return t.ops[r][a].start < t.ops[r][b].start;
      });
    }
    for (const std::uint32_t i : order) {
      const Op& op = rd.ops[i];
      if (op.kind != OpKind::Recv) {
        p[i] = tail[static_cast<int>(op.stream)];
        tail[static_cast<int>(op.stream)] = i;
      }
    }
    prev[r] = &p;
  }
  // Every communication's members, by communication (members_begin[c] .. members_begin[c + 1]).
  std::vector<std::uint32_t> members_begin(dag.comms.size() + 1, 0);
  for (const RankDag& rd : dag.ranks) {
    if (!rd.simulated) continue;
    for (const Op& op : rd.ops) {
      if (op.kind != OpKind::Compute) ++members_begin[op.item + 1];
    }
  }
  for (std::size_t c = 0; c < dag.comms.size(); ++c) members_begin[c + 1] += members_begin[c];
  std::vector<OpRef> members(members_begin.back());
  {
    std::vector<std::uint32_t> fill(members_begin.begin(), members_begin.end() - 1);
    for (std::uint32_t r = 0; r < dag.ranks.size(); ++r) {
      const RankDag& rd = dag.ranks[r];
      if (!rd.simulated) continue;
      for (std::uint32_t i = 0; i < rd.ops.size(); ++i) {
        if (rd.ops[i].kind != OpKind::Compute) members[fill[rd.ops[i].item]++] = {r, i};
      }
    }
  }
  CriticalPath out;
  if (last.rank == kNone) return out;
  const auto timing = [&](OpRef x) -> const OpTiming& { return t.ops[x.rank][x.op]; };
  std::vector<PathStep> rev;
  core::Time boundary = t.iteration;
  // Every op enters the chain at most twice (once through a peer), so this bounds the walk.
  for (std::size_t guard = 0; guard <= 2 * ops; ++guard) {
    const Op& op = dag.ranks[last.rank].ops[last.op];
    const OpTiming& tm = timing(last);
    // A communication waits for the member that came last (a receive: for its send).
    if (op.kind == OpKind::Collective || op.kind == OpKind::Recv) {
      OpRef late;
      core::Time late_start = tm.start;
      for (std::uint32_t x = members_begin[op.item]; x < members_begin[op.item + 1]; ++x) {
        const OpRef& m = members[x];
        const OpKind k = dag.ranks[m.rank].ops[m.op].kind;
        if (op.kind == OpKind::Recv && k != OpKind::Send) continue;
        if (timing(m).start > late_start) late_start = timing(m).start, late = m;
      }
      if (late.rank != kNone) {
        if (late_start < boundary) {
          rev.push_back({last.rank, last.op, late_start, std::min(tm.end, boundary)});
          boundary = late_start;
        }
        last = late;
        continue;
      }
    }
    if (tm.start < std::min(tm.end, boundary)) {
      rev.push_back({last.rank, last.op, tm.start, std::min(tm.end, boundary)});
    }
    boundary = std::min(boundary, tm.start);
    // What held its start: the dependency or stream predecessor that ended last.
    OpRef best;
    core::Time best_end = -1;
    const auto consider = [&](std::uint32_t i) {
      if (i != kNone && t.ops[last.rank][i].end > best_end) {
        best_end = t.ops[last.rank][i].end;
        best = {last.rank, i};
      }
    };
    const RankDag& rd = dag.ranks[last.rank];
    for (std::uint32_t k = op.deps_begin; k < op.deps_end; ++k) consider(rd.deps[k]);
    consider((*prev[last.rank])[last.op]);
    if (best.rank == kNone) break;
    if (best_end < boundary) out.idle += boundary - best_end;
    boundary = std::min(boundary, best_end);
    last = best;
  }
  out.steps.assign(rev.rbegin(), rev.rend());
  std::vector<bool> seen(dag.ranks.size(), false);
  for (const PathStep& s : out.steps) {
    const Op& op = dag.ranks[s.rank].ops[s.op];
    const core::Time d = s.to - s.from;
    if (op.kind == OpKind::Compute) {
      out.compute[static_cast<int>(op.phase)] += d;
    } else {
      out.comm[static_cast<int>(op.stream)] += d;
    }
    if (!seen[s.rank]) {
      seen[s.rank] = true;
      out.ranks.push_back(s.rank);
    }
  }
  return out;
}

}  // namespace fabricsim::workload
