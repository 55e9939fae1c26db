#include "workload/aicb_import.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "workload/training_exec.hpp"

using namespace fabricsim;
using namespace fabricsim::workload;

namespace {

// 8 GPUs, tp 2, dp 4, ep 2, in AICB's layout (tab-separated, as dump_file writes it). Rank 0's
// groups: TP {0,1}, DP {0,2,4,6}, EP {0,2}, DP_EP {0,4}; every collective that is not NONE
// runs in a group of two or more. The first weight-gradient reduce-scatter (40002 bytes) is
// not a multiple of its 4 ranks.
const char* const kHeader =
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 2 pp: 1 vpp: 2 ga: 1 "
    "all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0\n";
const char* const kLayers =
    "6\n"
    "grad_param_comm\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tREDUCESCATTER\t40002\t100\n"
    "moe_grad_norm\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLGATHER_DP_EP\t20000\t100\n"
    "embedding_layer\t-1\t1000\tALLREDUCE\t8192\t1\tNONE\t0\t2000\tNONE\t0\t100\n"
    "attention_column\t-1\t3000\tALLGATHER\t8192\t1500\tREDUCESCATTER\t8192\t1500\tNONE\t0\t100\n"
    "attention_row\t-1\t2000\tREDUCESCATTER\t8192\t1000\tALLGATHER\t8192\t1000\tNONE\t0\t100\n"
    "mlp_moelayer\t-1\t4000\tALLTOALL_EP\t6144\t4000\tALLTOALL_EP\t6144\t2500\tALLREDUCE_EP\t3000"
    "\t100\n";
const char* const kFile = "gpt.txt";

Dag import(const std::string& text, int world = 8, bool one_replica = true) {
  std::istringstream in(text);
  return import_aicb(in, kFile, world, one_replica).dag;
}

std::vector<std::vector<std::string>> rows(const std::string& layers) {
  std::istringstream in(layers);
  std::string line;
  std::getline(in, line);  // the count
  std::vector<std::vector<std::string>> out;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> r;
    for (std::string w; words >> w;) r.push_back(w);
    out.push_back(r);
  }
  return out;
}

// Name -> (ops, bytes) of rank r's communications.
std::map<std::string, std::pair<int, std::uint64_t>> comm_totals(const Dag& dag, int r) {
  std::map<std::string, std::pair<int, std::uint64_t>> out;
  for (const Op& op : dag.ranks[r].ops) {
    if (op.kind == OpKind::Compute) continue;
    auto& t = out[kOpNames[op.name]];
    ++t.first;
    t.second += dag.comms[op.item].bytes;
  }
  return out;
}

std::vector<core::Time> kernel_times(const Dag& dag) {
  std::vector<core::Time> t;
  for (const compute::Kernel& k : dag.kernels) t.push_back(k.given_ps);
  return t;
}

std::string error_of(const std::string& text, int world = 8) {
  try {
    import(text, world);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("AICB import: ops, groups and bytes of a hand-written workload", "[workload][aicb]") {
  const Dag dag = import(std::string(kHeader) + kLayers);
  REQUIRE(dag.ranks.size() == 8);
  // One replica: dp index 0 is ranks 0 and 1.
  for (int r = 0; r < 8; ++r) CHECK(dag.ranks[r].simulated == (r < 2));
  CHECK(dag.ranks[2].ops.empty());

  // Rank 0: 18 compute ops (every time is positive), 10 collectives (4 forward, 3
  // input-gradient, 3 weight-gradient), an update after each of the 7 blocking ones and one
  // optimizer at the end.
  const RankDag& r0 = dag.ranks[0];
  int compute = 0, collective = 0, optimizer = 0;
  for (const Op& op : r0.ops) {
    compute += op.kind == OpKind::Compute ? 1 : 0;
    collective += op.kind == OpKind::Collective ? 1 : 0;
    optimizer += op.phase == Phase::Optimizer ? 1 : 0;
  }
  CHECK(compute == 18 + 7 + 1);
  CHECK(collective == 10);
  CHECK(optimizer == 1);
  CHECK(r0.ops.back().phase == Phase::Optimizer);
  CHECK(std::string(kOpNames[r0.ops.back().name]) == "optimizer");

  const auto totals = comm_totals(dag, 0);
  using P = std::pair<int, std::uint64_t>;
  CHECK(totals.at("tp_allreduce") == P{1, 8192});
  CHECK(totals.at("tp_allgather") == P{2, 2 * 8192});
  CHECK(totals.at("tp_reducescatter") == P{2, 2 * 8192});
  CHECK(totals.at("ep_alltoall") == P{2, 2 * 6144});
  CHECK(totals.at("dp_allreduce") == P{1, 3000});
  CHECK(totals.at("dp_allgather") == P{1, 20000});
  CHECK(totals.at("dp_reducescatter") == P{1, 40000});  // 40002 rounded down to 4 blocks
  CHECK(totals.size() == 7);

  // Groups: TP {0,1} shared by ranks 0 and 1; EP, DP_EP and DP of each.
  const std::vector<std::vector<int>> want = {{0, 1}, {0, 2}, {0, 4},      {0, 2, 4, 6},
                                              {1, 3}, {1, 5}, {1, 3, 5, 7}};
  CHECK(dag.groups.size() == want.size());
  for (const auto& g : want) {
    CHECK(std::find(dag.groups.begin(), dag.groups.end(), g) != dag.groups.end());
  }
  // The 5 tensor-parallel collectives are the same ones for ranks 0 and 1; the others are per
  // rank (3 gradient + 2 all-to-all each).
  CHECK(dag.comms.size() == 5 + 2 * 5);

  // Streams follow the group.
  for (const Op& op : r0.ops) {
    if (op.kind == OpKind::Compute) {
      CHECK(op.stream == Stream::Compute);
      continue;
    }
    const std::vector<int>& g = dag.groups[dag.comms[op.item].group];
    if (op.phase == Phase::Backward && std::string(kOpNames[op.name]).starts_with("dp_")) {
      CHECK(op.stream == Stream::Dp);
    } else if (g == std::vector<int>{0, 1}) {
      CHECK(op.stream == Stream::Tp);
    } else {
      CHECK(op.stream == Stream::Ep);
    }
  }
  CHECK(dag.model_flops == 0);
  CHECK(dag.hardware_flops == 0);
}

TEST_CASE("AICB import: times are nanoseconds, kernels are given durations", "[workload][aicb]") {
  const Dag dag = import(std::string(kHeader) + kLayers);
  std::vector<std::int64_t> given;
  for (const compute::Kernel& k : dag.kernels) {
    CHECK(k.kind == compute::KernelKind::Given);
    given.push_back(k.given_ps);
  }
  std::sort(given.begin(), given.end());
  // Distinct times of the file (1, 100, 1000, 1500, 2000, 2500, 3000, 4000 ns) in picoseconds.
  CHECK(given == std::vector<std::int64_t>{1'000, 100'000, 1'000'000, 1'500'000, 2'000'000,
                                           2'500'000, 3'000'000, 4'000'000});
  // The first op of rank 0 is the first line's forward compute (1 ns), the last forward
  // compute is mlp_moelayer's 4000 ns.
  const RankDag& r0 = dag.ranks[0];
  CHECK(dag.kernels[r0.ops.front().item].given_ps == 1'000);
  CHECK(r0.ops.front().layer == 0);
  CHECK(r0.ops.front().micro_batch == -1);
  CHECK(std::string(kOpNames[r0.ops.front().name]) == "optimizer");  // grad_param_comm
}

TEST_CASE("AICB import: every dependency points to an earlier op", "[workload][aicb]") {
  for (const bool one_replica : {true, false}) {
    const Dag dag = import(std::string(kHeader) + kLayers, 8, one_replica);
    for (const RankDag& rd : dag.ranks) {
      for (std::size_t i = 0; i < rd.ops.size(); ++i) {
        const Op& op = rd.ops[i];
        REQUIRE(op.deps_begin <= op.deps_end);
        REQUIRE(op.deps_end <= rd.deps.size());
        for (std::uint32_t k = op.deps_begin; k < op.deps_end; ++k) CHECK(rd.deps[k] < i);
        if (op.kind == OpKind::Compute) {
          CHECK(op.item < dag.kernels.size());
        } else {
          CHECK(op.item < dag.comms.size());
        }
      }
    }
    for (const Comm& c : dag.comms) CHECK(c.group < dag.groups.size());
  }
}

TEST_CASE("AICB import: the executor runs the imported iteration", "[workload][aicb]") {
  const Dag dag = import(std::string(kHeader) + kLayers);
  const std::vector<core::Time> kt = kernel_times(dag);

  // Free communication: the iteration is one rank's compute, computed here from the text: the
  // three compute columns of every line, the update time (100 ns) after each blocking
  // (forward or input-gradient) collective and once more after the gradient collectives.
  core::Time want = 0;
  int blocking = 0;
  for (const auto& r : rows(kLayers)) {
    REQUIRE(r.size() == 12);
    want += (std::stoll(r[2]) + std::stoll(r[5]) + std::stoll(r[8])) * core::kNanosecond;
    blocking += (r[3] != "NONE") + (r[6] != "NONE");
  }
  CHECK(blocking == 7);
  want += (blocking + 1) * 100 * core::kNanosecond;
  const TrainingTimeline free =
      execute_training(dag, kt, std::vector<core::Time>(dag.comms.size(), 0));
  CHECK(free.iteration == want);

  // With communication, every op finishes and the iteration is longer by at least the
  // blocking collectives' time.
  const core::Time comm = core::kMicrosecond;
  const TrainingTimeline slow =
      execute_training(dag, kt, std::vector<core::Time>(dag.comms.size(), comm));
  CHECK(slow.iteration >= want + blocking * comm);
  for (int r = 0; r < 2; ++r) {
    for (const OpTiming& t : slow.ops[r]) CHECK(t.end >= t.start);
  }
}

TEST_CASE("AICB import: DATA runs gradient collectives over every rank", "[workload][aicb]") {
  // Forward and input-gradient collectives are never issued in DATA; the input gradient of the
  // first line is not computed.
  const std::string text =
      "DATA\n"
      "2\n"
      "l0 -1 10 ALLREDUCE 64 20 ALLGATHER 64 30 ALLREDUCE 1024 0\n"
      "l1 -1 11 NONE 0 21 NONE 0 31 ALLREDUCE 2048 0\n";
  const Dag dag = import(text, 4, false);
  REQUIRE(dag.groups.size() == 1);
  CHECK(dag.groups[0] == std::vector<int>{0, 1, 2, 3});
  REQUIRE(dag.comms.size() == 2);
  CHECK(dag.comms[0].bytes == 2048);  // l1's, issued first
  CHECK(dag.comms[1].bytes == 1024);
  // Order on each rank: fwd l0, fwd l1, wg l1, allreduce l1, ig l1, wg l0, allreduce l0.
  const std::vector<std::int64_t> compute_ns = {10, 11, 31, 21, 30};
  std::vector<std::int64_t> got;
  for (const Op& op : dag.ranks[3].ops) {
    if (op.kind == OpKind::Compute) got.push_back(dag.kernels[op.item].given_ps / 1000);
  }
  CHECK(got == compute_ns);
  CHECK(dag.ranks[3].ops.size() == 7);
  const TrainingTimeline t =
      execute_training(dag, kernel_times(dag), std::vector<core::Time>(dag.comms.size(), 0));
  CHECK(t.iteration == (10 + 11 + 31 + 21 + 30) * core::kNanosecond);
}

TEST_CASE("AICB import: a tensor-parallel group of one rank issues nothing", "[workload][aicb]") {
  // AICB's own tp 1 / ep 1 output still names ALLTOALL_EP with size 1.
  const std::string text =
      "HYBRID_TRANSFORMER model_parallel_NPU_group: 1 ep: 1 pp: 1 ga: 1 all_gpus: 2\n"
      "1\n"
      "mlp_moelayer -1 5 ALLTOALL_EP 1 6 ALLREDUCE 64 7 REDUCESCATTER 0 100\n";
  const Dag dag = import(text, 2);
  CHECK(dag.comms.empty());
  CHECK(dag.ranks[0].ops.size() == 3);
  CHECK(std::string(kOpNames[dag.ranks[0].ops[0].name]) == "experts_fc1");
}

TEST_CASE("AICB import: malformed input names file, line and what was expected",
          "[workload][aicb]") {
  const std::string ok = std::string(kHeader) + kLayers;
  const std::string good_line = "x\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tNONE\t0\t100\n";
  const auto one_line = [&](const std::string& line) {
    return std::string(kHeader) + "1\n" + line;
  };
  struct Case {
    std::string text;
    std::string where;
    std::vector<std::string> says;
    int world = 8;
  };
  const std::vector<Case> cases = {
      {"", "gpt.txt:1: ", {"empty file", "HYBRID_TRANSFORMER_FWD_IN_BCKWD"}},
      {"  \n", "gpt.txt:1: ", {"empty header"}},
      {"HYBRID_FOO model_parallel_NPU_group: 2\n1\n" + good_line,
       "gpt.txt:1: ",
       {"unknown strategy 'HYBRID_FOO'", "DATA, HYBRID_TRANSFORMER"}},
      {"HYBRID_TRANSFORMER_FWD_IN_BKWD model_parallel_NPU_group: 2\n1\n" + good_line,
       "gpt.txt:1: ",
       {"HYBRID_TRANSFORMER_FWD_IN_BCKWD"}},
      {"MICRO\n1\n" + good_line, "gpt.txt:1: ", {"MICRO is not supported"}},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 16\n1\n" + good_line,
       "gpt.txt:1: ",
       {"all_gpus is 16", "8 GPUs"}},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: 3\n1\n" + good_line,
       "gpt.txt:1: ",
       {"model_parallel_NPU_group: 3", "does not divide", "8 GPUs"}},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 3\n1\n" + good_line,
       "gpt.txt:1: ",
       {"ep: 3", "data-parallel size 4"}},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 pp: 2\n1\n" + good_line,
       "gpt.txt:1: ",
       {"pp: 2", "pipeline"}},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 checkpoints: 1 3\n1\n" + good_line,
       "gpt.txt:1: ",
       {"checkpoints: 1", "not supported"}},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 tp: 2\n1\n" + good_line,
       "gpt.txt:1: ",
       {"unknown header key 'tp:'", "model_parallel_NPU_group:"}},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ga:\n1\n" + good_line,
       "gpt.txt:1: ",
       {"'ga:' needs a value"}},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: two\n1\n" + good_line,
       "gpt.txt:1: ",
       {"'two' is not a positive integer"}},
      {"HYBRID_TRANSFORMER ep: 2\n1\n" + good_line,
       "gpt.txt:1: ",
       {"needs 'model_parallel_NPU_group: N'"}},
      {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ga: 1 ga: 2\n1\n" + good_line,
       "gpt.txt:1: ",
       {"'ga:' appears twice"}},
      {"DATA model_parallel_NPU_group: 2\n1\n" + good_line, "gpt.txt:1: ", {"DATA"}},
      {std::string(kHeader), "gpt.txt:2: ", {"missing line 2"}},
      {std::string(kHeader) + "six\n", "gpt.txt:2: ", {"number of layer lines", "'six'"}},
      {std::string(kHeader) + "0\n", "gpt.txt:2: ", {"positive integer"}},
      {one_line("x -1 1 NONE 0 1 NONE 0 1 NONE 0\n"),
       "gpt.txt:3: ",
       {"expected 12 columns", "found 11"}},
      {one_line("x -1 12x NONE 0 1 NONE 0 1 NONE 0 100\n"),
       "gpt.txt:3: ",
       {"forward compute time (column 3) '12x'", "nanoseconds"}},
      {one_line("x -1 1 NONE 0 -5 NONE 0 1 NONE 0 100\n"),
       "gpt.txt:3: ",
       {"input-gradient compute time (column 6) '-5'"}},
      {one_line("x -1 1 NONE 0 1 NONE 0 1 NONE 0 99999999999999999\n"),
       "gpt.txt:3: ",
       {"update time (column 12)", "too long"}},
      {one_line("x -1 1 BROADCAST 8 1 NONE 0 1 NONE 0 100\n"),
       "gpt.txt:3: ",
       {"unknown forward comm type (column 4) 'BROADCAST'", "ALLREDUCE", "ALLTOALL", "_DP_EP"}},
      {one_line("x -1 1 NONE 0 1 NONE 0 1 ALLREDUCEALLTOALL 8 100\n"),
       "gpt.txt:3: ",
       {"weight-gradient comm type (column 10)"}},
      {one_line("x -1 1 NONE 0 1 ALLGATHER 1.5 1 NONE 0 100\n"),
       "gpt.txt:3: ",
       {"input-gradient comm size (column 8) '1.5'", "bytes"}},
      {one_line("x y 1 NONE 0 1 NONE 0 1 NONE 0 100\n"),
       "gpt.txt:3: ",
       {"dependency (column 2) 'y'"}},
      {std::string(kHeader) + "3\n" + good_line + "\n" + good_line,
       "gpt.txt:6: ",
       {"line 2 announces 3 layer lines, found 2"}},
      {one_line(good_line + good_line), "gpt.txt:4: ", {"more layer lines than the 1"}},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const std::string e = error_of(c.text, c.world);
    CHECK(e.rfind(c.where, 0) == 0);
    for (const std::string& s : c.says) CHECK(e.find(s) != std::string::npos);
  }
  CHECK(error_of(ok).empty());
}

TEST_CASE("AICB import: no input makes it do anything but import or refuse", "[workload][aicb]") {
  // Every prefix of a valid file, and the file with each character replaced, either imports or
  // throws std::invalid_argument.
  const std::string ok = std::string(kHeader) + kLayers;
  const auto survives = [](const std::string& text) {
    try {
      import(text);
    } catch (const std::invalid_argument&) {
    }
  };
  for (std::size_t n = 0; n <= ok.size(); ++n) survives(ok.substr(0, n));
  for (std::size_t i = 0; i < ok.size(); ++i) {
    for (const char c : {'\t', '\n', '9', '-', 'X', '\0'}) {
      std::string t = ok;
      t[i] = c;
      survives(t);
    }
  }
}

TEST_CASE("AICB import: header of AICB's and SimAI's variants", "[workload][aicb]") {
  // SimAI's example without vpp and pp_comm; AICB's decimal pp_comm and colon-less key.
  const AicbHeader a = parse_aicb_header(
      "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 1 ga: 1 "
      "all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0",
      kFile);
  CHECK(a.tp == 8);
  CHECK(a.all_gpus == 8);
  const AicbHeader b = parse_aicb_header(
      "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 2 ep: 16 pp: 1 vpp: 8 ga: 24 "
      "all_gpus: 9216 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 16777216.0\r",
      kFile);
  CHECK(b.ep == 16);
  CHECK(b.ga == 24);
  const AicbHeader c = parse_aicb_header(
      "HYBRID_TRANSFORMER model_parallel_NPU_group: 4 expert_parallel_npu_group: 2 pp_comm 0",
      kFile);
  CHECK(c.ep == 2);
  CHECK(c.all_gpus == 0);
}
