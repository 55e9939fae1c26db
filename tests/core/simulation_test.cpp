#include <catch2/catch.hpp>
#include <vector>

#include "core/simulation.hpp"
#include "tests/core/streams_model.hpp"

using namespace fabricsim::core;
using fabricsim::core::test::run_streams;

namespace {

constexpr Time kL = 100 * kNanosecond;

// Two nodes bounce a token over a channel of delay kL; node 0 also ticks itself every kL, so
// events fall exactly on window edges and tie on time with events from the other LP.
struct PingPong {
  struct Payload {
    std::uint32_t hops;
  };
  enum Kind : EventKind { kToken, kTick };
  struct Seen {
    Time time;
    NodeId node, src;
    EventKind kind;
    bool operator==(const Seen&) const = default;
  };
  std::vector<std::vector<Seen>> seen{2};
  std::vector<char> clock_wrong = std::vector<char>(2, 0);  // per node: handlers run on workers

  void handle(Context<PingPong>& ctx, const Event<Payload>& ev) {
    seen[ctx.node()].push_back({ev.time, ev.dst, ev.src, ev.kind});
    if (ctx.now() != ev.time) clock_wrong[ctx.node()] = 1;
    if (ev.kind == kToken) {
      ctx.send(1 - ctx.node(), kL, kToken, Payload{ev.payload.hops + 1});
    } else {
      ctx.schedule(kL, kTick);
    }
  }
};

struct Run {
  PingPong model;
  KernelStats stats;
};

Run run_pingpong(std::vector<LpId> lps, unsigned threads) {
  Run r;
  SimConfig cfg;
  cfg.nodes = 2;
  cfg.lp_of_node = std::move(lps);
  cfg.threads = threads;
  cfg.end = 10 * kL;
  Simulation<PingPong> sim(r.model, cfg);
  sim.add_channel(0, 1, kL);
  sim.schedule_initial(0, 0, PingPong::kToken, {0});
  sim.schedule_initial(0, 0, PingPong::kTick, {0});
  r.stats = sim.run();
  return r;
}

}  // namespace

TEST_CASE("events on window edges are processed once, in the next window", "[simulation]") {
  const Run two = run_pingpong({0, 1}, 2);
  // Token at 0, L, ..., 9L alternating nodes; ticks on node 0 at 0..9L. Nothing at or after end.
  std::size_t token0 = 0, token1 = 0, ticks = 0;
  for (const auto& s : two.model.seen[0]) (s.kind == PingPong::kTick ? ticks : token0)++;
  token1 = two.model.seen[1].size();
  REQUIRE(ticks == 10);
  REQUIRE(two.model.clock_wrong == std::vector<char>{0, 0});
  REQUIRE(token0 + token1 == 10);
  for (const auto& per_node : two.model.seen) {
    for (const auto& s : per_node) REQUIRE(s.time < 10 * kL);
  }
  REQUIRE(two.stats.events == 20);
  REQUIRE(two.stats.lookahead == kL);
  // Every window is [T, T + L) and holds exactly one instant of events.
  REQUIRE(two.stats.windows == 10);
  REQUIRE(two.stats.mailbox_events == 10);  // 9 crossings delivered + 1 sent past the end
  REQUIRE(two.stats.end_time == 9 * kL);

  // At time 2L node 0 gets the token (from node 1) and its tick (from itself): the order is by
  // source node, the same in one LP as in two.
  const Run one = run_pingpong({0, 0}, 1);
  REQUIRE(one.model.seen == two.model.seen);
  REQUIRE(one.stats.windows == 1);  // one LP: no lookahead, a single window
}

namespace {

struct Misbehave {
  struct Payload {};
  Time delay;
  NodeId target;
  void handle(Context<Misbehave>& ctx, const Event<Payload>&) { ctx.send(target, delay, 0); }
};

std::string error_of(Time delay, NodeId target, unsigned threads) {
  Misbehave m{delay, target};
  SimConfig cfg;
  cfg.nodes = 4;
  cfg.lp_of_node = {0, 0, 1, 1};
  cfg.threads = threads;
  cfg.end = kMillisecond;
  Simulation<Misbehave> sim(m, cfg);
  sim.add_channel(1, 2, kL);
  sim.add_channel(0, 1, kL);
  sim.schedule_initial(1, 5 * kNanosecond, 0);
  try {
    sim.run();
  } catch (const CausalityError& e) {
    return e.what();
  } catch (const HorizonError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("causality violations are errors naming nodes and times", "[simulation]") {
  for (unsigned threads : {1u, 2u}) {
    const std::string past = error_of(-kNanosecond, 0, threads);
    REQUIRE_THAT(past, Catch::Contains("in the past"));
    REQUIRE_THAT(past, Catch::Contains("node 1 at t=5ns"));
    REQUIRE_THAT(past, Catch::Contains("node 0 at t=4ns"));

    const std::string soon = error_of(kL / 2, 2, threads);
    REQUIRE_THAT(soon, Catch::Contains("sooner than the lookahead"));
    REQUIRE_THAT(soon, Catch::Contains("node 1 (LP 0)"));
    REQUIRE_THAT(soon, Catch::Contains("node 2 (LP 1)"));
    REQUIRE_THAT(soon, Catch::Contains("lookahead 100ns"));

    // The same short delay between two nodes of one LP is refused too, so whether a model is
    // wrong does not depend on how it was partitioned.
    REQUIRE_THAT(error_of(kL / 2, 0, threads), Catch::Contains("sooner than the lookahead"));
    REQUIRE(error_of(kL, 2, threads).empty());

    // A delay that would wrap simulated time is an error, not a negative time.
    const std::string wrap = error_of(kTimeMax - kNanosecond, 0, threads);
    REQUIRE_THAT(wrap, Catch::Contains("simulated time would overflow"));
    REQUIRE_THAT(wrap, Catch::Contains("node 1 at t=5ns"));
  }
}

TEST_CASE("simulation set-up errors are reported", "[simulation]") {
  Misbehave m{kL, 0};
  SimConfig cfg;
  cfg.nodes = 3;
  cfg.lp_of_node = {0, 2, 2};  // LP 1 empty
  REQUIRE_THROWS_WITH((Simulation<Misbehave>(m, cfg)), Catch::Contains("LP 1 has no node"));
  cfg.lp_of_node = {0, 1};
  REQUIRE_THROWS_WITH((Simulation<Misbehave>(m, cfg)), Catch::Contains("covers 2 nodes"));
  cfg.lp_of_node = {};
  SimConfig huge;  // node ids beyond what the event order packs
  huge.nodes = (1u << 22) + 1;
  REQUIRE_THROWS_WITH((Simulation<Misbehave>(m, huge)), Catch::Contains("at most 4194304"));
  huge.nodes = 1u << 22;
  huge.lp_of_node.assign(huge.nodes, 0);
  REQUIRE_NOTHROW(Simulation<Misbehave>(m, huge));
  Simulation<Misbehave> sim(m, cfg);
  REQUIRE_THROWS_WITH(sim.add_channel(0, 7, kL), Catch::Contains("node 7 does not exist"));
  REQUIRE_THROWS_WITH(sim.add_channel(0, 1, 0), Catch::Contains("positive minimum delay"));
}

TEST_CASE("FIFO channels deliver exactly as events would, for any partition and thread count",
          "[simulation]") {
  std::uint64_t reference_hash = 0;
  const auto reference = run_streams(false, {0, 0, 0, 0}, 1, &reference_hash);
  REQUIRE(reference[0].size() > 200);
  for (const auto& [lps, threads] : {std::pair<std::vector<LpId>, unsigned>{{0, 0, 0, 0}, 1},
                                     {{0, 1, 0, 1}, 1},
                                     {{0, 1, 2, 3}, 2},
                                     {{0, 0, 1, 1}, 2}}) {
    std::uint64_t hash = 0;
    REQUIRE(run_streams(true, lps, threads, &hash) == reference);
    REQUIRE(hash == reference_hash);
  }
}

namespace {

struct BadFifo {
  struct Payload {};
  struct Message {
    int x;
  };
  Time first, second;  // delays of two messages sent at t = 0
  std::uint32_t channel = 0;
  void handle(Context<BadFifo>& ctx, const Event<Payload>&) {
    ctx.send_fifo(channel, first, Message{1});
    ctx.send_fifo(channel, second, Message{2});
  }
  void receive(Context<BadFifo>&, std::uint32_t, const Message&) {}  // no attachments
};

std::string fifo_error(Time first, Time second, std::uint32_t channel, std::vector<LpId> lps) {
  BadFifo m{first, second, channel};
  SimConfig cfg;
  cfg.nodes = 2;
  cfg.lp_of_node = std::move(lps);
  cfg.end = kMillisecond;
  Simulation<BadFifo> sim(m, cfg);
  sim.add_fifo(0, 1, kL);
  sim.add_fifo(1, 0, kL);
  sim.schedule_initial(0, 0, 0);
  try {
    sim.run();
  } catch (const CausalityError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a FIFO channel refuses messages out of order, too soon, or from the wrong node",
          "[simulation]") {
  for (const std::vector<LpId>& lps : {std::vector<LpId>{0, 0}, std::vector<LpId>{0, 1}}) {
    REQUIRE(fifo_error(2 * kL, 3 * kL, 0, lps).empty());
    REQUIRE_THAT(fifo_error(3 * kL, 2 * kL, 0, lps), Catch::Contains("delivers in order"));
    REQUIRE_THAT(fifo_error(kL / 2, kL, 0, lps), Catch::Contains("sooner than the lookahead"));
    REQUIRE_THAT(fifo_error(kL, kL, 1, lps), Catch::Contains("which node 1 opened"));
    REQUIRE_THAT(fifo_error(kL, kL, 9, lps), Catch::Contains("does not exist"));
  }
}
