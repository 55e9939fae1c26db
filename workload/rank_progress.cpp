#include "workload/rank_progress.hpp"

#include <boost/container_hash/hash.hpp>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "core/parallel.hpp"

namespace fabricsim::workload {

namespace {

// Two ranks' DAGs alike in what RankShape reads (the ops' kinds, streams and dependencies)
// and in their kernels, so that an executor may read either's compute ops.
bool same_structure(const RankDag& a, const RankDag& b) {
  if (a.ops.size() != b.ops.size()) return false;
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    const Op& x = a.ops[i];
    const Op& y = b.ops[i];
    if (x.kind != y.kind || x.stream != y.stream ||
        (x.kind == OpKind::Compute && x.item != y.item) ||
        !std::equal(a.deps.begin() + x.deps_begin, a.deps.begin() + x.deps_end,
                    b.deps.begin() + y.deps_begin, b.deps.begin() + y.deps_end)) {
      return false;
    }
  }
  return true;
}

std::size_t structure_hash(const RankDag& rd) {
  std::size_t h = rd.ops.size();
  for (const Op& op : rd.ops) {
    boost::hash_combine(h,
                        (static_cast<unsigned>(op.kind) << 8) | static_cast<unsigned>(op.stream));
    boost::hash_combine(h, op.deps_end - op.deps_begin);
    if (op.kind == OpKind::Compute) boost::hash_combine(h, op.item);
    for (std::uint32_t k = op.deps_begin; k < op.deps_end; ++k) boost::hash_combine(h, rd.deps[k]);
  }
  return h;
}

}  // namespace

RankShape rank_shape(const RankDag& rd, std::uint32_t r) {
  RankShape s;
  const std::size_t n = rd.ops.size();
  s.dep_counts.assign(n, 0);
  s.dependents_begin.assign(n + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const Op& op = rd.ops[i];
    s.dep_counts[i] = op.deps_end - op.deps_begin;
    for (std::uint32_t k = op.deps_begin; k < op.deps_end; ++k) {
      if (rd.deps[k] >= i) {
        throw std::invalid_argument("training DAG: rank " + std::to_string(r) + " op " +
                                    std::to_string(i) + " depends on a later op");
      }
      ++s.dependents_begin[rd.deps[k] + 1];
    }
    if (op.kind != OpKind::Recv) s.stream_ops[static_cast<int>(op.stream)].push_back(i);
  }
  for (std::size_t i = 0; i < n; ++i) s.dependents_begin[i + 1] += s.dependents_begin[i];
  s.dependents.resize(s.dependents_begin[n]);
  std::vector<std::uint32_t> fill(s.dependents_begin.begin(), s.dependents_begin.end() - 1);
  for (std::uint32_t i = 0; i < n; ++i) {
    const Op& op = rd.ops[i];
    for (std::uint32_t k = op.deps_begin; k < op.deps_end; ++k) {
      s.dependents[fill[rd.deps[k]]++] = i;
    }
  }
  return s;
}

RankShapes rank_shapes(const Dag& dag, unsigned threads) {
  const std::size_t n = dag.ranks.size();
  if (!dag.same_structure_as.empty() && dag.same_structure_as.size() != n) {
    throw std::invalid_argument("training DAG: same_structure_as needs one entry per rank");
  }
  // A rank the DAG says is alike an earlier one takes that one's shape unhashed and unchecked.
  const auto known = [&](std::size_t r) {
    return !dag.same_structure_as.empty() && dag.same_structure_as[r] != r;
  };
  for (std::size_t r = 0; r < n; ++r) {
    if (known(r) && dag.same_structure_as[r] > r) {
      throw std::invalid_argument("training DAG: rank " + std::to_string(r) +
                                  " is said to be alike a later rank");
    }
  }
  std::vector<std::size_t> hash(n);
  core::parallel_for(threads, n, [&](std::size_t r) {
    if (!known(r)) hash[r] = structure_hash(dag.ranks[r]);
  });
  // Each rank takes the shape of the first rank with its hash, checked below; a rank whose
  // hash collides with another structure's gets its own shape after the check.
  RankShapes out;
  out.of_rank.resize(n);
  std::unordered_map<std::size_t, std::uint32_t> by_hash;
  for (std::uint32_t r = 0; r < n; ++r) {
    if (known(r)) continue;
    const auto [it, fresh] =
        by_hash.try_emplace(hash[r], static_cast<std::uint32_t>(out.first_rank.size()));
    if (fresh) out.first_rank.push_back(r);
    out.of_rank[r] = it->second;
  }
  std::vector<char> alike(n);
  core::parallel_for(threads, n, [&](std::size_t r) {
    if (known(r)) return;
    const std::uint32_t first = out.first_rank[out.of_rank[r]];
    alike[r] = first == r || same_structure(dag.ranks[first], dag.ranks[r]);
  });
  for (std::uint32_t r = 0; r < n; ++r) {
    if (known(r)) {
      out.of_rank[r] = out.of_rank[dag.same_structure_as[r]];
      continue;
    }
    if (alike[r]) continue;
    const auto k = std::find_if(out.first_rank.begin(), out.first_rank.end(), [&](std::uint32_t f) {
      return f < r && same_structure(dag.ranks[f], dag.ranks[r]);
    });
    out.of_rank[r] = static_cast<std::uint32_t>(k - out.first_rank.begin());
    if (k == out.first_rank.end()) out.first_rank.push_back(r);
  }
  out.shapes.resize(out.first_rank.size());
  core::parallel_for(threads, out.shapes.size(), [&](std::size_t k) {
    out.shapes[k] = rank_shape(dag.ranks[out.first_rank[k]], out.first_rank[k]);
  });
  return out;
}

void RankProgress::init(const RankDag& rd, const RankShape& s, std::uint32_t r, bool ready_first) {
  ready_order = ready_first;
  if (!rd.issue_key.empty() && rd.issue_key.size() != rd.ops.size()) {
    throw std::invalid_argument("training DAG: rank " + std::to_string(r) +
                                " has an issue key for some ops only");
  }
  issue_key = rd.issue_key.empty() ? nullptr : &rd.issue_key;
  shape = &s;
  waiting = s.dep_counts;
}

std::vector<bool> runs_straight_on(const RankDag& rd, const RankShape& st, bool ready_order) {
  const std::size_t n = rd.ops.size();
  std::vector<bool> next(n, false);
  if (ready_order) return next;
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

std::vector<bool> runs_into_comm(const RankDag& rd, const RankShape& st, bool ready_order) {
  const std::size_t n = rd.ops.size();
  std::vector<bool> into(n, false);
  if (ready_order) return into;
  for (const std::vector<std::uint32_t>& ops : st.stream_ops) {
    for (std::size_t k = 0; k < ops.size(); ++k) {
      const std::uint32_t i = ops[k];
      if (rd.ops[i].kind != OpKind::Compute ||
          st.dependents_begin[i + 1] - st.dependents_begin[i] != 1) {
        continue;
      }
      const std::uint32_t j = st.dependents[st.dependents_begin[i]];
      const OpKind kind = rd.ops[j].kind;
      if (kind != OpKind::Collective && kind != OpKind::Send) continue;
      if (k + 1 == ops.size() || ops[k + 1] == j) {
        into[i] = true;
        continue;
      }
      const Op& next = rd.ops[ops[k + 1]];
      into[i] = std::find(rd.deps.begin() + next.deps_begin, rd.deps.begin() + next.deps_end, j) !=
                rd.deps.begin() + next.deps_end;
    }
  }
  return into;
}

void throw_cut_off(core::Time end) {
  throw std::runtime_error(
      "the training iteration did not finish by the run's end "
      "(simulation.end = " +
      core::format_time(end) + "): raise it, or leave it out");
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
