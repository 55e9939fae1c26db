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
  return runs_straight_on(rd, rank_shape(rd, 0), ready_order);
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

TEST_CASE("rank progress: which kernels run into the communication after them", "[workload]") {
  constexpr OpKind C = OpKind::Compute, K = OpKind::Collective, R = OpKind::Recv, P = OpKind::Send;
  constexpr Stream S = Stream::Compute, T = Stream::Tp, Q = Stream::PpSend;
  const RankDag rd = rank_dag({
      {C, S, {}},    // 0 -> 1: the collective waits for it alone; the stream's next waits for 1
      {K, T, {0}},   // 1
      {C, S, {1}},   // 2: two ops wait for it
      {K, T, {2}},   // 3
      {C, S, {2}},   // 4: its stream's next (5) waits for something else than the collective
      {K, T, {4}},   // 5
      {C, S, {}},    // 6: waited for by a kernel, not a communication
      {C, S, {6}},   // 7 -> 8: a send; the stream's next waits for it
      {P, Q, {7}},   // 8
      {C, S, {8}},   // 9 -> 10: the collective is its stream's next
      {K, S, {9}},   // 10
      {C, S, {}},    // 11: a receive waits for it
      {R, S, {11}},  // 12
      {C, S, {12}},  // 13 -> 14: the stream's last op
      {K, T, {13}},  // 14
  });
  const std::vector<bool> into = runs_into_comm(rd, rank_shape(rd, 0), false);
  REQUIRE(into == std::vector<bool>{true, false, false, false, false, false, false, true, false,
                                    true, false, false, false, true, false});
  REQUIRE(runs_into_comm(rd, rank_shape(rd, 0), true) == std::vector<bool>(rd.ops.size(), false));
}

TEST_CASE("rank shapes: ranks alike in kinds, streams, dependencies and kernels share one",
          "[workload]") {
  constexpr OpKind C = OpKind::Compute, K = OpKind::Collective;
  constexpr Stream S = Stream::Compute, T = Stream::Tp;
  Dag dag;
  dag.ranks.push_back(rank_dag({{C, S, {}}, {K, T, {0}}, {C, S, {1}}}));
  dag.ranks.push_back(rank_dag({{C, S, {}}, {K, T, {0}}, {C, S, {0}}}));  // another dependency
  dag.ranks.push_back(rank_dag({{C, S, {}}, {K, T, {0}}, {C, S, {1}}}));
  dag.ranks.push_back(rank_dag({{C, S, {}}, {K, S, {0}}, {C, S, {1}}}));  // another stream
  dag.ranks.push_back(rank_dag({{C, S, {}}, {K, T, {0}}}));               // fewer ops
  dag.ranks.push_back(rank_dag({{C, S, {}}, {K, T, {0}}, {C, S, {0}}}));
  dag.ranks.push_back(rank_dag({{C, S, {}}, {K, T, {0}}, {C, S, {1}}}));
  dag.ranks[2].ops[1].item = 7;  // which communication an op joins is the rank's own
  dag.ranks[6].ops[2].item = 3;  // its kernels are the shape's
  for (const unsigned threads : {1u, 2u}) {
    const RankShapes s = rank_shapes(dag, threads);
    REQUIRE(s.of_rank == std::vector<std::uint32_t>{0, 1, 0, 2, 3, 1, 4});
    REQUIRE(s.first_rank == std::vector<std::uint32_t>{0, 1, 3, 4, 6});
    REQUIRE(s.shapes.size() == 5);
    for (std::uint32_t r = 0; r < dag.ranks.size(); ++r) {
      const RankShape own = rank_shape(dag.ranks[r], r);
      const RankShape& shared = s.shapes[s.of_rank[r]];
      CHECK(shared.dep_counts == own.dep_counts);
      CHECK(shared.dependents_begin == own.dependents_begin);
      CHECK(shared.dependents == own.dependents);
      CHECK(shared.stream_ops == own.stream_ops);
    }
  }
  // Each rank keeps its own counts.
  RankProgress a, b;
  const RankShapes s = rank_shapes(dag, 1);
  a.init(dag.ranks[0], s.shapes[0], 0);
  b.init(dag.ranks[2], s.shapes[0], 2);
  --a.waiting[1];
  CHECK(a.waiting == std::vector<std::uint32_t>{0, 0, 1});
  CHECK(b.waiting == std::vector<std::uint32_t>{0, 1, 1});
}

TEST_CASE("rank shapes: a rank the DAG says is alike an earlier one takes its shape",
          "[workload]") {
  constexpr OpKind C = OpKind::Compute, K = OpKind::Collective;
  constexpr Stream S = Stream::Compute, T = Stream::Tp;
  Dag dag;
  dag.ranks.push_back(rank_dag({{C, S, {}}, {K, T, {0}}, {C, S, {1}}}));
  dag.ranks.push_back(rank_dag({{C, S, {}}, {K, T, {0}}, {C, S, {0}}}));
  dag.ranks.push_back(rank_dag({{C, S, {}}, {K, T, {0}}, {C, S, {1}}}));
  dag.ranks.push_back(rank_dag({{C, S, {}}, {K, T, {0}}, {C, S, {0}}}));
  // Rank 3 is said to be rank 1's; rank 2 is left to be found alike rank 0.
  dag.same_structure_as = {0, 1, 2, 1};
  for (const unsigned threads : {1u, 2u}) {
    const RankShapes s = rank_shapes(dag, threads);
    REQUIRE(s.of_rank == std::vector<std::uint32_t>{0, 1, 0, 1});
    REQUIRE(s.first_rank == std::vector<std::uint32_t>{0, 1});
  }
  dag.same_structure_as = {0, 3, 2, 3};
  REQUIRE_THROWS_WITH(rank_shapes(dag, 1), "training DAG: rank 1 is said to be alike a later rank");
  dag.same_structure_as = {0, 1};
  REQUIRE_THROWS_WITH(rank_shapes(dag, 1),
                      "training DAG: same_structure_as needs one entry per rank");
}

TEST_CASE("rank shapes: an op that depends on a later one is named", "[workload]") {
  constexpr OpKind C = OpKind::Compute;
  constexpr Stream S = Stream::Compute;
  Dag dag;
  dag.ranks.push_back(rank_dag({{C, S, {}}, {C, S, {0}}}));
  dag.ranks.push_back(rank_dag({{C, S, {1}}, {C, S, {}}}));
  REQUIRE_THROWS_WITH(rank_shapes(dag, 2), "training DAG: rank 1 op 0 depends on a later op");
}
