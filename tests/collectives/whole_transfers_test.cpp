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
  call.bytes = 64ULL << 20;
  const Plan steps = make_plan(call, layout);
  const Plan whole = whole_transfers(make_plan(call, layout), layout);
  REQUIRE(steps.merged_latency_us < 0);
  REQUIRE(whole.steps.size() == steps.steps.size());
  using Key = std::tuple<Dir, int, int>;  // direction, peer, channel
  for (std::size_t p = 0; p < steps.steps.size(); ++p) {
    std::map<Key, std::pair<std::uint64_t, std::uint64_t>> sum;  // bytes, wire bytes
    for (const Step& s : steps.steps[p]) {
      auto& [b, w] = sum[{s.dir, s.peer, s.channel}];
      b += s.bytes;
      w += s.wire_bytes;
    }
    REQUIRE(whole.steps[p].size() == sum.size());
    for (const Step& s : whole.steps[p]) {
      CHECK(s.deps.empty());
      CHECK(s.seq == 0);
      const auto& [b, w] = sum.at({s.dir, s.peer, s.channel});
      CHECK(s.bytes == b);
      CHECK(s.wire_bytes == w);
    }
  }
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
