#include "workload/training_exec.hpp"

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace fabricsim::workload {
namespace {

constexpr int kStreams = static_cast<int>(Stream::Count);

struct Done {
  core::Time time;
  std::uint32_t rank;
  std::uint32_t op;
  bool operator>(const Done& o) const {
    if (time != o.time) return time > o.time;
    if (rank != o.rank) return rank > o.rank;
    return op > o.op;
  }
};

struct RankState {
  std::vector<std::uint32_t> waiting;  // per op: dependencies not yet done
  std::vector<std::uint32_t> dependents_begin;
  std::vector<std::uint32_t> dependents;
  std::array<std::vector<std::uint32_t>, kStreams> stream_ops;
  std::array<std::uint32_t, kStreams> head{};
  std::array<bool, kStreams> busy{};
  std::uint32_t done = 0;
};

class Executor {
 public:
  Executor(const Dag& dag, const std::vector<core::Time>& kernel_time,
           const std::vector<core::Time>& comm_time)
      : dag_(dag), kernel_time_(kernel_time), comm_time_(comm_time) {
    if (kernel_time.size() != dag.kernels.size() || comm_time.size() != dag.comms.size()) {
      throw std::invalid_argument("execute_training: one duration per kernel and per comm needed");
    }
    const std::size_t n = dag.ranks.size();
    state_.resize(n);
    out_.ops.resize(n);
    out_.ranks.resize(n);
    arrived_.assign(dag.comms.size(), 0);
    members_.resize(dag.comms.size());
    transfer_start_.assign(dag.comms.size(), -1);
    recv_waiting_.assign(dag.comms.size(), kNone);
    for (std::size_t r = 0; r < n; ++r) init_rank(static_cast<std::uint32_t>(r));
  }

  TrainingTimeline run() {
    for (std::uint32_t r = 0; r < state_.size(); ++r) {
      for (std::uint32_t i = 0; i < dag_.ranks[r].ops.size(); ++i) {
        if (state_[r].waiting[i] == 0) became_ready(r, i, 0);
      }
    }
    while (!queue_.empty()) {
      const Done d = queue_.top();
      queue_.pop();
      finish(d.rank, d.op, d.time);
    }
    for (std::uint32_t r = 0; r < state_.size(); ++r) {
      if (state_[r].done != dag_.ranks[r].ops.size()) stuck(r);
    }
    for (std::uint32_t r = 0; r < state_.size(); ++r) {
      if (dag_.ranks[r].simulated) breakdown(r);
    }
    return std::move(out_);
  }

 private:
  static constexpr std::uint32_t kNone = ~0u;

  void init_rank(std::uint32_t r) {
    const RankDag& rd = dag_.ranks[r];
    RankState& st = state_[r];
    const std::size_t n = rd.ops.size();
    st.waiting.assign(n, 0);
    st.dependents_begin.assign(n + 1, 0);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Op& op = rd.ops[i];
      st.waiting[i] = op.deps_end - op.deps_begin;
      for (std::uint32_t k = op.deps_begin; k < op.deps_end; ++k) {
        if (rd.deps[k] >= i) {
          throw std::invalid_argument("training DAG: rank " + std::to_string(r) + " op " +
                                      std::to_string(i) + " depends on a later op");
        }
        ++st.dependents_begin[rd.deps[k] + 1];
      }
      if (op.kind != OpKind::Recv) st.stream_ops[static_cast<int>(op.stream)].push_back(i);
    }
    for (std::size_t i = 0; i < n; ++i) st.dependents_begin[i + 1] += st.dependents_begin[i];
    st.dependents.resize(st.dependents_begin[n]);
    std::vector<std::uint32_t> fill(st.dependents_begin.begin(), st.dependents_begin.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i) {
      const Op& op = rd.ops[i];
      for (std::uint32_t k = op.deps_begin; k < op.deps_end; ++k) {
        st.dependents[fill[rd.deps[k]]++] = i;
      }
    }
    out_.ops[r].assign(n, OpTiming{-1, -1});
  }

  // Dependencies done at `now`: a receive is posted; anything else starts when it heads its
  // stream and the stream is free.
  void became_ready(std::uint32_t r, std::uint32_t i, core::Time now) {
    const Op& op = dag_.ranks[r].ops[i];
    if (op.kind == OpKind::Recv) {
      out_.ops[r][i].start = now;
      const core::Time sent = transfer_start_[op.item];
      if (sent >= 0) {
        push(r, i, std::max(now, sent + comm_time_[op.item]));
      } else {
        recv_waiting_[op.item] = r;
        members_[op.item].push_back(i);
      }
      return;
    }
    try_stream(r, static_cast<int>(op.stream), now);
  }

  void try_stream(std::uint32_t r, int s, core::Time now) {
    RankState& st = state_[r];
    if (st.busy[s] || st.head[s] >= st.stream_ops[s].size()) return;
    const std::uint32_t i = st.stream_ops[s][st.head[s]];
    if (st.waiting[i] != 0) return;
    st.busy[s] = true;
    start(r, i, now);
  }

  void start(std::uint32_t r, std::uint32_t i, core::Time now) {
    const Op& op = dag_.ranks[r].ops[i];
    out_.ops[r][i].start = now;
    switch (op.kind) {
      case OpKind::Compute:
        push(r, i, core::later(now, kernel_time_[op.item], "a compute op"));
        return;
      case OpKind::Send: {
        transfer_start_[op.item] = now;
        const core::Time arrive = core::later(now, comm_time_[op.item], "a pipeline send");
        push(r, i, arrive);
        if (recv_waiting_[op.item] != kNone) {
          const std::uint32_t rr = recv_waiting_[op.item];
          const std::uint32_t ri = members_[op.item].front();
          push(rr, ri, std::max(out_.ops[rr][ri].start, arrive));
        }
        return;
      }
      case OpKind::Collective: {
        const Comm& c = dag_.comms[op.item];
        const std::vector<int>& group = dag_.groups[c.group];
        members_[op.item].push_back(r);
        members_[op.item].push_back(i);
        if (++arrived_[op.item] < simulated_members(group)) return;
        transfer_start_[op.item] = now;
        const core::Time end = core::later(now, comm_time_[op.item], "a collective");
        const std::vector<std::uint32_t>& m = members_[op.item];
        for (std::size_t k = 0; k < m.size(); k += 2) push(m[k], m[k + 1], end);
        std::vector<std::uint32_t>().swap(members_[op.item]);
        return;
      }
      case OpKind::Recv:
        return;  // handled in became_ready
    }
  }

  std::uint32_t simulated_members(const std::vector<int>& group) const {
    std::uint32_t n = 0;
    for (const int g : group) n += dag_.ranks[g].simulated ? 1 : 0;
    return n;
  }

  void push(std::uint32_t r, std::uint32_t i, core::Time t) { queue_.push(Done{t, r, i}); }

  void finish(std::uint32_t r, std::uint32_t i, core::Time now) {
    const RankDag& rd = dag_.ranks[r];
    RankState& st = state_[r];
    const Op& op = rd.ops[i];
    out_.ops[r][i].end = now;
    out_.iteration = std::max(out_.iteration, now);
    ++st.done;
    if (op.kind != OpKind::Recv) {
      const int s = static_cast<int>(op.stream);
      st.busy[s] = false;
      ++st.head[s];
    }
    for (std::uint32_t k = st.dependents_begin[i]; k < st.dependents_begin[i + 1]; ++k) {
      const std::uint32_t d = st.dependents[k];
      if (--st.waiting[d] == 0) became_ready(r, d, now);
    }
    if (op.kind != OpKind::Recv) try_stream(r, static_cast<int>(op.stream), now);
  }

  [[noreturn]] void stuck(std::uint32_t r) {
    const RankDag& rd = dag_.ranks[r];
    for (std::uint32_t i = 0; i < rd.ops.size(); ++i) {
      if (out_.ops[r][i].end >= 0) continue;
      const Op& op = rd.ops[i];
      throw std::runtime_error(
          "training DAG stalls: rank " + std::to_string(r) + " never finishes op " +
          std::to_string(i) + " (" + kOpNames[op.name] + ", micro-batch " +
          std::to_string(op.micro_batch) + ", layer " + std::to_string(op.layer) + ")" +
          (out_.ops[r][i].start >= 0 ? ": it started and waits for its peers"
                                     : ": it never became ready"));
    }
    throw std::logic_error("training DAG: rank " + std::to_string(r) + " stalled");
  }

  // A gap in the compute stream before op i is charged to the dependency that ended last: if
  // that is a communication, the part of the gap while it moved data is exposed
  // communication, the part before (waiting for the peers or the sender) is bubble.
  void breakdown(std::uint32_t r) {
    const RankDag& rd = dag_.ranks[r];
    const std::vector<OpTiming>& t = out_.ops[r];
    RankBreakdown& b = out_.ranks[r];
    core::Time prev_end = 0;
    // When a communication's data moves: a collective from the moment all members are
    // there, a transfer from its start.
    const auto moving_from = [&](std::uint32_t i) {
      return std::max(transfer_start_[rd.ops[i].item], t[i].start);
    };
    // Time within [a, b) during which stream s moved data. Its ops run one after another, so
    // a communication queued behind others (a gradient bucket, say) exposes theirs too. Gaps
    // come in time order, so each stream's cursor only moves forward.
    std::array<std::size_t, kStreams> cursor{};
    const auto stream_moving = [&](int s, core::Time a, core::Time b_end) {
      const std::vector<std::uint32_t>& ops = state_[r].stream_ops[s];
      std::size_t& c = cursor[s];
      while (c < ops.size() && t[ops[c]].end <= a) ++c;
      core::Time sum = 0;
      for (std::size_t k = c; k < ops.size() && t[ops[k]].start < b_end; ++k) {
        sum += std::max<core::Time>(
            0, std::min(t[ops[k]].end, b_end) - std::max(moving_from(ops[k]), a));
      }
      return sum;
    };
    const auto charge = [&](core::Time gap, std::uint32_t dep) {
      if (gap <= 0) return;
      const Op& d = rd.ops[dep];
      if (d.kind == OpKind::Compute) {
        b.bubble += gap;
        return;
      }
      const core::Time moving = d.kind == OpKind::Recv ? t[dep].end - moving_from(dep)
                                                       : stream_moving(static_cast<int>(d.stream),
                                                                       prev_end, prev_end + gap);
      const core::Time exposed = std::clamp<core::Time>(moving, 0, gap);
      b.exposed[static_cast<int>(d.stream)] += exposed;
      b.bubble += gap - exposed;
    };
    std::uint32_t last_op = kNone;
    for (const std::uint32_t i : state_[r].stream_ops[static_cast<int>(Stream::Compute)]) {
      const Op& op = rd.ops[i];
      b.compute += t[i].end - t[i].start;
      const core::Time gap = t[i].start - prev_end;
      std::uint32_t binding = kNone;
      for (std::uint32_t k = op.deps_begin; k < op.deps_end; ++k) {
        const std::uint32_t d = rd.deps[k];
        if (binding == kNone || t[d].end > t[binding].end) binding = d;
      }
      if (binding == kNone) {
        b.bubble += std::max<core::Time>(gap, 0);
      } else {
        charge(gap, binding);
      }
      prev_end = t[i].end;
      last_op = i;
    }
    // After the last kernel: waiting for this rank's trailing communication, then for the
    // slowest rank.
    core::Time last_comm_end = prev_end;
    std::uint32_t last_comm = kNone;
    for (std::uint32_t i = 0; i < rd.ops.size(); ++i) {
      if (rd.ops[i].kind != OpKind::Compute && t[i].end > last_comm_end) {
        last_comm_end = t[i].end;
        last_comm = i;
      }
    }
    (void)last_op;
    if (last_comm != kNone) {
      charge(last_comm_end - prev_end, last_comm);
      prev_end = last_comm_end;
    }
    b.bubble += out_.iteration - prev_end;
  }

  const Dag& dag_;
  const std::vector<core::Time>& kernel_time_;
  const std::vector<core::Time>& comm_time_;
  std::vector<RankState> state_;
  std::vector<std::uint32_t> arrived_;
  // Collectives: (rank, op) of the members that arrived; receives: the waiting op.
  std::vector<std::vector<std::uint32_t>> members_;
  std::vector<core::Time> transfer_start_;
  std::vector<std::uint32_t> recv_waiting_;
  std::priority_queue<Done, std::vector<Done>, std::greater<>> queue_;
  TrainingTimeline out_;
};

}  // namespace

TrainingTimeline execute_training(const Dag& dag, const std::vector<core::Time>& kernel_time,
                                  const std::vector<core::Time>& comm_time) {
  return Executor(dag, kernel_time, comm_time).run();
}

}  // namespace fabricsim::workload
