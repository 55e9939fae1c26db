#include "workload/training_fabric.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "collectives/plan.hpp"
#include "collectives/tuning.hpp"
#include "core/parallel.hpp"
#include "workload/comm_cost.hpp"
#include "workload/plan_runner.hpp"
#include "workload/rank_progress.hpp"

namespace fabricsim::workload {
namespace {

using core::Time;

class FabricAgent final : public net::HostApp {
  using Ctx = core::Context<net::Network>;
  static constexpr std::uint32_t kRankStart = PlanRunner::kFirstOwnerMsg;  // (rank)
  // (slot): kernels of the host that end at one time (HostEnds::slots), in the order posted.
  static constexpr std::uint32_t kEnds = PlanRunner::kFirstOwnerMsg + 1;

 public:
  FabricAgent(const Dag& dag, const std::vector<Time>& kernel_time,
              const std::vector<double>& slowdown, const std::vector<Time>& start,
              const collectives::RankLayout& layout, PlanRunner& runner, unsigned threads)
      : dag_(dag),
        kernel_time_(kernel_time),
        slowdown_(slowdown),
        start_(start),
        runner_(runner),
        threads_(threads) {
    if (kernel_time.size() != dag.kernels.size()) {
      throw std::invalid_argument("training on the fabric: one duration per kernel needed");
    }
    if (!slowdown.empty() && slowdown.size() != dag.ranks.size()) {
      throw std::invalid_argument("training on the fabric: one slowdown per rank needed");
    }
    if (!start.empty() && start.size() != dag.ranks.size()) {
      throw std::invalid_argument("training on the fabric: one start time per rank needed");
    }
    const std::size_t n = dag.ranks.size();
    if (n != layout.ranks.size()) {
      throw std::invalid_argument(
          fmt::format("the DAG has {} ranks, the cluster {} GPUs", n, layout.ranks.size()));
    }
    for (std::uint32_t r = 0; r < n; ++r) {
      if (!dag.ranks[r].simulated) {
        throw std::invalid_argument(
            fmt::format("training on the fabric runs every replica, but rank {} was left out", r));
      }
    }
    shapes_ = rank_shapes(dag, threads);
    straight_on_.resize(shapes_.shapes.size());
    into_comm_.resize(shapes_.shapes.size());
    core::parallel_for(threads, straight_on_.size(), [&](std::size_t k) {
      const RankDag& first = dag.ranks[shapes_.first_rank[k]];
      straight_on_[k] = runs_straight_on(first, shapes_.shapes[k], dag.ready_order);
      into_comm_[k] = runs_into_comm(first, shapes_.shapes[k], dag.ready_order);
    });
    // Kinds, streams and kernels are read from the first rank of each shape, whose ops stay in
    // cache for all of its ranks; what a communication op joins from the rank's own joins_.
    shape_ops_.resize(n);
    for (std::size_t r = 0; r < n; ++r) {
      shape_ops_[r] = dag.ranks[shapes_.first_rank[shapes_.of_rank[r]]].ops.data();
    }
    state_.resize(n);
    out_.ops.resize(n);
    core::parallel_for(threads, n, [&](std::size_t r) {
      state_[r].init(dag.ranks[r], shapes_.shapes[shapes_.of_rank[r]],
                     static_cast<std::uint32_t>(r), dag.ready_order);
      out_.ops[r].assign(dag.ranks[r].ops.size(), OpTiming{-1, -1});
    });
    std::size_t hosts = 0;
    for (const collectives::RankInfo& r : layout.ranks) {
      hosts = std::max(hosts, static_cast<std::size_t>(r.host) + 1);
    }
    host_ranks_.resize(hosts);
    ends_.resize(hosts);
    rank_host_.resize(n);
    for (std::uint32_t r = 0; r < n; ++r) {
      rank_host_[r] = static_cast<std::uint32_t>(layout.ranks[r].host);
      host_ranks_[rank_host_[r]].push_back(r);
    }
    // Each communication's members, and which op of its rank each one runs.
    op_base_.resize(dag.comms.size() + 1, 0);
    for (std::size_t c = 0; c < dag.comms.size(); ++c) {
      op_base_[c + 1] = op_base_[c] + dag.groups[dag.comms[c].group].size();
    }
    op_of_.assign(op_base_.back(), ~0u);
    // Per shape, each communication op's place among its rank's; per rank, what its
    // communication ops join (a rank's in one run, in op order): the run reads them there, not
    // in the rank's ops and its communication's group, which are far apart in memory.
    comm_place_.resize(shapes_.shapes.size());
    std::vector<std::uint32_t> comm_count;  // per shape: its communication ops
    for (std::size_t k = 0; k < comm_place_.size(); ++k) {
      const std::vector<Op>& ops = dag.ranks[shapes_.first_rank[k]].ops;
      comm_place_[k].assign(ops.size(), 0);
      std::uint32_t at = 0;
      for (std::size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].kind != OpKind::Compute) comm_place_[k][i] = at++;
      }
      comm_count.push_back(at);
    }
    std::vector<std::size_t> joins_base(n + 1, 0);
    for (std::size_t r = 0; r < n; ++r) {
      joins_base[r + 1] = joins_base[r] + comm_count[shapes_.of_rank[r]];
    }
    joins_.resize(joins_base.back());
    rank_joins_.resize(n);
    // Every communication op is its communication's participant: checked here, so that the
    // run finds it again (start) without a check that can fail.
    core::parallel_for(threads, n, [&](std::size_t r) {
      const std::vector<Op>& ops = dag.ranks[r].ops;
      Join* out = joins_.data() + joins_base[r];
      rank_joins_[r] = out;
      for (std::uint32_t i = 0; i < ops.size(); ++i) {
        if (ops[i].kind != OpKind::Compute) {
          *out++ = Join{ops[i].item, participant(static_cast<std::uint32_t>(r), i)};
        }
      }
    });
  }

  static void on_done(void* self, Ctx& ctx, std::uint32_t comm, std::uint32_t p) {
    auto& a = *static_cast<FabricAgent*>(self);
    const std::vector<int>& group = a.dag_.groups[a.dag_.comms[comm].group];
    if (p >= group.size()) return;  // an NVSwitch agent
    a.finish(ctx, static_cast<std::uint32_t>(group[p]), a.op_of_[a.op_base_[comm] + p], ctx.now());
  }

  void on_start(Ctx& ctx, std::uint32_t host) override {
    if (host >= host_ranks_.size()) return;
    for (const std::uint32_t r : host_ranks_[host]) {
      if (!start_.empty() && start_[r] > 0) {
        net_->host_send(ctx, host, start_[r], net::AppMsg{kRankStart, r, 0});
      } else {
        begin(ctx, r);
      }
    }
    runner_.flush(ctx, host);
  }

  void on_message(Ctx& ctx, std::uint32_t host, const net::AppMsg& m) override {
    if (m.a == kEnds) {
      // As if each were an event of its own, one after another.
      HostEnds& h = ends_[host];
      if (h.open == m.b) h.open = kNoSlot;
      for (std::size_t k = 0; k < h.slots[m.b].size(); ++k) {  // posts may add slots
        const KernelsEnd e = h.slots[m.b][k];
        finish_kernels(ctx, e.rank, e.op, e.into_comm);
        runner_.flush(ctx, host);
      }
      h.slots[m.b].clear();
      h.free.push_back(m.b);
    } else if (m.a == kRankStart) {
      begin(ctx, m.b);
      runner_.flush(ctx, host);
    } else {
      runner_.on_message(ctx, host, m);
    }
  }

  void on_delivered(Ctx& ctx, std::uint32_t host, std::uint32_t flow,
                    std::uint32_t messages) override {
    runner_.on_delivered(ctx, host, flow, messages);
  }

  void attach(net::Network* network) { net_ = network; }

  // The first rank that has not run every op, or the rank count when all have.
  std::uint32_t unfinished() const {
    std::uint32_t r = 0;
    while (r < state_.size() && state_[r].done == dag_.ranks[r].ops.size()) ++r;
    return r;
  }
  bool finished() const { return unfinished() == state_.size(); }

  // After a run over MPI ranks: every rank's progress and op timings as the rank that ran its
  // host's agent left them.
  void take_owners(const core::Ranks& ranks, const net::Network& network) {
    const auto mine = [&](std::size_t r) {
      return network.ran_here(network.host_node(rank_host_[r]));
    };
    std::vector<std::uint32_t> done(state_.size());
    for (std::size_t r = 0; r < done.size(); ++r) done[r] = state_[r].done;
    ranks.take_owners(done, mine);
    for (std::size_t r = 0; r < done.size(); ++r) state_[r].done = done[r];
    std::vector<OpTiming> all;
    std::vector<std::uint32_t> rank_of;
    for (std::size_t r = 0; r < out_.ops.size(); ++r) {
      all.insert(all.end(), out_.ops[r].begin(), out_.ops[r].end());
      rank_of.insert(rank_of.end(), out_.ops[r].size(), static_cast<std::uint32_t>(r));
    }
    ranks.take_owners(all, [&](std::size_t i) { return mine(rank_of[i]); });
    std::size_t next = 0;
    for (std::vector<OpTiming>& ops : out_.ops) {
      std::copy(all.begin() + static_cast<std::ptrdiff_t>(next),
                all.begin() + static_cast<std::ptrdiff_t>(next + ops.size()), ops.begin());
      next += ops.size();
    }
  }

  // `moving`: per communication, when its data started to move (account()).
  TrainingTimeline take(std::vector<Time>& moving) {
    if (const std::uint32_t r = unfinished(); r < state_.size()) {
      throw_stalled(dag_, r, out_.ops[r]);
    }
    moving = account(dag_, out_, threads_);
    return std::move(out_);
  }

 private:
  // What a communication op joins: its communication and its participant there.
  struct Join {
    std::uint32_t comm, p;
  };

  // The rank's ops that wait for nothing.
  void begin(Ctx& ctx, std::uint32_t r) {
    for (std::uint32_t i = 0; i < dag_.ranks[r].ops.size(); ++i) {
      if (state_[r].waiting[i] == 0) became_ready(ctx, r, i, ctx.now());
    }
  }

  // Dependencies done at `at` (now, or earlier in an event that runs the end of kernels and the
  // communication they lead into, see start): a receive is posted at once; anything else
  // starts when it heads its stream and the stream is free.
  void became_ready(Ctx& ctx, std::uint32_t r, std::uint32_t i, Time at) {
    const Op& op = shape_ops_[r][i];
    if (op.kind == OpKind::Recv) {
      start(ctx, r, i, at);
    } else {
      state_[r].mark_ready(op, i);
      try_stream(ctx, r, static_cast<int>(op.stream), at);
    }
  }

  void try_stream(Ctx& ctx, std::uint32_t r, int s, Time at) {
    const std::int64_t i = state_[r].take(s);
    if (i >= 0) start(ctx, r, static_cast<std::uint32_t>(i), at);
  }

  void start(Ctx& ctx, std::uint32_t r, std::uint32_t i, Time at) {
    const Op& op = shape_ops_[r][i];
    out_.ops[r][i].start = at;
    if (op.kind != OpKind::Compute) {
      const Join j = join(r, i);
      op_of_[op_base_[j.comm] + j.p] = i;
      runner_.start(ctx, j.comm, j.p, at);
      return;
    }
    // The kernels that follow it straight on run in the same event; each gets its own times.
    // (In list order the stream's head is op i.)
    RankProgress& st = state_[r];
    const std::uint32_t shape = shapes_.of_rank[r];
    const std::vector<std::uint32_t>& stream = st.shape->stream_ops[static_cast<int>(op.stream)];
    const std::vector<bool>& straight_on = straight_on_[shape];
    std::uint32_t pos = st.head[static_cast<int>(op.stream)];
    Time end = at + kernel_duration(kernel_time_, slowdown_, r, op.item);
    std::uint32_t k = i;
    while (straight_on[k]) {
      out_.ops[r][k].end = end;
      k = stream[++pos];
      out_.ops[r][k].start = end;
      end += kernel_duration(kernel_time_, slowdown_, r, shape_ops_[r][k].item);
    }
    // When the communication op the last kernel leads into will start the moment it ends (see
    // runs_into_comm), one event at its communication's begin does both.
    bool into = false;
    Time when = end;
    if (into_comm_[shape][k]) {
      const RankShape& sh = *st.shape;
      const std::uint32_t j = sh.dependents[sh.dependents_begin[k]];
      const int s = static_cast<int>(shape_ops_[r][j].stream);
      if (st.waiting[j] == 1 && (s == static_cast<int>(op.stream) ||
                                 (!st.busy[s] && st.head[s] < sh.stream_ops[s].size() &&
                                  sh.stream_ops[s][st.head[s]] == j))) {
        out_.ops[r][k].end = end;
        into = true;
        when += runner_.base_latency(join(r, j).comm);
      }
    }
    if (when < ctx.now())
      throw std::logic_error("training on the fabric: a kernel ends in the past");
    post_end(ctx, rank_host_[r], when, KernelsEnd{r, i, into});
  }

  // Kernels started with op i of rank r end (see start): an event at `when`, or a place in the
  // host's last one when that is at the same time and the host scheduled nothing since. The
  // tensor-parallel ranks of a host end their kernels together: one event instead of eight,
  // and the same order.
  struct KernelsEnd {
    std::uint32_t rank, op;
    bool into_comm;
  };
  void post_end(Ctx& ctx, std::uint32_t host, Time when, const KernelsEnd& e) {
    HostEnds& h = ends_[host];
    if (h.open != kNoSlot && h.at == when && h.after == ctx.scheduled()) {
      h.slots[h.open].push_back(e);
      return;
    }
    std::uint32_t slot;
    if (h.free.empty()) {
      slot = static_cast<std::uint32_t>(h.slots.size());
      h.slots.emplace_back();
    } else {
      slot = h.free.back();
      h.free.pop_back();
    }
    h.slots[slot].push_back(e);
    net_->host_send(ctx, host, when - ctx.now(), net::AppMsg{kEnds, slot, 0});
    h.open = slot;
    h.at = when;
    h.after = ctx.scheduled();
  }

  // What rank r's communication op i joins.
  const Join& join(std::uint32_t r, std::uint32_t i) const {
    return rank_joins_[r][comm_place_[shapes_.of_rank[r]][i]];
  }

  // Rank r's op i in its communication: a transfer's sender is participant 0, its receiver 1;
  // a collective member is its place in the group. Throws std::invalid_argument when the op's
  // rank is not where the communication says.
  std::uint32_t participant(std::uint32_t r, std::uint32_t i) const {
    const Op& op = dag_.ranks[r].ops[i];
    if (op.item >= dag_.comms.size()) {
      throw std::invalid_argument(fmt::format("rank {} op {} names communication {} of {}", r, i,
                                              op.item, dag_.comms.size()));
    }
    const std::vector<int>& group = dag_.groups[dag_.comms[op.item].group];
    if (op.kind == OpKind::Send || op.kind == OpKind::Recv) {
      const std::uint32_t p = op.kind == OpKind::Send ? 0 : 1;
      if (group.size() != 2 || group[p] != static_cast<int>(r)) {
        throw std::invalid_argument(
            fmt::format("rank {} op {} is a {} of transfer {}, whose ends are not it", r, i,
                        op.kind == OpKind::Send ? "send" : "receive", op.item));
      }
      return p;
    }
    const auto it = std::find(group.begin(), group.end(), static_cast<int>(r));
    if (it == group.end()) {
      throw std::invalid_argument(fmt::format(
          "rank {} op {} joins communication {}, whose group does not hold it", r, i, op.item));
    }
    return static_cast<std::uint32_t>(it - group.begin());
  }

  // The kernels started with op i (see start) are done: the ones before the last release only
  // their stream's next kernel, which is already running. `into_comm`: the last one ended
  // earlier (its recorded end), and the communication op it leads into starts then.
  void finish_kernels(Ctx& ctx, std::uint32_t r, std::uint32_t i, bool into_comm) {
    RankProgress& st = state_[r];
    const RankShape& sh = *st.shape;
    const std::vector<bool>& straight_on = straight_on_[shapes_.of_rank[r]];
    while (straight_on[i]) {
      const Op& op = shape_ops_[r][i];
      const int s = static_cast<int>(op.stream);
      ++st.done;
      const std::uint32_t next = sh.stream_ops[s][++st.head[s]];
      for (std::uint32_t k = sh.dependents_begin[i]; k < sh.dependents_begin[i + 1]; ++k) {
        --st.waiting[sh.dependents[k]];
      }
      i = next;
    }
    finish(ctx, r, i, into_comm ? out_.ops[r][i].end : ctx.now());
  }

  // Op i of rank r ended at `at`.
  void finish(Ctx& ctx, std::uint32_t r, std::uint32_t i, Time at) {
    RankProgress& st = state_[r];
    const Op& op = shape_ops_[r][i];
    out_.ops[r][i].end = at;
    st.finish(op);
    const RankShape& sh = *st.shape;
    for (std::uint32_t k = sh.dependents_begin[i]; k < sh.dependents_begin[i + 1]; ++k) {
      const std::uint32_t d = sh.dependents[k];
      if (--st.waiting[d] == 0) became_ready(ctx, r, d, at);
    }
    if (op.kind != OpKind::Recv) try_stream(ctx, r, static_cast<int>(op.stream), at);
  }

 private:
  const Dag& dag_;
  const std::vector<Time>& kernel_time_;
  const std::vector<double>& slowdown_;
  const std::vector<Time>& start_;
  PlanRunner& runner_;
  unsigned threads_;
  // Everything below is per rank (or per member of a communication): only the events of that
  // rank's host touch it.
  RankShapes shapes_;
  std::vector<std::vector<bool>> straight_on_;  // per shape: runs_straight_on
  std::vector<std::vector<bool>> into_comm_;    // per shape: runs_into_comm
  std::vector<const Op*> shape_ops_;            // per rank: its shape's first rank's ops
  std::vector<RankProgress> state_;
  TrainingTimeline out_;
  std::vector<std::uint32_t> rank_host_;
  // Per host: its pending kEnds events' lists, and the last one while more may join it. Only
  // its host's events touch one (a line of its own: hosts sit on different LPs).
  static constexpr std::uint32_t kNoSlot = ~0u;
  struct alignas(64) HostEnds {
    std::vector<std::vector<KernelsEnd>> slots;
    std::vector<std::uint32_t> free;
    std::uint32_t open = kNoSlot;
    Time at = 0;
    std::uint64_t after = 0;
  };
  std::vector<HostEnds> ends_;
  std::vector<std::vector<std::uint32_t>> host_ranks_;
  std::vector<std::vector<std::uint32_t>> comm_place_;  // per shape, per op (see constructor)
  std::vector<Join> joins_;                             // per rank, per communication op
  std::vector<const Join*> rank_joins_;                 // per rank: its first in joins_
  std::vector<std::size_t> op_base_;                    // per comm: its members' entries in op_of_
  std::vector<std::uint32_t> op_of_;                    // per comm and member: the member's op
  net::Network* net_ = nullptr;
};

// Per group: whether every rank issues the group's communications in increasing number, all
// on one stream (receives excepted: they take their data in the order it was sent).
std::vector<bool> ordered_groups(const Dag& dag) {
  constexpr std::uint32_t kNone = ~0u;
  std::vector<bool> ok(dag.groups.size(), true);
  // Per group, this rank's last communication and its stream; reset after each rank where
  // it was set, so a rank costs its own ops, not the number of groups.
  std::vector<std::uint32_t> last(dag.groups.size(), kNone), stream(dag.groups.size(), kNone);
  std::vector<std::uint32_t> touched;
  for (const RankDag& rd : dag.ranks) {
    for (const Op& op : rd.ops) {
      if (op.kind == OpKind::Compute || op.kind == OpKind::Recv) continue;
      const std::uint32_t g = dag.comms[op.item].group;
      const auto st = static_cast<std::uint32_t>(op.stream);
      if (last[g] == kNone) {
        touched.push_back(g);
      } else if (op.item <= last[g] || stream[g] != st) {
        ok[g] = false;
      }
      last[g] = op.item;
      stream[g] = st;
    }
    for (const std::uint32_t g : touched) last[g] = stream[g] = kNone;
    touched.clear();
  }
  return ok;
}

}  // namespace

FabricTraining run_training_on_fabric(const Dag& dag, const std::vector<Time>& kernel_time,
                                      const net::Topology& topo, const net::NetworkConfig& cfg,
                                      const collectives::RankLayout& layout,
                                      const ExecParams& params, const net::RunOptions& run,
                                      const std::vector<double>& slowdown, const RankJobs* jobs) {
  PlanRunner runner(topo, params, layout.hw);
  const CommShapes cs = comm_shapes(dag, layout);
  std::vector<std::uint32_t> shape_id(cs.first.size());
  for (std::size_t k = 0; k < cs.first.size(); ++k) {
    const collectives::RankLayout members = comm_members(dag, cs.first[k], layout);
    shape_id[k] = runner.add_shape(
        build_plan(comm_call(dag.comms[cs.first[k]]), members, params, run.threads), members.ranks);
  }
  // Instance c is communication c. The communications of one group share its queue pairs (one
  // NCCL communicator) when every member issues them in the order they are numbered, on one
  // stream; otherwise each has its own.
  const std::vector<bool> shared = ordered_groups(dag);
  const std::vector<std::vector<collectives::RankInfo>> members = group_members(dag, layout);
  std::vector<std::uint32_t> instance_shape(dag.comms.size());
  for (std::size_t c = 0; c < dag.comms.size(); ++c) instance_shape[c] = shape_id[cs.shape_of[c]];
  runner.reserve(instance_shape);
  for (std::size_t c = 0; c < dag.comms.size(); ++c) {
    const std::uint32_t g = dag.comms[c].group;
    runner.add_instance(instance_shape[c], members[g], shared[g] ? g : PlanRunner::kOwnCommunicator,
                        jobs ? jobs->job[static_cast<std::size_t>(dag.groups[g].front())] : 0);
  }
  static const std::vector<Time> kNoStart;
  FabricAgent agent(dag, kernel_time, slowdown, jobs ? jobs->start : kNoStart, layout, runner,
                    run.threads);
  net::Network network(topo, cfg, runner.take_flows());
  network.set_app(&agent, params.host_delay);
  runner.add_channels(network);
  runner.attach(&network, &FabricAgent::on_done, &agent);
  agent.attach(&network);

  FabricTraining out;
  out.net = network.run(run);
  if (run.ranks && run.ranks->size() > 1) {
    runner.take_owners(*run.ranks, network);
    agent.take_owners(*run.ranks, network);
  }
  if (out.net.kernel.cut_off && !agent.finished()) throw_cut_off(run.end);
  std::vector<Time> moving;
  out.timeline = agent.take(moving);
  out.shapes = cs.first.size();
  out.queue_pairs = runner.queue_pairs();
  out.comm_time.resize(dag.comms.size());
  for (std::size_t c = 0; c < dag.comms.size(); ++c) {
    const PlanRunner::InstanceResult ir = runner.result(static_cast<std::uint32_t>(c));
    out.comm_time[c] = std::max<Time>(0, ir.end - moving[c]);
  }
  return out;
}

}  // namespace fabricsim::workload
