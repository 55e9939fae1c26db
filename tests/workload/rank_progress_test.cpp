#include "workload/rank_progress.hpp"

#include <catch2/catch.hpp>

using namespace fabricsim::workload;

namespace {

// A rank's DAG from (kind, stream, deps) triples, in list order.
struct Spec {
  OpKind kind;
  Stream stream;
  std::vector<std::uint32_t> deps;
};

RankDag rank_dag(const std::vector<Spec>& specs) {
  RankDag rd;
  for (const Spec& s : specs) {
    Op op;
    op.kind = s.kind;
    op.stream = s.stream;
    op.deps_begin = static_cast<std::uint32_t>(rd.deps.size());
    rd.deps.insert(rd.deps.end(), s.deps.begin(), s.deps.end());
    op.deps_end = static_cast<std::uint32_t>(rd.deps.size());
    rd.ops.push_back(op);
  }
  return rd;
}

std::vector<bool> straight(const RankDag& rd, bool ready_order = false) {
  RankProgress st;
  st.init(rd, 0, ready_order);
  return runs_straight_on(rd, st);
}

}  // namespace

TEST_CASE("rank progress: which kernels run straight on into the next", "[workload]") {
  constexpr OpKind C = OpKind::Compute, K = OpKind::Collective, R = OpKind::Recv;
  constexpr Stream S = Stream::Compute, T = Stream::Tp;
  const RankDag rd = rank_dag({
      {C, S, {}},      // 0: 2 waits for it too
      {C, S, {0}},     // 1 -> 2: 2 waits for 1 and for 1's own dependency, 0
      {C, S, {1, 0}},  // 2: a collective waits for it
      {K, T, {2}},     // 3
      {C, S, {}},      // 4 -> 5: 5 waits for 4 and for 2, an earlier kernel of the stream
      {C, S, {4, 2}},  // 5: 6 waits for the collective, which may end later
      {C, S, {3}},     // 6: 8 waits for a receive
      {R, S, {}},      // 7: a receive, on no stream
      {C, S, {7}},     // 8 -> 9
      {C, S, {}},      // 9: the last kernel
  });
  const std::vector<bool> s = straight(rd);
  REQUIRE(s ==
          std::vector<bool>{false, true, false, false, true, false, false, false, true, false});
  // Ready order: a stream takes the ready op of lowest issue key, so no kernel is sure to.
  REQUIRE(straight(rd, true) == std::vector<bool>(rd.ops.size(), false));
}
