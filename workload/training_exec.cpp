#include "workload/training_exec.hpp"

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "workload/rank_progress.hpp"

namespace fabricsim::workload {
namespace {

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

class Executor {
 public:
  Executor(const Dag& dag, const std::vector<core::Time>& kernel_time,
           const std::vector<core::Time>& comm_time, const std::vector<double>& slowdown)
      : dag_(dag), kernel_time_(kernel_time), comm_time_(comm_time), slowdown_(slowdown) {
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
    shapes_ = rank_shapes(dag, 1);
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
      if (state_[r].done != dag_.ranks[r].ops.size()) throw_stalled(dag_, r, out_.ops[r]);
    }
    account(dag_, out_);
    return std::move(out_);
  }

 private:
  static constexpr std::uint32_t kNone = ~0u;

  void init_rank(std::uint32_t r) {
    state_[r].init(dag_.ranks[r], shapes_.shapes[shapes_.of_rank[r]], r, dag_.ready_order);
    out_.ops[r].assign(dag_.ranks[r].ops.size(), OpTiming{-1, -1});
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
    state_[r].mark_ready(op, i);
    try_stream(r, static_cast<int>(op.stream), now);
  }

  void try_stream(std::uint32_t r, int s, core::Time now) {
    const std::int64_t i = state_[r].take(s);
    if (i >= 0) start(r, static_cast<std::uint32_t>(i), now);
  }

  void start(std::uint32_t r, std::uint32_t i, core::Time now) {
    const Op& op = dag_.ranks[r].ops[i];
    out_.ops[r][i].start = now;
    switch (op.kind) {
      case OpKind::Compute:
        push(
            r, i,
            core::later(now, kernel_duration(kernel_time_, slowdown_, r, op.item), "a compute op"));
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
    RankProgress& st = state_[r];
    const Op& op = dag_.ranks[r].ops[i];
    out_.ops[r][i].end = now;
    st.finish(op);
    const RankShape& sh = *st.shape;
    for (std::uint32_t k = sh.dependents_begin[i]; k < sh.dependents_begin[i + 1]; ++k) {
      const std::uint32_t d = sh.dependents[k];
      if (--st.waiting[d] == 0) became_ready(r, d, now);
    }
    if (op.kind != OpKind::Recv) try_stream(r, static_cast<int>(op.stream), now);
  }

  const Dag& dag_;
  const std::vector<core::Time>& kernel_time_;
  const std::vector<core::Time>& comm_time_;
  const std::vector<double>& slowdown_;
  RankShapes shapes_;
  std::vector<RankProgress> state_;
  std::vector<std::uint32_t> arrived_;
  // Collectives: (rank, op) of the members that arrived; receives: the waiting op.
  std::vector<std::vector<std::uint32_t>> members_;
  std::vector<core::Time> transfer_start_;
  std::vector<std::uint32_t> recv_waiting_;
  std::priority_queue<Done, std::vector<Done>, std::greater<>> queue_;
  TrainingTimeline out_;
};

// A gap in the compute stream before an op is charged to the dependency that ended last: if
// that is a communication, the part of the gap while it moved data is exposed communication,
// the part before (waiting for the peers or the sender) is bubble.
void account_rank(const Dag& dag, std::uint32_t r, const std::vector<core::Time>& transfer_start,
                  TrainingTimeline& out) {
  constexpr std::uint32_t kNone = ~0u;
  const RankDag& rd = dag.ranks[r];
  const std::vector<OpTiming>& t = out.ops[r];
  RankBreakdown& b = out.ranks[r];
  // Each stream's ops in the order they ran (list order, unless Dag::ready_order).
  std::array<std::vector<std::uint32_t>, kStreams> stream_ops;
  for (std::uint32_t i = 0; i < rd.ops.size(); ++i) {
    if (rd.ops[i].kind != OpKind::Recv) stream_ops[static_cast<int>(rd.ops[i].stream)].push_back(i);
  }
  if (dag.ready_order) {
    for (std::vector<std::uint32_t>& ops : stream_ops) {
      std::stable_sort(ops.begin(), ops.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return t[a].start < t[b].start; });
    }
  }
  core::Time prev_end = 0;
  // When a communication's data moves: a collective from the moment all members are there, a
  // transfer from its start.
  const auto moving_from = [&](std::uint32_t i) {
    return std::max(transfer_start[rd.ops[i].item], t[i].start);
  };
  // Time within [a, b) during which stream s moved data. Its ops run one after another, so a
  // communication queued behind others (a gradient bucket, say) exposes theirs too. Gaps come
  // in time order, so each stream's cursor only moves forward.
  std::array<std::size_t, kStreams> cursor{};
  const auto stream_moving = [&](int s, core::Time a, core::Time b_end) {
    const std::vector<std::uint32_t>& ops = stream_ops[s];
    std::size_t& c = cursor[s];
    while (c < ops.size() && t[ops[c]].end <= a) ++c;
    core::Time sum = 0;
    for (std::size_t k = c; k < ops.size() && t[ops[k]].start < b_end; ++k) {
      sum += std::max<core::Time>(
          0, std::min(t[ops[k]].end, b_end) - std::max(moving_from(ops[k]), a));
    }
    return sum;
  };
  // The dependency of op i that ended last (kNone: none).
  const auto binding_of = [&](std::uint32_t i) {
    std::uint32_t binding = kNone;
    for (std::uint32_t k = rd.ops[i].deps_begin; k < rd.ops[i].deps_end; ++k) {
      const std::uint32_t d = rd.deps[k];
      if (binding == kNone || t[d].end > t[binding].end) binding = d;
    }
    return binding;
  };
  const auto charge = [&](core::Time gap, std::uint32_t dep) {
    if (gap <= 0) return;
    // A host-side op (an imported trace's CPU stream) passes on what it waited for: a kernel
    // launched after a communication waits for that communication.
    while (rd.ops[dep].stream == Stream::Cpu) {
      dep = binding_of(dep);
      if (dep == kNone) {
        b.bubble += gap;
        return;
      }
    }
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
  for (const std::uint32_t i : stream_ops[static_cast<int>(Stream::Compute)]) {
    b.compute += t[i].end - t[i].start;
    const core::Time gap = t[i].start - prev_end;
    const std::uint32_t binding = binding_of(i);
    if (binding == kNone) {
      b.bubble += std::max<core::Time>(gap, 0);
    } else {
      charge(gap, binding);
    }
    prev_end = t[i].end;
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
  if (last_comm != kNone) {
    charge(last_comm_end - prev_end, last_comm);
    prev_end = last_comm_end;
  }
  b.bubble += out.iteration - prev_end;
}

}  // namespace

std::vector<core::Time> account(const Dag& dag, TrainingTimeline& out, unsigned threads) {
  // A collective's data moves once its last member has reached it; a transfer's from its send.
  std::vector<core::Time> transfer_start(dag.comms.size(), -1);
  out.iteration = 0;
  for (std::size_t r = 0; r < dag.ranks.size(); ++r) {
    const RankDag& rd = dag.ranks[r];
    for (std::size_t i = 0; i < rd.ops.size(); ++i) {
      const Op& op = rd.ops[i];
      const OpTiming& t = out.ops[r][i];
      out.iteration = std::max(out.iteration, t.end);
      if (op.kind == OpKind::Collective) {
        transfer_start[op.item] = std::max(transfer_start[op.item], t.start);
      } else if (op.kind == OpKind::Send) {
        transfer_start[op.item] = t.start;
      }
    }
  }
  out.ranks.assign(dag.ranks.size(), RankBreakdown{});
  core::parallel_for(threads, dag.ranks.size(), [&](std::size_t r) {
    if (dag.ranks[r].simulated)
      account_rank(dag, static_cast<std::uint32_t>(r), transfer_start, out);
  });
  return transfer_start;
}

TrainingTimeline execute_training(const Dag& dag, const std::vector<core::Time>& kernel_time,
                                  const std::vector<core::Time>& comm_time,
                                  const std::vector<double>& slowdown) {
  if (!slowdown.empty() && slowdown.size() != dag.ranks.size()) {
    throw std::invalid_argument("execute_training: one slowdown per rank needed");
  }
  return Executor(dag, kernel_time, comm_time, slowdown).run();
}

}  // namespace fabricsim::workload
