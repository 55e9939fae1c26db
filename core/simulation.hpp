#pragma once
// The conservative parallel kernel. Nodes are partitioned into logical processes (LPs); each LP
// owns an event list and its nodes' state. Rounds (windows): T = earliest pending event over
// all LPs; every LP drains its inbound mailboxes and processes its events with time < T + L in
// parallel, L being the lookahead (the smallest delay of a channel between two LPs); then the
// next round. An event for another LP is never earlier than now + L, which the kernel checks,
// so no LP can receive an event below the edge it has already passed.
//
// A Model provides `using Payload = ...;` (trivially copyable) and
// `void handle(Context<Model>&, const Event<Payload>&)`. Its state is indexed by node, and the
// handler touches only the state of the event's node: that is what makes a run bit-identical
// for every partition and thread count.
//
// FIFO channels. A model whose traffic between two nodes arrives in the order it was sent (a
// link: each frame lands after the one before it) also provides `using Message = ...;` and
// `void receive(Context<Model>&, std::uint32_t fifo, const Message&)`, opens one channel per
// direction (add_fifo) and sends with Context::send_fifo. The messages of a channel wait in
// its own queue, owned by the destination's LP; only the earliest is in the event list. So the
// list holds one event per busy channel, not one per message in flight (htsim's pipes), and a
// message is stored once, however large, while ordinary events stay small. A message is
// ordered by the same (time, source, sequence) key as an event, so results do not change.
// A model whose messages sometimes carry a larger part (a packet's telemetry, under one
// congestion control only) may provide `using Attachment = ...;`: send_fifo then takes an
// optional attachment, which travels in a queue of its own beside the messages, and receive
// gets a pointer to it (`receive(ctx, fifo, msg, const Attachment*)`, nullptr when none). Messages
// stay small when nothing is attached.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/event.hpp"
#include "core/event_queue.hpp"
#include "core/mailbox.hpp"
#include "core/ranks.hpp"
#include "core/ring.hpp"
#include "core/rng.hpp"
#include "core/stats.hpp"
#include "core/workers.hpp"

namespace fabricsim::core {

struct SimConfig {
  std::uint32_t nodes = 0;
  std::vector<LpId> lp_of_node;  // empty: every node on LP 0 (the sequential reference mode)
  unsigned threads = 1;
  std::uint64_t seed = 1;
  Time end = kTimeMax;            // events at or after `end` are not processed
  Time any_to_any_delay = 0;      // > 0: every node may send to every other one at least this late
  bool trace_hash = false;        // keep a hash of every node's processed-event sequence
  ProgressFn progress = nullptr;  // optional: told where the run is, between windows
  void* progress_ctx = nullptr;
  double progress_every_s = 0.5;
  // An MPI job (more than one rank): this process runs its block of the LPs (LP l on rank
  // l x ranks / LPs) and exchanges what crosses ranks at every window barrier. Every rank builds
  // the same model and schedules the same initial events; each keeps those of its own LPs.
  const Ranks* ranks = nullptr;
};

template <class Model>
class Simulation;

// A model's FIFO message type, or an empty one for models that open no FIFO channel.
template <class Model>
struct MessageOf {
  struct None {};
  using type = None;
};
template <class Model>
requires requires {
  typename Model::Message;
}
struct MessageOf<Model> {
  using type = typename Model::Message;
};
template <class Model>
struct AttachmentOf {
  struct None {};
  using type = None;
};
template <class Model>
requires requires {
  typename Model::Attachment;
}
struct AttachmentOf<Model> {
  using type = typename Model::Attachment;
};

// What a handler sees: the clock, its node, its node's random stream, and event scheduling.
template <class Model>
class Context {
 public:
  using Payload = typename Model::Payload;

  Time now() const { return now_; }
  NodeId node() const { return node_; }
  LpId lp() const { return lp_; }
  Rng& rng() { return sim_.per_node_[node_].rng; }
  // How many events this node has scheduled so far: unchanged between two of its calls when it
  // scheduled nothing in between (a model may then fold a second event into the first).
  std::uint64_t scheduled() const { return sim_.per_node_[node_].seq; }

  // An event for this node, `delay` from now.
  void schedule(Time delay, EventKind kind, const Payload& payload = {}) {
    sim_.emit(*this, node_, delay, kind, payload);
  }
  // An event for node `dst`, `delay` from now; dst may live on another LP.
  void send(NodeId dst, Time delay, EventKind kind, const Payload& payload = {}) {
    sim_.emit(*this, dst, delay, kind, payload);
  }
  // A message on FIFO channel `fifo` (opened from this node), received `delay` from now; no
  // earlier than the channel's last message.
  // `att`: the message's attachment, if the model has them and this message carries one.
  template <class Message, class Attachment = typename AttachmentOf<Model>::type>
  void send_fifo(std::uint32_t fifo, Time delay, const Message& msg,
                 const Attachment* att = nullptr) {
    sim_.emit_fifo(*this, fifo, delay, msg, att);
  }

 private:
  friend class Simulation<Model>;
  Context(Simulation<Model>& sim, LpId lp) : sim_(sim), lp_(lp) {}
  Simulation<Model>& sim_;
  LpId lp_;
  Time now_ = 0;
  NodeId node_ = 0;
};

template <class Model>
class Simulation {
 public:
  using Payload = typename Model::Payload;
  using E = Event<Payload>;
  using Message = typename MessageOf<Model>::type;
  static constexpr bool kFifos = requires { typename Model::Message; };
  using Attachment = typename AttachmentOf<Model>::type;
  static constexpr bool kAttachments = requires { typename Model::Attachment; };
  static_assert(std::is_trivially_copyable_v<Attachment>, "attachments are plain data");
  static_assert(std::is_trivially_copyable_v<Payload>, "event payloads are plain data");
  static_assert(std::is_trivially_copyable_v<Message>, "FIFO messages are plain data");

  Simulation(Model& model, SimConfig cfg)
      : model_(model),
        cfg_(std::move(cfg)),
        workers_(static_cast<unsigned>(std::min<std::size_t>(cfg_.threads, local_lps_of(cfg_)))) {
    if (cfg_.nodes == 0) throw ConfigError("simulation needs at least one node");
    if (cfg_.nodes > kMaxNodes) {
      throw ConfigError("simulation of " + std::to_string(cfg_.nodes) + " nodes: at most " +
                        std::to_string(kMaxNodes) + " (the event order packs node ids)");
    }
    if (cfg_.lp_of_node.empty()) cfg_.lp_of_node.assign(cfg_.nodes, 0);
    if (cfg_.lp_of_node.size() != cfg_.nodes) {
      throw ConfigError("partition covers " + std::to_string(cfg_.lp_of_node.size()) +
                        " nodes, the simulation has " + std::to_string(cfg_.nodes));
    }
    LpId lps = 0;
    for (LpId lp : cfg_.lp_of_node) lps = std::max(lps, lp + 1);
    lps_.resize(lps);
    for (LpId i = 0; i < lps; ++i) {
      lps_[i].id = i;
      lps_[i].outbox_of.assign(lps, -1);
    }
    if (cfg_.ranks != nullptr && cfg_.ranks->size() > 1) {
      ranks_ = cfg_.ranks;
      if (lps < static_cast<LpId>(ranks_->size())) {
        throw ConfigError(std::to_string(lps) + " logical processes for " +
                          std::to_string(ranks_->size()) +
                          " MPI ranks: every rank needs at least one (more LPs, or fewer ranks)");
      }
    }
    rank_of_lp_.resize(lps);
    for (LpId i = 0; i < lps; ++i) {
      rank_of_lp_[i] = rank_of(i, lps);
      if (rank_of_lp_[i] == my_rank()) local_.push_back(i);
    }
    for (NodeId n = 0; n < cfg_.nodes; ++n) ++lps_[cfg_.lp_of_node[n]].nodes;
    for (const Lp& lp : lps_) {
      if (lp.nodes == 0) throw ConfigError("LP " + std::to_string(lp.id) + " has no node");
    }
    linked_.assign(static_cast<std::size_t>(lps) * lps, 0);
    per_node_.reserve(cfg_.nodes);
    for (NodeId n = 0; n < cfg_.nodes; ++n) per_node_.push_back(NodeState{Rng(cfg_.seed, n)});
#ifndef NDEBUG
    channels_.resize(cfg_.nodes);
#endif
    if (cfg_.any_to_any_delay > 0) {
      min_channel_ = cfg_.any_to_any_delay;
      if (lps > 1) lookahead_ = cfg_.any_to_any_delay;
      std::fill(linked_.begin(), linked_.end(), 1);
    }
  }

  // Declares that events between nodes a and b (either way) are never closer than min_delay:
  // typically a link's propagation delay.
  void add_channel(NodeId a, NodeId b, Time min_delay) {
    check_node(a, "add_channel");
    check_node(b, "add_channel");
    if (min_delay <= 0) {
      throw ConfigError("channel " + std::to_string(a) + "<->" + std::to_string(b) +
                        " needs a positive minimum delay");
    }
    min_channel_ = std::min(min_channel_, min_delay);
#ifndef NDEBUG
    channels_[a].push_back({b, min_delay});
    channels_[b].push_back({a, min_delay});
#endif
    const LpId la = cfg_.lp_of_node[a], lb = cfg_.lp_of_node[b];
    if (la == lb) return;
    lookahead_ = std::min(lookahead_, min_delay);
    linked_[la * lps_.size() + lb] = linked_[lb * lps_.size() + la] = 1;
  }

  // Opens a FIFO channel from node src to node dst whose messages take at least min_delay (it
  // is a channel as add_channel declares, too); returns its number for send_fifo and receive.
  // Numbers are handed out from 0 in call order.
  std::uint32_t add_fifo(NodeId src, NodeId dst, Time min_delay) {
    add_channel(src, dst, min_delay);
    if (src == dst) throw ConfigError("a FIFO channel joins two different nodes");
    if (fifos_.size() >= EventQueue<E>::kExternal) throw ConfigError("too many FIFO channels");
    fifos_.emplace_back();
    Fifo& f = fifos_.back();
    f.src = src;
    f.dst = dst;
    f.min_delay = min_delay;
    return static_cast<std::uint32_t>(fifos_.size() - 1);
  }

  // An event present before the run starts, as if node `node` had scheduled it for itself.
  void schedule_initial(NodeId node, Time at, EventKind kind, const Payload& payload = {}) {
    check_node(node, "schedule_initial");
    if (at < 0) throw ConfigError("initial event at negative time");
    if (per_node_[node].seq == kMaxSeq) throw_seq_overflow(node);
    const LpId lp = cfg_.lp_of_node[node];
    const std::uint64_t seq = per_node_[node].seq++;
    if (rank_of_lp_[lp] == my_rank()) lps_[lp].queue.emplace(at, node, node, seq, kind, payload);
  }

  Rng& rng(NodeId node) {
    return per_node_[node].rng;
  }
  LpId lp_of(NodeId node) const {
    return cfg_.lp_of_node[node];
  }
  std::uint32_t lp_count() const {
    return static_cast<std::uint32_t>(lps_.size());
  }
  Time lookahead() const {
    return lookahead_;
  }
  // Whether this process runs node n's events (always, unless the run spans MPI ranks): after
  // the run, the model's state of node n is current here only if so (Ranks::take_owners).
  bool owns(NodeId node) const {
    return rank_of_lp_[cfg_.lp_of_node[node]] == my_rank();
  }

  // Hash of every node's sequence of processed events (needs cfg.trace_hash).
  std::uint64_t trace_hash() const {
    std::uint64_t h = 0;
    for (const NodeState& n : per_node_) h = hash_mix(h, n.hash);
    return h;
  }

  KernelStats run() {
    if (ran_) throw ConfigError("a Simulation runs once");
    ran_ = true;
    build_mailboxes();
    worker_time_.assign(workers_.threads(), WorkerTime{});
    order_ = local_;

    const auto start = Clock::now();
    double rounds_wall = 0;
    Time tmin = kTimeMax;
    for (std::uint32_t l : local_) tmin = std::min(tmin, lps_[l].queue.next_time());
    if (ranks_) tmin = ranks_->min(tmin);
    auto task = [this](std::uint32_t lp, unsigned worker) { process(lps_[lp], worker); };
    // A rank that fails cannot leave the others waiting at the next exchange: it stops the job.
    if (ranks_) {
      try {
        run_windows(task, tmin, start, rounds_wall);
      } catch (const std::exception& e) {
        ranks_->abort(e.what());
      }
    } else {
      run_windows(task, tmin, start, rounds_wall);
    }

    KernelStats s;
    s.cut_off = tmin != kTimeMax;  // the loop stopped at cfg_.end, not for want of events
    s.wall_s = seconds(Clock::now() - start);
    s.windows = round_;
    s.threads = workers_.threads();
    s.lps = lp_count();
    s.lookahead = lookahead_;
    for (std::uint32_t l : local_) {
      s.events += lps_[l].events;
      s.mailbox_events += lps_[l].sent;
      s.end_time = std::max(s.end_time, lps_[l].last_time);
    }
    for (const WorkerTime& w : worker_time_) {
      s.process_s += w.process_s;
      s.merge_s += w.merge_s;
    }
    s.wait_s = std::max(0.0, rounds_wall * s.threads - s.process_s - s.merge_s);
    if (ranks_) gather_stats(s);
    return s;
  }

 private:
  friend class Context<Model>;
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
  }

  template <class Task>
  void run_windows(Task& task, Time& tmin, Clock::time_point start, double& rounds_wall) {
    auto last_report = start;
    workers_.enter(order_, task, [&] {
      while (tmin < cfg_.end) {
        ++round_;
        edge_ = lookahead_ >= cfg_.end - tmin ? cfg_.end : tmin + lookahead_;
        const auto r0 = Clock::now();
        workers_.run_round(task);
        const auto r1 = Clock::now();
        rounds_wall += seconds(r1 - r0);
        tmin = kTimeMax;
        for (std::uint32_t l : local_) tmin = std::min(tmin, lps_[l].next);
        if (ranks_) {
          // The earliest event anywhere, messages sent across ranks included (an LP's `next`
          // counts what it sent), is the next window's start on every rank alike: the exchange
          // takes the least over the ranks.
          exchange_across_ranks(tmin);
          mpi_s_ += seconds(Clock::now() - r1);
        }
        if (cfg_.progress && my_rank() == 0 && seconds(r1 - last_report) >= cfg_.progress_every_s) {
          last_report = r1;
          Progress p{std::min(tmin, cfg_.end), cfg_.end, 0, seconds(r1 - start)};
          for (std::uint32_t l : local_) p.events += lps_[l].events;  // this rank's
          cfg_.progress(cfg_.progress_ctx, p);
        }
        if (workers_.threads() > 1) {
          std::sort(order_.begin(), order_.end(), [this](std::uint32_t a, std::uint32_t b) {
            return lps_[a].last_cost != lps_[b].last_cost ? lps_[a].last_cost > lps_[b].last_cost
                                                          : a < b;
          });
        }
      }
    });
  }

  struct alignas(64) Lp {  // its own cache lines: each is written by one thread
    LpId id = 0;
    std::uint32_t nodes = 0;
    EventQueue<E> queue;
    std::vector<std::int32_t> outbox_of;  // by destination LP: mailbox index, or -1
    std::vector<std::uint32_t> inboxes;   // mailbox indices this LP drains
    Time min_sent = kTimeMax;             // earliest event sent to another LP this round
    Time next = kTimeMax;                 // earliest pending event after this round
    Time last_time = 0;
    std::uint64_t events = 0, sent = 0, last_cost = 0;
  };
  // What the kernel keeps per node, on a cache line of its own: neighbouring nodes may sit on
  // other LPs, whose threads write their counters in the same window.
  struct alignas(64) NodeState {
    Rng rng;
    std::uint64_t seq = 0;   // the node's next event number
    std::uint64_t hash = 0;  // its processed-event sequence (SimConfig::trace_hash)
  };
  struct FifoEntry {
    Time time;
    std::uint64_t seq;
    std::uint32_t fifo;
    bool attached;  // the next attachment of the channel (or mailbox) is this message's
    Message msg;
  };
  // A FIFO channel's pending messages, in time order, and the attachments of those that have
  // one, in the same order; written only by its destination's LP (a sender on another LP hands
  // its messages over through the mailboxes).
  struct alignas(64) Fifo {
    NodeId src = 0, dst = 0;
    Time min_delay = 0;
    Ring<FifoEntry> pending;
    Ring<Attachment> attachments;
  };
  struct alignas(64) WorkerTime {
    double process_s = 0, merge_s = 0;
  };

  static constexpr std::uint64_t kMaxNodes = std::uint64_t{1} << EventQueue<E>::kSrcBits;
  static constexpr std::uint64_t kMaxSeq = std::uint64_t{1} << EventQueue<E>::kSeqBits;
  [[noreturn]] static void throw_seq_overflow(NodeId src) {
    throw ConfigError("node " + std::to_string(src) + " sent " + std::to_string(kMaxSeq) +
                      " events, more than the event order can number");
  }

  // More threads than a rank's LPs would only spin at the barrier.
  static std::size_t local_lps_of(const SimConfig& cfg) {
    LpId lps = 0;
    for (LpId lp : cfg.lp_of_node) lps = std::max(lps, lp + 1);
    lps = std::max<LpId>(1, lps);
    if (cfg.ranks == nullptr || cfg.ranks->size() == 1) return lps;
    std::size_t mine = 0;
    for (LpId l = 0; l < lps; ++l) mine += rank_of_lp(l, lps, *cfg.ranks) == cfg.ranks->rank();
    return std::max<std::size_t>(1, mine);
  }
  int rank_of(LpId lp, LpId lps) const {
    return ranks_ ? rank_of_lp(lp, lps, *ranks_) : 0;
  }
  int my_rank() const {
    return ranks_ ? ranks_->rank() : 0;
  }

  // After a round: every mailbox written here for an LP of another rank goes to that rank, in
  // one buffer per rank (box number, the three counts, then the records as they are), and what
  // the other ranks wrote for this rank's LPs lands in the same boxes here, ready to be drained
  // in the next round exactly as a box filled by a thread of this process would be.
  void exchange_across_ranks(Time& tmin) {
    const auto n = static_cast<std::size_t>(ranks_->size());
    out_.resize(n);
    for (std::vector<std::byte>& b : out_) b.clear();
    for (std::uint32_t box : to_other_ranks_) {
      std::vector<E>& ev = mailboxes_[box].written(round_);
      std::vector<FifoEntry>* fe = fifo_mail_.empty() ? nullptr : &fifo_mail_[box].written(round_);
      std::vector<Attachment>* at =
          attachment_mail_.empty() ? nullptr : &attachment_mail_[box].written(round_);
      const std::uint64_t counts[4] = {box, ev.size(), fe ? fe->size() : 0, at ? at->size() : 0};
      if (counts[1] + counts[2] + counts[3] == 0) continue;
      std::vector<std::byte>& o = out_[static_cast<std::size_t>(box_rank_[box])];
      append(o, counts, 4);
      append(o, ev.data(), ev.size());
      ev.clear();
      if (fe) {
        append(o, fe->data(), fe->size());
        fe->clear();
      }
      if (at) {
        append(o, at->data(), at->size());
        at->clear();
      }
    }
    for (const std::vector<std::byte>& b : out_) exchanged_bytes_ += b.size();
    ranks_->exchange(out_, in_, tmin);
    for (const std::vector<std::byte>& b : in_) {
      std::size_t pos = 0;
      while (pos < b.size()) {
        std::uint64_t counts[4];
        take(b, pos, counts, 4);
        const auto box = static_cast<std::uint32_t>(counts[0]);
        take_into(b, pos, mailboxes_[box].written(round_), counts[1]);
        if (counts[2]) take_into(b, pos, fifo_mail_[box].written(round_), counts[2]);
        if (counts[3]) take_into(b, pos, attachment_mail_[box].written(round_), counts[3]);
      }
    }
  }
  template <class T>
  static void append(std::vector<std::byte>& out, const T* data, std::size_t count) {
    const auto* p = reinterpret_cast<const std::byte*>(data);
    out.insert(out.end(), p, p + count * sizeof(T));
  }
  template <class T>
  static void take(const std::vector<std::byte>& in, std::size_t& pos, T* data, std::size_t count) {
    if (count == 0) return;  // `data` may be null then
    std::memcpy(static_cast<void*>(data), in.data() + pos, count * sizeof(T));
    pos += count * sizeof(T);
  }
  template <class T>
  static void take_into(const std::vector<std::byte>& in, std::size_t& pos, std::vector<T>& to,
                        std::uint64_t count) {
    const std::size_t at = to.size();
    to.resize(at + count);
    take(in, pos, to.data() + at, count);
  }

  // The whole job's figures in every rank's stats, and every node's trace hash from its rank.
  void gather_stats(KernelStats& s) {
    s.events = ranks_->sum(s.events);
    s.mailbox_events = ranks_->sum(s.mailbox_events);
    s.end_time = ranks_->max(s.end_time);
    s.wall_s = ranks_->max(s.wall_s);
    s.process_s = ranks_->sum(s.process_s);
    s.merge_s = ranks_->sum(s.merge_s);
    s.wait_s = ranks_->sum(s.wait_s);
    s.ranks = ranks_->size();
    s.mpi_s = ranks_->sum(mpi_s_);
    s.exchanged_bytes = ranks_->sum(exchanged_bytes_);
    if (cfg_.trace_hash) {
      std::vector<std::uint64_t> h(per_node_.size());
      for (NodeId n = 0; n < h.size(); ++n) h[n] = per_node_[n].hash;
      ranks_->take_owners(h, [this](std::size_t n) { return owns(static_cast<NodeId>(n)); });
      for (NodeId n = 0; n < h.size(); ++n) per_node_[n].hash = h[n];
    }
  }

  void check_node(NodeId n, const char* what) const {
    if (n >= cfg_.nodes) {
      throw ConfigError(std::string(what) + ": node " + std::to_string(n) + " does not exist (" +
                        std::to_string(cfg_.nodes) + " nodes)");
    }
  }

  void build_mailboxes() {
    const std::size_t n = lps_.size();
    std::uint32_t count = 0;
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b)
        if (a != b && linked_[a * n + b]) ++count;
    mailboxes_ = std::vector<Mailbox<E>>(count);
    fifo_mail_ = std::vector<Mailbox<FifoEntry>>(fifos_.empty() ? 0 : count);
    attachment_mail_ = std::vector<Mailbox<Attachment>>(kAttachments ? fifo_mail_.size() : 0);
    std::uint32_t next = 0;
    for (std::size_t b = 0; b < n; ++b) {
      for (std::size_t a = 0; a < n; ++a) {
        if (a == b || !linked_[a * n + b]) continue;
        lps_[a].outbox_of[b] = static_cast<std::int32_t>(next);
        lps_[b].inboxes.push_back(next);
        box_rank_.push_back(rank_of_lp_[b]);
        if (rank_of_lp_[a] == my_rank() && rank_of_lp_[b] != my_rank()) {
          to_other_ranks_.push_back(next);
        }
        ++next;
      }
    }
  }

  void emit(Context<Model>& ctx, NodeId dst, Time delay, EventKind kind, const Payload& payload) {
    const NodeId src = ctx.node_;
    if (delay < 0) throw_past_event(src, dst, ctx.now_, delay);
    if (dst >= cfg_.nodes) check_node(dst, "send");
#ifndef NDEBUG
    // Debug builds check the channel actually used, so a model bug shows whatever the partition
    // (release builds check the LP lookahead below, which is what correctness needs).
    if (dst != src && cfg_.any_to_any_delay == 0) check_channel(ctx, dst, delay);
#endif
    if (per_node_[src].seq == kMaxSeq) throw_seq_overflow(src);
    if (delay > kTimeMax - ctx.now_) throw_beyond_horizon(src, dst, ctx.now_, delay);
    const Time at = ctx.now_ + delay;
    const LpId to = cfg_.lp_of_node[dst];
    Lp& lp = lps_[ctx.lp_];
    if (to == ctx.lp_) {
      // Same rule inside an LP as across LPs, so an error does not depend on the partition.
      if (dst != src && delay < min_channel_) {
        throw_too_soon(src, dst, ctx.lp_, to, ctx.now_, delay, min_channel_);
      }
      lp.queue.emplace(at, src, dst, per_node_[src].seq++, kind, payload);
      return;
    }
    if (delay < lookahead_) throw_too_soon(src, dst, ctx.lp_, to, ctx.now_, delay, lookahead_);
    const std::int32_t box = lp.outbox_of[to];
    if (box < 0) throw_no_channel(src, dst, ctx.lp_, to);
    mailboxes_[box].push(round_, E{at, src, dst, per_node_[src].seq++, kind, payload});
    lp.min_sent = std::min(lp.min_sent, at);
    ++lp.sent;
  }

  void emit_fifo(Context<Model>& ctx, std::uint32_t id, Time delay, const Message& msg,
                 const Attachment* att) {
    const NodeId src = ctx.node_;
    if (id >= fifos_.size() || fifos_[id].src != src) throw_not_fifo_source(id, src);
    const Fifo& f = fifos_[id];  // its endpoints and delay: read-only during the run
    if (per_node_[src].seq == kMaxSeq) throw_seq_overflow(src);
    if (delay > kTimeMax - ctx.now_) throw_beyond_horizon(src, f.dst, ctx.now_, delay);
    const LpId to = cfg_.lp_of_node[f.dst];
    if (delay < f.min_delay) throw_too_soon(src, f.dst, ctx.lp_, to, ctx.now_, delay, f.min_delay);
    const Time at = ctx.now_ + delay;
    const std::uint64_t seq = per_node_[src].seq++;
    Lp& lp = lps_[ctx.lp_];
    if (to == ctx.lp_) {
      enqueue_fifo(lp, id, FifoEntry{at, seq, id, att != nullptr, msg}, att);
      return;
    }
    if (delay < lookahead_) throw_too_soon(src, f.dst, ctx.lp_, to, ctx.now_, delay, lookahead_);
    const std::int32_t box = lp.outbox_of[to];
    if (box < 0) throw_no_channel(src, f.dst, ctx.lp_, to);
    fifo_mail_[box].push(round_, FifoEntry{at, seq, id, att != nullptr, msg});
    if (att) attachment_mail_[box].push(round_, *att);
    lp.min_sent = std::min(lp.min_sent, at);
    ++lp.sent;
  }

  // Appends to the channel's queue (on the destination's LP); the first message waiting is
  // the one in the event list.
  void enqueue_fifo(Lp& lp, std::uint32_t id, const FifoEntry& e, const Attachment* att) {
    Fifo& f = fifos_[id];
    if (f.pending.empty()) {
      lp.queue.push_external(e.time, f.src, e.seq, id);
    } else if (e.time < f.pending.back().time) {
      throw_fifo_order(id, e.time, f.pending.back().time);
    }
    f.pending.push(e);
    if (att) f.attachments.push(*att);
  }

  [[noreturn]] void throw_not_fifo_source(std::uint32_t id, NodeId src) const {
    throw CausalityError(
        "node " + std::to_string(src) + " sent on FIFO channel " + std::to_string(id) +
        (id < fifos_.size() ? ", which node " + std::to_string(fifos_[id].src) + " opened"
                            : ", which does not exist"));
  }
  [[noreturn]] void throw_fifo_order(std::uint32_t id, Time at, Time last) const {
    throw CausalityError(
        "FIFO channel " + std::to_string(id) + " (node " + std::to_string(fifos_[id].src) + " -> " +
        std::to_string(fifos_[id].dst) + "): a message for t=" + std::to_string(at) +
        " ps after one for t=" + std::to_string(last) + " ps (a channel delivers in order)");
  }

#ifndef NDEBUG
  void check_channel(const Context<Model>& ctx, NodeId dst, Time delay) const {
    const NodeId src = ctx.node_;
    Time least = kTimeMax;
    for (const auto& [peer, min_delay] : channels_[src]) {
      if (peer == dst) least = std::min(least, min_delay);
    }
    const LpId to = cfg_.lp_of_node[dst];
    if (least == kTimeMax) throw_no_channel(src, dst, ctx.lp_, to);
    if (delay < least) throw_too_soon(src, dst, ctx.lp_, to, ctx.now_, delay, least);
  }
#endif

  void process(Lp& lp, unsigned worker) {
    const auto t0 = Clock::now();
    std::uint64_t merged = 0;
    for (std::uint32_t box : lp.inboxes) {
      merged += mailboxes_[box].drain(round_, [&lp](const E& e) { lp.queue.push(e); });
      if (kFifos && !fifo_mail_.empty()) {
        // A box's attachments come in the order of the messages that carry them.
        std::size_t next = 0;
        const Attachment* atts = nullptr;
        if constexpr (kAttachments) atts = attachment_mail_[box].pending(round_);
        merged += fifo_mail_[box].drain(round_, [&](const FifoEntry& e) {
          enqueue_fifo(lp, e.fifo, e, e.attached ? &atts[next++] : nullptr);
        });
        if constexpr (kAttachments) attachment_mail_[box].drain(round_, [](const Attachment&) {});
      }
    }
    const auto t1 = Clock::now();
    Context<Model> ctx(*this, lp.id);
    lp.min_sent = kTimeMax;
    std::uint64_t n = 0;
    while (lp.queue.next_time() < edge_) {
      // The handler reads the event in its slot; the slot is reused only after it returns.
      const std::uint32_t slot = lp.queue.pop_slot();
      if constexpr (kFifos) {
        if (slot & EventQueue<E>::kExternal) {
          deliver_fifo(lp, ctx, slot & ~EventQueue<E>::kExternal);
          ++n;
          continue;
        }
      }
      const E& ev = lp.queue.at(slot);
      ctx.now_ = ev.time;
      ctx.node_ = ev.dst;
      if (cfg_.trace_hash) {
        std::uint64_t& h = per_node_[ev.dst].hash;
        h = hash_mix(hash_mix(hash_mix(h, static_cast<std::uint64_t>(ev.time)), ev.src), ev.seq);
      }
      model_.handle(ctx, ev);
      lp.queue.release(slot);
      ++n;
    }
    if (n) lp.last_time = std::max(lp.last_time, ctx.now_);
    lp.next = std::min(lp.queue.next_time(), lp.min_sent);
    lp.events += n;
    lp.last_cost = n + merged;
    WorkerTime& w = worker_time_[worker];
    w.merge_s += seconds(t1 - t0);
    w.process_s += seconds(Clock::now() - t1);
  }

  // Hands a channel's first message to the model, then lists the next one. Nothing else writes
  // this channel's queue meanwhile: its source is another node, and a sender on another LP
  // reaches it only through the mailboxes, drained between windows.
  void deliver_fifo(Lp& lp, Context<Model>& ctx, std::uint32_t id) requires kFifos {
    Fifo& f = fifos_[id];
    const FifoEntry& e = f.pending.front();
    ctx.now_ = e.time;
    ctx.node_ = f.dst;
    if (cfg_.trace_hash) {
      std::uint64_t& h = per_node_[f.dst].hash;
      h = hash_mix(hash_mix(hash_mix(h, static_cast<std::uint64_t>(e.time)), f.src), e.seq);
    }
    const bool attached = e.attached;
    if constexpr (kAttachments) {
      model_.receive(ctx, id, e.msg, attached ? &f.attachments.front() : nullptr);
    } else {
      model_.receive(ctx, id, e.msg);
    }
    f.pending.pop();
    if (attached) f.attachments.pop();
    if (!f.pending.empty()) {
      lp.queue.push_external(f.pending.front().time, f.src, f.pending.front().seq, id);
    }
  }

  Model& model_;
  SimConfig cfg_;
  Workers workers_;
  std::vector<Lp> lps_;
  std::vector<char> linked_;  // lps x lps: a channel joins these LPs
  std::vector<Mailbox<E>> mailboxes_;
  std::vector<Mailbox<FifoEntry>> fifo_mail_;         // beside mailboxes_, same index
  std::vector<Mailbox<Attachment>> attachment_mail_;  // beside fifo_mail_, same index
  std::vector<Fifo> fifos_;
  std::vector<NodeState> per_node_;  // by node
#ifndef NDEBUG
  std::vector<std::vector<std::pair<NodeId, Time>>> channels_;  // by node: (peer, min delay)
#endif
  std::vector<std::uint32_t> order_;              // this rank's LPs, heaviest first
  const Ranks* ranks_ = nullptr;                  // an MPI job of more than one rank, else nullptr
  std::vector<int> rank_of_lp_;                   // by LP
  std::vector<std::uint32_t> local_;              // the LPs this rank runs
  std::vector<int> box_rank_;                     // by mailbox: its consumer's rank
  std::vector<std::uint32_t> to_other_ranks_;     // mailboxes this rank fills for another
  std::vector<std::vector<std::byte>> out_, in_;  // by rank: a window's exchange
  double mpi_s_ = 0;                              // in the exchanges and allreduces
  std::uint64_t exchanged_bytes_ = 0;             // sent to other ranks
  std::vector<WorkerTime> worker_time_;           // by worker thread
  Time lookahead_ = kTimeMax;
  Time min_channel_ = kTimeMax;
  Time edge_ = 0;
  std::uint64_t round_ = 0;
  bool ran_ = false;
};

}  // namespace fabricsim::core
