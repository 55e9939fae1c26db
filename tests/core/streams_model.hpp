#pragma once
// A test model of the kernel's FIFO channels and attachments (tests/core/simulation_test.cpp,
// and tests/core/ranks_test.cpp over MPI ranks).
#include <catch2/catch.hpp>
#include <utility>
#include <vector>

#include "core/simulation.hpp"

namespace fabricsim::core::test {

inline constexpr Time kStreamDelay = 100 * kNanosecond;

// Four nodes in a ring; each sends a stream of messages to the next, with delays that vary
// but never let a message overtake the one before it, and ticks itself. With `fifo` the
// messages travel on FIFO channels, otherwise as plain events: the kernel must deliver them in
// exactly the same order either way, for any partition and thread count. On FIFO channels
// every third message carries an attachment, which must arrive with its own message.
struct Streams {
  struct Payload {
    std::uint32_t n;
  };
  struct Message {
    std::uint32_t n;
    std::uint32_t pad[7];  // a message larger than an event's payload
  };
  struct Attachment {
    std::uint64_t check;
  };
  static std::uint64_t check_of(std::uint32_t n) { return 0x9e3779b97f4a7c15ULL * (n + 1); }
  enum Kind : EventKind { kTick, kMsg };
  static constexpr NodeId kNodes = 4;
  bool fifo = false;
  std::vector<std::uint32_t> fifo_of = {0, 1, 2, 3};  // node -> its channel to the next node
  std::vector<std::vector<std::pair<Time, std::uint32_t>>> got{kNodes};
  std::vector<Time> last_arrival = std::vector<Time>(kNodes, 0);    // per sender
  std::vector<int> attachment_wrong = std::vector<int>(kNodes, 0);  // per receiver

  void emit(Context<Streams>& ctx, std::uint32_t n) {
    // Delay kStreamDelay plus a jitter, but never before the previous message of this stream.
    const Time at = std::max(ctx.now() + kStreamDelay + Time(ctx.rng().below(5)) * kNanosecond,
                             last_arrival[ctx.node()]);
    last_arrival[ctx.node()] = at;
    const NodeId to = (ctx.node() + 1) % kNodes;
    if (fifo) {
      const Attachment att{check_of(n)};
      ctx.send_fifo(fifo_of[ctx.node()], at - ctx.now(), Message{n, {}},
                    n % 3 == 0 ? &att : nullptr);
    } else {
      ctx.send(to, at - ctx.now(), kMsg, Payload{n});
    }
  }
  void handle(Context<Streams>& ctx, const Event<Payload>& ev) {
    if (ev.kind == kMsg) {
      got[ctx.node()].push_back({ctx.now(), ev.payload.n});
      if (ev.payload.n < 200) emit(ctx, ev.payload.n + 1);
      return;
    }
    got[ctx.node()].push_back({ctx.now(), ~0u});
    emit(ctx, 4 * ev.payload.n);  // starts a chain of messages, each answered by the next
    if (ev.payload.n < 50) ctx.schedule(3 * kStreamDelay / 2, kTick, Payload{ev.payload.n + 1});
  }
  void receive(Context<Streams>& ctx, std::uint32_t, const Message& m, const Attachment* att) {
    if ((att != nullptr) != (m.n % 3 == 0) || (att && att->check != check_of(m.n))) {
      ++attachment_wrong[ctx.node()];
    }
    handle(ctx, Event<Payload>{ctx.now(), 0, ctx.node(), 0, kMsg, Payload{m.n}});
  }
};

// What every node received, in order (under MPI ranks: of this rank's nodes only); `hash`: the
// run's trace hash (the whole job's).
inline std::vector<std::vector<std::pair<Time, std::uint32_t>>> run_streams(
    bool fifo, std::vector<LpId> lps, unsigned threads, std::uint64_t* hash,
    const Ranks* ranks = nullptr) {
  Streams m;
  m.fifo = fifo;
  SimConfig cfg;
  cfg.nodes = Streams::kNodes;
  cfg.lp_of_node = std::move(lps);
  cfg.threads = threads;
  cfg.trace_hash = true;
  cfg.ranks = ranks;
  Simulation<Streams> sim(m, cfg);
  for (NodeId v = 0; v < Streams::kNodes; ++v) {
    const NodeId to = (v + 1) % Streams::kNodes;
    if (fifo) {
      REQUIRE(sim.add_fifo(v, to, kStreamDelay) == v);
    } else {
      sim.add_channel(v, to, kStreamDelay);
    }
    sim.schedule_initial(v, 0, Streams::kTick, {0});
  }
  sim.run();
  *hash = sim.trace_hash();
  REQUIRE(m.attachment_wrong == std::vector<int>(Streams::kNodes, 0));
  return m.got;
}

}  // namespace fabricsim::core::test
