#include "workload/critical_path.hpp"

#include <catch2/catch.hpp>

using namespace fabricsim;
using namespace fabricsim::workload;

namespace {

Op compute_op(Phase phase) {
  Op op;
  op.kind = OpKind::Compute;
  op.stream = Stream::Compute;
  op.phase = phase;
  return op;
}

Op comm_op(OpKind kind, Stream stream, std::uint32_t comm, std::uint32_t dep) {
  Op op;
  op.kind = kind;
  op.stream = stream;
  op.item = comm;
  op.deps_begin = dep;
  op.deps_end = dep + 1;
  return op;
}

}  // namespace

TEST_CASE("critical path: a collective waits for its last member, whose compute is the cause",
          "[workload][critical]") {
  // Rank 0 computes 10, rank 1 computes 30; both then all-reduce, which ends at 40 on both.
  Dag dag;
  dag.comms.push_back(Comm{});
  dag.groups.push_back({0, 1});
  dag.ranks.resize(2);
  for (RankDag& rd : dag.ranks) {
    rd.ops = {compute_op(Phase::Backward), comm_op(OpKind::Collective, Stream::Dp, 0, 0)};
    rd.deps = {0};
  }
  TrainingTimeline t;
  t.ops = {{{0, 10}, {10, 40}}, {{0, 30}, {30, 40}}};
  t.iteration = 40;
  const CriticalPath cp = critical_path(dag, t);
  REQUIRE(cp.steps.size() == 2);
  // Rank 1's compute, then the all-reduce from the moment rank 1 joined it.
  CHECK(cp.steps[0].rank == 1);
  CHECK(cp.steps[0].from == 0);
  CHECK(cp.steps[0].to == 30);
  CHECK(cp.steps[1].from == 30);
  CHECK(cp.steps[1].to == 40);
  CHECK(cp.compute[static_cast<int>(Phase::Backward)] == 30);
  CHECK(cp.comm[static_cast<int>(Stream::Dp)] == 10);
  CHECK(cp.idle == 0);
  CHECK(cp.ranks == std::vector<std::uint32_t>{1, 0});
}

TEST_CASE("critical path: a receive waits for its send; a gap before an op is idle",
          "[workload][critical]") {
  // Rank 0: forward 0-20, send 20-25. Rank 1: receive posted at 0, data at 25; forward from 27
  // (2 idle: nothing held it after the data came).
  Dag dag;
  dag.comms.push_back(Comm{collectives::Op::SendRecv, 100, 0});
  dag.groups.push_back({0, 1});
  dag.ranks.resize(2);
  dag.ranks[0].ops = {compute_op(Phase::Forward), comm_op(OpKind::Send, Stream::PpSend, 0, 0)};
  dag.ranks[0].deps = {0};
  Op recv = comm_op(OpKind::Recv, Stream::PpRecv, 0, 0);
  recv.deps_end = 0;  // no dependencies
  Op fwd = compute_op(Phase::Forward);
  fwd.deps_begin = 0;
  fwd.deps_end = 1;
  dag.ranks[1].ops = {recv, fwd};
  dag.ranks[1].deps = {0};
  TrainingTimeline t;
  t.ops = {{{0, 20}, {20, 25}}, {{0, 25}, {27, 50}}};
  t.iteration = 50;
  const CriticalPath cp = critical_path(dag, t);
  REQUIRE(cp.steps.size() == 3);
  CHECK(cp.steps[0].rank == 0);  // rank 0's forward, 0-20
  CHECK(cp.steps[0].to == 20);
  CHECK(cp.steps[1].rank == 1);  // the receive from when the send began
  CHECK(cp.steps[1].from == 20);
  CHECK(cp.steps[1].to == 25);
  CHECK(cp.steps[2].from == 27);
  CHECK(cp.idle == 2);
  CHECK(cp.compute[static_cast<int>(Phase::Forward)] == 43);
  CHECK(cp.comm[static_cast<int>(Stream::PpRecv)] == 5);
}

TEST_CASE("critical path: ranks alike share their stream order, and the path is the same",
          "[workload][critical]") {
  // Two kernels on one stream per rank, the second held only by the first; rank 1 is slower.
  Dag dag;
  dag.ranks.resize(2);
  for (RankDag& rd : dag.ranks) rd.ops = {compute_op(Phase::Forward), compute_op(Phase::Backward)};
  TrainingTimeline t;
  t.ops = {{{0, 10}, {10, 20}}, {{0, 30}, {30, 50}}};
  t.iteration = 50;
  const CriticalPath found = critical_path(dag, t);
  dag.same_structure_as = {0, 0};
  const CriticalPath said = critical_path(dag, t);
  for (const CriticalPath* cp : {&found, &said}) {
    REQUIRE(cp->steps.size() == 2);
    CHECK(cp->steps[0].rank == 1);
    CHECK(cp->steps[0].op == 0);
    CHECK(cp->steps[1].op == 1);
    CHECK(cp->steps[1].from == 30);
    CHECK(cp->compute[static_cast<int>(Phase::Backward)] == 20);
    CHECK(cp->idle == 0);
  }
}
