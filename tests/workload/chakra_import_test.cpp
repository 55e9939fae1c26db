#include "workload/chakra_import.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "workload/training_exec.hpp"

using namespace fabricsim;
using namespace fabricsim::workload;
using Type = ChakraNode::Type;

namespace {

// What `read` says when it refuses `bytes` as file `file` ("no error" if it does not).
template <typename Reader>
std::string refusal(Reader read, const std::string& bytes, const std::string& file) {
  std::istringstream in(bytes);
  try {
    read(in, file);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

ChakraNode kernel_node(std::uint64_t id, std::uint64_t us, std::vector<std::uint64_t> deps = {},
                       std::string name = "aten::mm") {
  ChakraNode n;
  n.id = id;
  n.name = std::move(name);
  n.type = Type::Compute;
  n.duration_us = us;
  n.data_deps = std::move(deps);
  return n;
}

ChakraNode collective(std::uint64_t id, int type, std::int64_t bytes,
                      std::vector<std::uint64_t> deps = {}, std::string pg = "") {
  ChakraNode n;
  n.id = id;
  n.name = "nccl:collective";
  n.type = Type::Collective;
  n.comm_type = type;
  n.comm_size = bytes;
  n.pg_name = std::move(pg);
  n.data_deps = std::move(deps);
  return n;
}

ChakraNode transfer(Type type, std::uint64_t id, int peer, std::int64_t bytes,
                    std::vector<std::uint64_t> deps = {}, std::int64_t tag = 0) {
  ChakraNode n;
  n.id = id;
  n.name = type == Type::Send ? "nccl:send" : "nccl:recv";
  n.type = type;
  (type == Type::Send ? n.comm_dst : n.comm_src) = peer;
  n.comm_size = bytes;
  n.comm_tag = tag;
  n.data_deps = std::move(deps);
  return n;
}

constexpr int kAllReduce = 0, kReduce = 1, kAllGather = 2, kGather = 3, kBroadcast = 5,
              kAllToAll = 6, kReduceScatter = 7, kBarrier = 9;

std::vector<ChakraTrace> traces(std::vector<std::vector<ChakraNode>> ranks) {
  std::vector<ChakraTrace> out;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    out.push_back(ChakraTrace{"t." + std::to_string(r) + ".et", std::move(ranks[r])});
  }
  return out;
}

// The message of the std::invalid_argument that building throws.
std::string build_error(const std::vector<ChakraTrace>& t, const ChakraGroups& groups = {}) {
  try {
    build_chakra_dag(t, groups);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

std::vector<std::uint32_t> deps_of(const Dag& dag, int r, int op) {
  const RankDag& rd = dag.ranks[r];
  const Op& o = rd.ops[op];
  return {rd.deps.begin() + o.deps_begin, rd.deps.begin() + o.deps_end};
}

std::string name_of(const Op& op) {
  return kOpNames[op.name];
}

}  // namespace

TEST_CASE("chakra: a trace written is read back node for node, in either form", "[chakra]") {
  ChakraTrace t{"r.0.et", {}};
  t.nodes.push_back(kernel_node(7, 12, {}, "aten::addmm"));
  t.nodes.back().cpu = true;
  t.nodes.push_back(collective(9, kAllGather, 1 << 20, {7}, "3"));
  t.nodes.push_back(transfer(Type::Send, 11, 2, 4096, {9}, 5));
  ChakraNode meta;
  meta.id = 12;
  meta.type = Type::Metadata;
  meta.inputs = R"(['[{"pg_name": "3", "ranks": [0, 1]}]'])";
  t.nodes.push_back(meta);
  const bool json = GENERATE(false, true);
  std::stringstream s;
  if (json) {
    write_chakra_json_trace(s, t);
  } else {
    write_chakra_trace(s, t);
  }
  const ChakraTrace back =
      json ? read_chakra_json_trace(s, "r.0.json") : read_chakra_trace(s, "r.0.et");
  REQUIRE(back.nodes.size() == t.nodes.size());
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const ChakraNode& a = t.nodes[i];
    const ChakraNode& b = back.nodes[i];
    CHECK(a.id == b.id);
    CHECK(a.name == b.name);
    CHECK(a.type == b.type);
    CHECK(a.data_deps == b.data_deps);
    CHECK(a.duration_us == b.duration_us);
    CHECK(a.cpu == b.cpu);
    CHECK(a.comm_type == b.comm_type);
    CHECK(a.comm_size == b.comm_size);
    CHECK(a.comm_src == b.comm_src);
    CHECK(a.comm_dst == b.comm_dst);
    CHECK(a.comm_tag == b.comm_tag);
    CHECK(a.pg_name == b.pg_name);
    CHECK(a.inputs == b.inputs);
  }
}

TEST_CASE("chakra: what is not a trace is refused with the file's name", "[chakra]") {
  const auto error = [](const std::string& bytes) {
    return refusal(read_chakra_trace, bytes, "x.0.et");
  };
  CHECK_THAT(error(""), Catch::StartsWith("x.0.et: empty"));
  CHECK_THAT(error("HYBRID_TRANSFORMER model_parallel_NPU_group: 8\n"),
             Catch::StartsWith("x.0.et: not a Chakra execution trace"));
  // A valid trace cut short inside its second message.
  ChakraTrace t{"x.0.et", {kernel_node(1, 5), kernel_node(2, 5, {1})}};
  std::stringstream s;
  write_chakra_trace(s, t);
  std::string bytes = s.str();
  bytes.resize(bytes.size() - 3);
  CHECK_THAT(error(bytes), Catch::Contains("message 2 does not decode"));
}

TEST_CASE("chakra: the jsonizer's JSON is read with protobuf's JSON mapping", "[chakra]") {
  // As Chakra's jsonizer prints a trace (MessageToJson, one object after another): camelCase
  // names, 64-bit integers as strings, enums by name, and fields this importer does not read.
  const std::string text = R"({
  "version": "0.0.4",
  "attr": [{"name": "schema", "stringVal": "1.0.2-chakra.0.0.4"}]
}{
  "id": "216",
  "name": "aten::mm",
  "type": "COMP_NODE",
  "ctrlDeps": ["3"],
  "dataDeps": ["215"],
  "startTimeMicros": "100",
  "durationMicros": "318",
  "inputs": {"values": "[]", "shapes": "[[4, 4]]", "types": "[]"},
  "attr": [{"name": "is_cpu_op", "boolVal": true}, {"name": "rf_id", "int64Val": "7"},
           {"name": "fw_parent", "int64List": {"values": ["1", "2"]}}]
}
{"id": 217, "name": "c10d::allreduce_", "type": "COMM_COLL_NODE", "data_deps": [216],
 "attr": [{"name": "comm_type", "int64Val": "0"}, {"name": "comm_size", "int64Val": "1048576"},
          {"name": "pg_name", "stringVal": "0"}]}
)";
  std::istringstream in(text);
  const ChakraTrace t = read_chakra_json_trace(in, "r.0.json");
  REQUIRE(t.nodes.size() == 2);
  CHECK(t.nodes[0].id == 216);
  CHECK(t.nodes[0].type == Type::Compute);
  CHECK(t.nodes[0].data_deps == std::vector<std::uint64_t>{215});
  CHECK(t.nodes[0].duration_us == 318);
  CHECK(t.nodes[0].cpu);
  CHECK(t.nodes[1].type == Type::Collective);
  CHECK(t.nodes[1].data_deps == std::vector<std::uint64_t>{216});
  CHECK(t.nodes[1].comm_type == kAllReduce);
  CHECK(t.nodes[1].comm_size == 1 << 20);
  CHECK(t.nodes[1].pg_name == "0");

  const auto error = [](const std::string& bytes) {
    return refusal(read_chakra_json_trace, bytes, "x.0.json");
  };
  CHECK_THAT(error("  \n"), Catch::StartsWith("x.0.json: empty"));
  CHECK_THAT(error(R"({"version": "0.0.4"} {"id": "1", "type": "COMP_NODE")"),
             Catch::StartsWith("x.0.json: object 2 is not valid JSON"));
  CHECK_THAT(error(R"([1, 2])"),
             Catch::StartsWith("x.0.json: the metadata object is not a JSON object"));
  CHECK_THAT(error(R"({"version": "0.0.4"} {"id": "1", "type": "NO_SUCH_NODE"})"),
             Catch::StartsWith("x.0.json: object 2 is not a Chakra Node"));
  CHECK_THAT(error(R"({"version": "0.0.4"} {"id": "x"})"),
             Catch::StartsWith("x.0.json: object 2 is not a Chakra Node"));
  // Any JSON object would pass for metadata whose fields are all unknown: it needs its version.
  CHECK_THAT(error(R"({"foo": 1})"), Catch::Contains("not a Chakra trace: its first object has no "
                                                     "\"version\""));
  // Metadata alone is a trace of no node: nothing to simulate, not an iteration of 0 s.
  std::istringstream header(R"({"version": "0.0.4"})");
  const ChakraTrace empty = read_chakra_json_trace(header, "x.0.json");
  CHECK_THROWS_WITH(build_chakra_dag({empty, empty}, {}),
                    Catch::Contains("x.0.json: no node in any rank's trace"));
}

TEST_CASE("chakra: nodes become ops on their streams, in dependency order", "[chakra]") {
  // Rank 0 lists its nodes out of order, with a metadata node in the chain.
  ChakraNode meta;
  meta.id = 3;
  meta.type = Type::Metadata;
  meta.data_deps = {2};
  std::vector<ChakraNode> r0 = {collective(4, kAllReduce, 1 << 20, {3}), kernel_node(2, 10), meta,
                                kernel_node(5, 0, {4}, "MmBackward0")};
  r0.back().data_deps.push_back(2);
  ChakraNode cpu = kernel_node(6, 3, {}, "Optimizer.step#SGD.step");
  cpu.cpu = true;
  r0.push_back(cpu);
  r0[0].data_deps.push_back(2);
  r0.push_back(kernel_node(7, 1));
  std::vector<ChakraNode> r1 = {kernel_node(2, 10), collective(4, kAllReduce, 1 << 20, {2})};
  const Dag dag = build_chakra_dag(traces({r0, r1}), {});

  const RankDag& d0 = dag.ranks[0];
  // Topological, lowest id first among the free: 2, (3 dropped), 4, 5, 6, 7.
  REQUIRE(d0.ops.size() == 5);
  CHECK(d0.ops[0].kind == OpKind::Compute);
  CHECK(d0.ops[0].stream == Stream::Compute);
  CHECK(dag.kernels[d0.ops[0].item].given_ps == 10'000'000);
  CHECK(d0.ops[1].kind == OpKind::Collective);
  CHECK(d0.ops[1].stream == Stream::Comm);
  CHECK(name_of(d0.ops[1]) == "allreduce");
  CHECK(deps_of(dag, 0, 1) == std::vector<std::uint32_t>{0});  // through the metadata node
  CHECK(deps_of(dag, 0, 2) == std::vector<std::uint32_t>{0, 1});
  CHECK(dag.kernels[d0.ops[2].item].given_ps == 1000);  // 0 us runs for 1 ns, as in ASTRA-sim
  CHECK(d0.ops[2].phase == Phase::Backward);
  CHECK(d0.ops[3].stream == Stream::Cpu);
  CHECK(name_of(d0.ops[3]) == "cpu_op");
  CHECK(d0.ops[3].phase == Phase::Optimizer);
  CHECK(deps_of(dag, 0, 4).empty());

  REQUIRE(dag.comms.size() == 1);
  CHECK(dag.comms[0].op == collectives::Op::AllReduce);
  CHECK(dag.comms[0].bytes == 1u << 20);
  CHECK(dag.groups[dag.comms[0].group] == std::vector<int>{0, 1});
  CHECK(dag.ranks[1].ops[1].item == 0);
}

TEST_CASE("chakra: collective sizes as ASTRA-sim reads them", "[chakra]") {
  const auto bytes = [](int type, std::int64_t size) {
    std::vector<std::vector<ChakraNode>> r(4, {collective(1, type, size)});
    const Dag dag = build_chakra_dag(traces(r), {});
    return dag.comms.empty() ? std::uint64_t{0} : dag.comms[0].bytes;
  };
  CHECK(bytes(kAllReduce, 1000) == 1000);
  CHECK(bytes(kAllGather, 1000) == 4000);  // comm_size is one rank's part
  CHECK(bytes(kReduceScatter, 1002) == 1000);
  CHECK(bytes(kAllToAll, 1003) == 1000);
  CHECK(bytes(kBroadcast, 1003) == 1003);
  CHECK(bytes(kReduce, 1003) == 1003);
  CHECK(bytes(kAllReduce, 0) == 0);  // moves nothing: left out
}

TEST_CASE("chakra: process groups from a communicator file and from metadata nodes", "[chakra]") {
  ChakraNode meta;
  meta.id = 1;
  meta.type = Type::Metadata;
  meta.inputs = R"(['[{"pg_name": "7", "ranks": [1, 3]}, {"pg_name": "8", "ranks": []}]'])";
  std::vector<std::vector<ChakraNode>> r(4);
  for (int k = 0; k < 4; ++k) {
    r[k] = {meta, collective(2, kAllReduce, 64, {}, k % 2 ? "7" : "5"),
            collective(3, kAllReduce, 64, {2}, "8")};
  }
  std::istringstream file(R"({"5": [0, 2]})");
  const ChakraGroups groups = read_chakra_groups(file, "groups.json");
  const Dag dag = build_chakra_dag(traces(r), groups);
  REQUIRE(dag.comms.size() == 3);
  std::vector<std::vector<int>> seen;
  for (const Comm& c : dag.comms) seen.push_back(dag.groups[c.group]);
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<std::vector<int>>{{0, 1, 2, 3}, {0, 2}, {1, 3}});

  CHECK_THAT(build_error(traces(r)), Catch::Contains("process group '5' is defined neither"));
  r[0][1].pg_name = "7";
  CHECK_THAT(build_error(traces(r), groups),
             Catch::Contains("t.0.et: node 2: rank 0 is not in its process group '7'"));
  std::istringstream bad(R"({"5": [0, "x"]})");
  CHECK_THROWS_WITH(read_chakra_groups(bad, "g.json"), Catch::StartsWith("g.json: group '5'"));
}

TEST_CASE("chakra: collectives match by order on their group, or the trace is refused",
          "[chakra]") {
  std::vector<std::vector<ChakraNode>> r = {
      {collective(1, kAllReduce, 64), collective(2, kAllGather, 64, {1})},
      {collective(1, kAllReduce, 64), collective(2, kAllGather, 32, {1})}};
  CHECK_THAT(build_error(traces(r)),
             Catch::Contains("t.1.et: node 2: collective 2 on its group is comm_type 2 of 32 "
                             "bytes, but t.0.et node 2"));
  r[1].pop_back();
  CHECK_THAT(build_error(traces(r)),
             Catch::Contains("rank 0 issues 2 on process group '0', rank 1 issues 1"));
  r[1] = {collective(1, kBarrier, 0)};
  CHECK_THAT(build_error(traces(r)), Catch::Contains("comm_type BARRIER is not supported"));
  r[1] = {collective(1, kGather, 0)};
  CHECK_THAT(build_error(traces(r)), Catch::Contains("comm_type GATHER is not supported"));
  r[1] = {collective(1, 42, 0)};
  CHECK_THAT(build_error(traces(r)), Catch::Contains("comm_type 42 is not a Chakra collective"));
}

TEST_CASE("chakra: sends and receives match as MPI matches them", "[chakra]") {
  // Rank 0 sends two tagged messages to rank 1, which posts its receives in the other order.
  std::vector<std::vector<ChakraNode>> r = {
      {transfer(Type::Send, 1, 1, 100, {}, 7), transfer(Type::Send, 2, 1, 200, {1}, 8)},
      {transfer(Type::Recv, 1, 0, 200, {}, 8), transfer(Type::Recv, 2, 0, 100, {1}, 7)}};
  const Dag dag = build_chakra_dag(traces(r), {});
  REQUIRE(dag.comms.size() == 2);
  const Op& first_recv = dag.ranks[1].ops[0];
  CHECK(first_recv.kind == OpKind::Recv);
  CHECK(dag.comms[first_recv.item].bytes == 200);
  CHECK(dag.comms[dag.ranks[0].ops[1].item].bytes == 200);
  CHECK(dag.groups[dag.comms[0].group] == std::vector<int>{0, 1});

  r[1][0].comm_size = 300;
  CHECK_THAT(build_error(traces(r)),
             Catch::Contains("t.1.et: node 1: receives 300 bytes, but its send (t.0.et node 2)"));
  r[1].pop_back();
  r[1][0].comm_size = 200;
  CHECK_THAT(build_error(traces(r)),
             Catch::Contains("t.0.et: node 1: a send to rank 1 (tag 7) has no matching receive"));
  r[1].clear();
  r[0] = {transfer(Type::Send, 1, 5, 100)};
  CHECK_THAT(build_error(traces(r)), Catch::Contains("comm_dst 5 is not a rank"));
  r[0][0].comm_dst.reset();
  CHECK_THAT(build_error(traces(r)), Catch::Contains("a send without comm_dst"));
}

TEST_CASE("chakra: malformed graphs are refused with the node", "[chakra]") {
  CHECK_THAT(build_error(traces({{kernel_node(1, 1, {2}), kernel_node(2, 1, {1})}})),
             Catch::Contains("its dependencies form a cycle"));
  CHECK_THAT(build_error(traces({{kernel_node(1, 1, {9})}})),
             Catch::Contains("t.0.et: node 1: depends on node 9, not in the trace"));
  CHECK_THAT(build_error(traces({{kernel_node(1, 1), kernel_node(1, 1)}})),
             Catch::Contains("the id appears twice"));
  ChakraNode mem = kernel_node(1, 1);
  mem.type = Type::MemLoad;
  CHECK_THAT(build_error(traces({{mem}})), Catch::Contains("remote memory nodes"));
  CHECK_THAT(build_error(traces({{kernel_node(1, 1ull << 60)}})),
             Catch::Contains("beyond the largest simulated time"));
}

TEST_CASE("chakra: one CPU op, one kernel and one communication at a time per rank", "[chakra]") {
  // Each rank: a CPU op and a kernel with no dependencies run side by side; two transfers to
  // the other rank run one after the other; the receives are posted at once.
  std::vector<std::vector<ChakraNode>> r(2);
  for (int k = 0; k < 2; ++k) {
    ChakraNode cpu = kernel_node(1, 40, {}, "launch");
    cpu.cpu = true;
    r[k] = {cpu,
            kernel_node(2, 30),
            transfer(Type::Send, 3, 1 - k, 1000),
            transfer(Type::Send, 4, 1 - k, 1000),
            transfer(Type::Recv, 5, 1 - k, 1000),
            transfer(Type::Recv, 6, 1 - k, 1000)};
  }
  const Dag dag = build_chakra_dag(traces(r), {});
  constexpr core::Time kUs = 1'000'000;
  const std::vector<core::Time> comm(dag.comms.size(), 5 * kUs);
  std::vector<core::Time> kernel;
  for (const compute::Kernel& k : dag.kernels) kernel.push_back(k.given_ps);
  const TrainingTimeline t = execute_training(dag, kernel, comm);
  const std::vector<OpTiming>& ops = t.ops[0];
  CHECK(ops[0].start == 0);  // cpu
  CHECK(ops[1].start == 0);  // kernel beside it
  CHECK(ops[2].start == 0);
  CHECK(ops[3].start == 5 * kUs);  // the second send waits for the first
  CHECK(ops[4].end == 5 * kUs);
  CHECK(ops[5].end == 10 * kUs);
  CHECK(t.iteration == 40 * kUs);
}

// scenarios/workloads/chakra_example/: what example_traces() writes (set
// FABRICSIM_WRITE_CHAKRA_EXAMPLE=1 to rewrite the files after changing it).
namespace {

// Two hosts of four GPUs. Tensor-parallel groups (one per host) come from a metadata node, as
// the PyTorch converter writes them; data-parallel pairs from the communicator file
// (chakra_example.json). One iteration: two layers forward with a tensor-parallel all-reduce
// each, their backward with a gradient all-reduce each across the hosts (overlapped with the
// next backward kernel), the optimizer's launch on the CPU and its kernel.
std::vector<ChakraTrace> example_traces() {
  std::vector<ChakraTrace> out;
  for (int r = 0; r < 8; ++r) {
    const std::string tp = r < 4 ? "1" : "2";
    const std::string dp = std::to_string(3 + r % 4);
    ChakraNode meta;
    meta.id = 1;
    meta.name = "process_group:init";
    meta.type = Type::Metadata;
    meta.inputs =
        R"(['[{"pg_name": "1", "ranks": [0, 1, 2, 3]}, {"pg_name": "2", "ranks": [4, 5, 6, 7]}]'])";
    ChakraNode launch = kernel_node(10, 50, {9, 7}, "Optimizer.step#AdamW.step");
    launch.cpu = true;
    out.push_back(ChakraTrace{
        "chakra_example." + std::to_string(r) + ".et",
        {meta, kernel_node(2, 300, {1}, "layer1 forward"),
         collective(3, kAllReduce, 8 << 20, {2}, tp), kernel_node(4, 300, {3}, "layer2 forward"),
         collective(5, kAllReduce, 8 << 20, {4}, tp),
         kernel_node(6, 600, {5}, "layer2 MmBackward0"),
         collective(7, kAllReduce, 32 << 20, {6}, dp),
         kernel_node(8, 600, {6}, "layer1 MmBackward0"),
         collective(9, kAllReduce, 32 << 20, {8}, dp), launch,
         kernel_node(11, 100, {10}, "Optimizer.step kernel")}});
  }
  return out;
}

}  // namespace

TEST_CASE("chakra: the example traces are the ones example_traces() describes", "[chakra]") {
  const std::string dir = "scenarios/workloads/chakra_example/";
  const bool write = std::getenv("FABRICSIM_WRITE_CHAKRA_EXAMPLE") != nullptr;
  std::vector<ChakraTrace> read;
  for (const ChakraTrace& t : example_traces()) {
    // Both forms: `<prefix>.<rank>.et` and the jsonizer's `<prefix>.<rank>.json`.
    for (const bool json : {false, true}) {
      std::stringstream s;
      if (json) {
        write_chakra_json_trace(s, t);
      } else {
        write_chakra_trace(s, t);
      }
      std::string path = dir + t.file;
      if (json) path.replace(path.size() - 3, 3, ".json");
      if (write) std::ofstream(path, std::ios::binary) << s.str();
      std::ifstream in(path, std::ios::binary);
      REQUIRE(in);
      std::stringstream file;
      file << in.rdbuf();
      CHECK(file.str() == s.str());
      const ChakraTrace back =
          json ? read_chakra_json_trace(file, path) : read_chakra_trace(file, path);
      if (!json) read.push_back(back);
      CHECK(back.nodes.size() == t.nodes.size());
    }
  }
  std::ifstream json(dir + "chakra_example.json");
  REQUIRE(json);
  const Dag dag = build_chakra_dag(read, read_chakra_groups(json, "chakra_example.json"));
  CHECK(dag.comms.size() == 2 * 2 + 2 * 4);  // per host two TP, per pair two DP all-reduces
  CHECK(dag.ranks[0].ops.size() == 10);
}

TEST_CASE("chakra: a kernel launched after a communication exposes that communication",
          "[chakra]") {
  // kernel (10 us) -> all-reduce (20 us) -> CPU launch (2 us) -> kernel: the 22 us gap before
  // the second kernel is 20 us of exposed communication and 2 us of waiting for the launch.
  std::vector<std::vector<ChakraNode>> r(2);
  for (auto& nodes : r) {
    ChakraNode launch = kernel_node(3, 2, {2}, "cudaLaunchKernel");
    launch.cpu = true;
    nodes = {kernel_node(1, 10), collective(2, kAllReduce, 1 << 20, {1}), launch,
             kernel_node(4, 5, {3})};
  }
  const Dag dag = build_chakra_dag(traces(r), {});
  constexpr core::Time kUs = 1'000'000;
  std::vector<core::Time> kernel;
  for (const compute::Kernel& k : dag.kernels) kernel.push_back(k.given_ps);
  const TrainingTimeline t = execute_training(dag, kernel, {20 * kUs});
  const RankBreakdown& b = t.ranks[0];
  CHECK(t.iteration == 37 * kUs);
  CHECK(b.compute == 15 * kUs);
  CHECK(b.exposed[static_cast<int>(Stream::Comm)] == 20 * kUs);
  CHECK(b.bubble == 2 * kUs);
}

TEST_CASE("chakra: a free stream runs its lowest-id ready node (ASTRA-sim), or waits in id order",
          "[chakra]") {
  // Each rank: kernel 5 (30 us) -> all-reduce 10; all-reduce 20 depends on nothing. ASTRA-sim
  // runs 20 at once while 10 waits for its kernel; a CUDA-like stream runs 10 first.
  std::vector<std::vector<ChakraNode>> r(2);
  for (auto& nodes : r) {
    nodes = {kernel_node(5, 30), collective(10, kAllReduce, 4096, {5}),
             collective(20, kAllReduce, 8192)};
  }
  Dag dag = build_chakra_dag(traces(r), {});
  REQUIRE(dag.ready_order);
  constexpr core::Time kUs = 1'000'000;
  std::vector<core::Time> kernel;
  for (const compute::Kernel& k : dag.kernels) kernel.push_back(k.given_ps);
  const std::vector<core::Time> comm(dag.comms.size(), 5 * kUs);
  const TrainingTimeline ready = execute_training(dag, kernel, comm);
  CHECK(ready.ops[0][2].start == 0);  // node 20
  CHECK(ready.ops[0][1].start == 30 * kUs);
  CHECK(ready.iteration == 35 * kUs);
  // After the kernel, only the all-reduce that waited for it is exposed.
  CHECK(ready.ranks[0].exposed[static_cast<int>(Stream::Comm)] == 5 * kUs);
  dag.ready_order = false;
  const TrainingTimeline listed = execute_training(dag, kernel, comm);
  CHECK(listed.ops[0][1].start == 30 * kUs);
  CHECK(listed.ops[0][2].start == 35 * kUs);
  CHECK(listed.iteration == 40 * kUs);
  CHECK(listed.ranks[0].exposed[static_cast<int>(Stream::Comm)] == 10 * kUs);
}
