#include "collectives/whole_transfers.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <tuple>

#include "collectives/tuning.hpp"
#include "tests/collectives/layouts.hpp"

using namespace fabricsim::collectives;

TEST_CASE("whole transfers: one step per connection carrying all of its bytes, none waiting",
          "[collectives][whole]") {
  const RankLayout layout = GENERATE(test::layout_hosts(16, 8), test::layout_hosts(8, 2));
  Call call;
  call.op = GENERATE(Op::AllReduce, Op::AllGather, Op::ReduceScatter);
  call.bytes = GENERATE(64ULL << 20, (64ULL << 20) + 128 * 28);  // channels' shares alike, or not
  const Plan steps = make_plan(call, layout);
  const Plan whole = whole_transfers(make_plan(call, layout), layout);
  REQUIRE(steps.merged_latency_us < 0);
  REQUIRE(whole.steps.size() == steps.steps.size());
  bool folded = false;
  for (std::size_t p = 0; p < steps.steps.size(); ++p) {
    // Per connection (direction, peer, channel): bytes, wire bytes, and its rail.
    std::map<std::tuple<Dir, int, int>, std::tuple<std::uint64_t, std::uint64_t, int>> sum;
    for (const Step& s : steps.steps[p]) {
      auto& [b, w, rail] = sum[{s.dir, s.peer, s.channel}];
      b += s.bytes;
      w += s.wire_bytes;
      rail = s.rail;
    }
    // Inside a host the connections to one peer that carry as many bytes are one step, on the
    // lowest of their channels (Step::copies of them); between hosts each is a step.
    using Alike = std::tuple<Dir, int, std::uint64_t, std::uint64_t, int>;  // ..., channel
    std::map<Alike, int> expected;                                          // -> copies
    std::map<std::tuple<Dir, int, std::uint64_t, std::uint64_t>, int> lowest;
    for (const auto& [key, v] : sum) {
      const auto& [dir, peer, channel] = key;
      const auto& [b, w, rail] = v;
      if (rail != kNoRail) {
        expected[{dir, peer, b, w, channel}] = 1;
        continue;
      }
      auto [it, fresh] = lowest.try_emplace({dir, peer, b, w}, channel);
      if (!fresh) it->second = std::min(it->second, channel);
    }
    for (const auto& [key, v] : sum) {
      const auto& [dir, peer, channel] = key;
      const auto& [b, w, rail] = v;
      if (rail == kNoRail) ++expected[{dir, peer, b, w, lowest.at({dir, peer, b, w})}];
    }
    std::map<Alike, int> got;
    for (const Step& s : whole.steps[p]) {
      CHECK(s.deps.empty());
      CHECK(s.seq == 0);
      folded = folded || s.copies > 1;
      CHECK(got.emplace(Alike{s.dir, s.peer, s.bytes, s.wire_bytes, s.channel}, s.copies).second);
    }
    REQUIRE(got == expected);
  }
  CHECK(folded);
  // The latency is NCCL's model's for the plan's algorithm and protocol.
  const TuningInput in{call.op, call.bytes, steps.n_ranks, layout.ranks.back().host + 1, layout.hw};
  for (const AlgoTime& t : algo_times(in)) {
    if (t.algo == whole.algo && t.proto == whole.proto) {
      CHECK(whole.merged_latency_us == t.latency_us);
    }
  }
  CHECK(whole.merged_latency_us > 0);
}

TEST_CASE("whole transfers: point-to-point plans keep their per-send latency",
          "[collectives][whole]") {
  const RankLayout layout = test::layout_hosts(4, 2);
  Call call;
  call.op = Op::AllToAll;
  call.bytes = 4ULL << 20;
  const Plan whole = whole_transfers(make_plan(call, layout), layout);
  CHECK(whole.algo == Algo::P2P);
  CHECK(whole.merged_latency_us == 0);
}

TEST_CASE("whole transfers: built directly, the plan is the merged step plan",
          "[collectives][whole]") {
  // make_plan(..., whole) never holds the step plan; it must give what merging it gives, step
  // for step, for every algorithm and protocol the builders have.
  struct Case {
    RankLayout layout;
    Op op;
    Algo algo;
    Proto proto;
    std::uint64_t bytes;
  };
  const Case c = GENERATE(
      Case{test::layout_hosts(16, 8), Op::AllReduce, Algo::Ring, Proto::LL128, 3ULL << 20},
      Case{test::layout_hosts(16, 8), Op::AllReduce, Algo::Ring, Proto::Simple, 64ULL << 20},
      Case{test::layout_hosts(8, 2), Op::AllGather, Algo::Ring, Proto::LL, 1ULL << 20},
      Case{test::layout_hosts(8, 2), Op::ReduceScatter, Algo::Ring, Proto::Simple, 5ULL << 20},
      Case{test::layout_hosts(32, 8), Op::AllReduce, Algo::Tree, Proto::LL128, 7ULL << 20},
      Case{test::layout_hosts(16, 8, true), Op::AllReduce, Algo::NvlsTree, Proto::Simple,
           32ULL << 20},
      Case{test::layout_one_host(8, true), Op::AllReduce, Algo::Nvls, Proto::Simple, 16ULL << 20},
      Case{test::layout_hosts(8, 4), Op::Broadcast, Algo::Ring, Proto::Simple, 9ULL << 20},
      Case{test::layout_hosts(8, 4), Op::AllToAll, Algo::Auto, Proto::Auto, 8ULL << 20});
  Call call;
  call.op = c.op;
  call.algo = c.algo;
  call.proto = c.proto;
  call.bytes = c.bytes;
  for (unsigned threads : {1u, 3u}) {
    CAPTURE(name(c.op), name(c.algo), name(c.proto), threads);
    const Plan merged = whole_transfers(make_plan(call, c.layout, threads), c.layout);
    const Plan direct = whole_transfers(make_plan(call, c.layout, threads, ~0ULL, true), c.layout);
    CHECK(direct.algo == merged.algo);
    CHECK(direct.proto == merged.proto);
    CHECK(direct.channels == merged.channels);
    CHECK(direct.merged_latency_us == merged.merged_latency_us);
    CHECK(direct.credits == merged.credits);
    CHECK(direct.slice_bytes == merged.slice_bytes);
    CHECK(direct.chunks.size() == merged.chunks.size());
    CHECK(direct.switch_host == merged.switch_host);
    REQUIRE(direct.steps.size() == merged.steps.size());
    for (std::size_t p = 0; p < merged.steps.size(); ++p) {
      REQUIRE(direct.steps[p].size() == merged.steps[p].size());
      for (std::size_t i = 0; i < merged.steps[p].size(); ++i) {
        const Step& a = direct.steps[p][i];
        const Step& b = merged.steps[p][i];
        CHECK((a.peer == b.peer && a.dir == b.dir && a.combine == b.combine && a.slice == b.slice &&
               a.channel == b.channel && a.chunk == b.chunk && a.bytes == b.bytes &&
               a.wire_bytes == b.wire_bytes && a.seq == b.seq && a.rail == b.rail &&
               a.deps.empty() && b.deps.empty()));
      }
    }
  }
}
