#include "workload/aicb_import.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "workload/given_kernels.hpp"

namespace fabricsim::workload {
namespace {

[[noreturn]] void fail(const std::string& file, int line, const std::string& what) {
  throw std::invalid_argument(file + ":" + std::to_string(line) + ": " + what);
}

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  const auto space = [&](std::size_t k) {
    return s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\v' || s[k] == '\f';
  };
  while (i < s.size()) {
    while (i < s.size() && space(i)) ++i;
    const std::size_t b = i;
    while (i < s.size() && !space(i)) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

// The whole token as an integer, or nothing.
template <typename T>
std::optional<T> integer(std::string_view s) {
  T v{};
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

const std::set<std::string_view> kSupported = {"DATA", "HYBRID_TRANSFORMER",
                                               "HYBRID_TRANSFORMER_FWD_IN_BCKWD"};
const std::set<std::string_view> kUnsupported = {
    "HYBRID_DLRM",       "HYBRID_DLRM_ENHANCED", "MODEL", "HYBRID_DATA_MODEL",
    "HYBRID_MODEL_DATA", "HYBRID_CUSTOMIZED",    "MICRO", "DISTRIBUTED_INFERENCE"};
constexpr const char* kSupportedList =
    "DATA, HYBRID_TRANSFORMER or HYBRID_TRANSFORMER_FWD_IN_BCKWD";
constexpr const char* kCommTypes =
    "NONE, or ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, each optionally suffixed _EP or "
    "_DP_EP";

// The group a collective runs in: Default is the tensor-parallel group for forward and
// input-gradient collectives and the data-parallel group for weight-gradient ones.
enum class Group : std::uint8_t { Default, Ep, DpEp, Count };

struct CommSpec {
  bool none = true;
  collectives::Op op = collectives::Op::AllReduce;
  Group group = Group::Default;
  std::uint64_t bytes = 0;
};

std::optional<CommSpec> parse_comm(std::string_view s) {
  CommSpec c;
  if (s == "NONE") return c;
  c.none = false;
  // _DP_EP first: it ends in _EP too.
  if (s.ends_with("_DP_EP")) {
    c.group = Group::DpEp;
    s.remove_suffix(6);
  } else if (s.ends_with("_EP")) {
    c.group = Group::Ep;
    s.remove_suffix(3);
  }
  if (s == "ALLREDUCE") {
    c.op = collectives::Op::AllReduce;
  } else if (s == "ALLGATHER") {
    c.op = collectives::Op::AllGather;
  } else if (s == "REDUCESCATTER") {
    c.op = collectives::Op::ReduceScatter;
  } else if (s == "ALLTOALL") {
    c.op = collectives::Op::AllToAll;
  } else {
    return std::nullopt;
  }
  return c;
}

struct Line {
  std::uint8_t op_name = 0;  // kOpNames index of its compute ops
  std::int64_t fwd_ps = 0, ig_ps = 0, wg_ps = 0, update_ps = 0;
  CommSpec fwd, ig, wg;
};

constexpr int kColumns = 12;
constexpr std::array<const char*, kColumns> kColumnNames = {"layer name",
                                                            "dependency",
                                                            "forward compute time",
                                                            "forward comm type",
                                                            "forward comm size",
                                                            "input-gradient compute time",
                                                            "input-gradient comm type",
                                                            "input-gradient comm size",
                                                            "weight-gradient compute time",
                                                            "weight-gradient comm type",
                                                            "weight-gradient comm size",
                                                            "update time"};

std::uint8_t name_index(const char* name) {
  for (int i = 0; i < kOpNameCount; ++i) {
    if (std::strcmp(kOpNames[i], name) == 0) return static_cast<std::uint8_t>(i);
  }
  throw std::logic_error(std::string("kOpNames has no ") + name);
}

// kOpNames indices the importer uses, looked up once.
struct Names {
  std::uint8_t embedding = name_index("embedding"), cross_entropy = name_index("cross_entropy"),
               optimizer = name_index("optimizer"), logits = name_index("logits"),
               layernorm = name_index("layernorm"), experts = name_index("experts_fc1"),
               attention = name_index("flash_attn"), fc1 = name_index("fc1"),
               tp_allreduce = name_index("tp_allreduce"), tp_allgather = name_index("tp_allgather"),
               tp_reducescatter = name_index("tp_reducescatter"),
               dp_allreduce = name_index("dp_allreduce"), dp_allgather = name_index("dp_allgather"),
               dp_reducescatter = name_index("dp_reducescatter"),
               alltoall = name_index("ep_alltoall");

  // The file's layer names are free-form; these keywords cover what AICB writes.
  std::uint8_t compute(std::string_view layer) const {
    const auto has = [&](const char* k) { return layer.find(k) != std::string_view::npos; };
    if (has("embedding")) return embedding;
    if (has("cross_entropy")) return cross_entropy;
    if (has("optimizer") || has("grad")) return optimizer;
    if (has("final")) return logits;
    if (has("norm")) return layernorm;
    if (has("moe")) return experts;
    if (has("attention")) return attention;
    return fc1;
  }

  std::uint8_t comm(collectives::Op op, bool gradient) const {
    switch (op) {
      case collectives::Op::AllReduce:
        return gradient ? dp_allreduce : tp_allreduce;
      case collectives::Op::AllGather:
        return gradient ? dp_allgather : tp_allgather;
      case collectives::Op::ReduceScatter:
        return gradient ? dp_reducescatter : tp_reducescatter;
      default:
        return alltoall;
    }
  }
};

class Parser {
 public:
  Parser(std::istream& in, const std::string& file) : in_(in), file_(file) {}

  AicbHeader header() {
    std::string text;
    if (!next(text)) {
      fail(file_, 1,
           std::string("empty file; expected a header line naming the strategy (") +
               kSupportedList + ") and its parallelism");
    }
    return parse_aicb_header(text, file_);
  }

  std::vector<Line> lines(const Names& names) {
    std::string text;
    if (!next(text)) fail(file_, line_ + 1, "missing line 2: the number of layer lines");
    const std::vector<std::string_view> t = split(text);
    const auto count = t.size() == 1 ? integer<int>(t[0]) : std::nullopt;
    if (!count || *count < 1) {
      fail(file_, line_,
           "expected the number of layer lines (a positive integer), found '" + text + "'");
    }
    std::vector<Line> out;
    while (static_cast<int>(out.size()) < *count) {
      if (!next_nonblank(text)) {
        fail(file_, line_ + 1,
             "line 2 announces " + std::to_string(*count) + " layer lines, found " +
                 std::to_string(out.size()));
      }
      out.push_back(layer(text, names));
    }
    if (next_nonblank(text)) {
      fail(file_, line_,
           "more layer lines than the " + std::to_string(*count) + " announced on line 2");
    }
    return out;
  }

 private:
  bool next(std::string& text) {
    if (!std::getline(in_, text)) return false;
    ++line_;
    return true;
  }

  // SimAI reads tokens, so blank lines between layers are harmless there too.
  bool next_nonblank(std::string& text) {
    while (next(text)) {
      if (!split(text).empty()) return true;
    }
    return false;
  }

  Line layer(const std::string& text, const Names& names) {
    const std::vector<std::string_view> t = split(text);
    if (static_cast<int>(t.size()) != kColumns) {
      fail(file_, line_,
           "expected " + std::to_string(kColumns) +
               " columns (name, dependency, then compute time, comm type and comm size for the "
               "forward, input-gradient and weight-gradient passes, then the update time), "
               "found " +
               std::to_string(t.size()));
    }
    Line l;
    l.op_name = names.compute(t[0]);
    if (!integer<std::int64_t>(t[1])) {
      fail(file_, line_, column(1, t[1]) + " is not an integer (AICB writes -1)");
    }
    l.fwd_ps = time(t, 2);
    l.fwd = comm(t, 3);
    l.ig_ps = time(t, 5);
    l.ig = comm(t, 6);
    l.wg_ps = time(t, 8);
    l.wg = comm(t, 9);
    l.update_ps = time(t, 11);
    return l;
  }

  std::string column(int c, std::string_view value) const {
    return std::string(kColumnNames[c]) + " (column " + std::to_string(c + 1) + ") '" +
           std::string(value) + "'";
  }

  std::int64_t time(const std::vector<std::string_view>& t, int c) const {
    constexpr std::uint64_t kMaxNs = std::numeric_limits<std::int64_t>::max() / 1000;
    const auto ns = integer<std::uint64_t>(t[c]);
    if (!ns) {
      fail(file_, line_,
           column(c, t[c]) + " is not a time: expected a non-negative integer of nanoseconds");
    }
    if (*ns > kMaxNs) {
      fail(file_, line_,
           column(c, t[c]) + " is too long: at most " + std::to_string(kMaxNs) + " ns");
    }
    return static_cast<std::int64_t>(*ns) * 1000;  // picoseconds
  }

  CommSpec comm(const std::vector<std::string_view>& t, int c) const {
    std::optional<CommSpec> spec = parse_comm(t[c]);
    if (!spec) fail(file_, line_, "unknown " + column(c, t[c]) + "; expected " + kCommTypes);
    const auto bytes = integer<std::uint64_t>(t[c + 1]);
    if (!bytes) {
      fail(file_, line_,
           column(c + 1, t[c + 1]) + " is not a size: expected a non-negative integer of bytes");
    }
    spec->bytes = *bytes;
    return *spec;
  }

  std::istream& in_;
  const std::string& file_;
  int line_ = 0;
};

class Builder {
 public:
  Builder(const AicbHeader& h, int world, bool one_replica, const std::vector<Line>& lines,
          const Names& names)
      : h_(h),
        world_(world),
        dp_(world / h.tp),
        one_replica_(one_replica),
        lines_(lines),
        names_(names) {
    dag_.ranks.resize(world);
  }

  Dag run() {
    for (int r = 0; r < world_; ++r) {
      if (one_replica_ && (r / h_.tp) % dp_ != 0) {
        dag_.ranks[r].simulated = false;
        continue;
      }
      build_rank(r);
    }
    return std::move(dag_);
  }

 private:
  struct Members {
    std::vector<int> ranks;
    std::optional<std::uint32_t> group;  // index in Dag::groups, once a comm uses it
  };

  void build_rank(int rank) {
    rank_ = rank;
    seq_.clear();
    const int t = rank % h_.tp;
    const int d = rank / h_.tp;
    // Ranks with this rank's tp index and `count` dp indices from `first`, `step` apart.
    const auto dp_ranks = [&](int first, int step, int count) {
      Members m;
      for (int i = 0; i < count; ++i) m.ranks.push_back(t + h_.tp * (first + i * step));
      return m;
    };
    tp_ = Members{};
    for (int i = 0; i < h_.tp; ++i) tp_.ranks.push_back(h_.tp * d + i);
    members_[static_cast<int>(Group::Default)] = dp_ranks(0, 1, dp_);
    members_[static_cast<int>(Group::Ep)] = dp_ranks(d / h_.ep * h_.ep, 1, h_.ep);
    members_[static_cast<int>(Group::DpEp)] = dp_ranks(d % h_.ep, h_.ep, dp_ / h_.ep);

    const bool data = h_.strategy == "DATA";
    const int n = static_cast<int>(lines_.size());
    std::int64_t last = -1;  // the op the next compute waits for
    for (int i = 0; i < n; ++i) {
      const Line& l = lines_[i];
      layer_ = i;
      last = compute(l.fwd_ps, Phase::Forward, l.op_name, last);
      if (!data) last = blocking(l.fwd, l.update_ps, Phase::Forward, last);
    }
    std::vector<std::int64_t> grads;
    std::int64_t update = 0;  // of the last gradient collective issued
    for (int i = n - 1; i >= 0; --i) {
      const Line& l = lines_[i];
      layer_ = i;
      if (!data) {
        last = compute(l.ig_ps, Phase::Backward, l.op_name, last);
        last = blocking(l.ig, l.update_ps, Phase::Backward, last);
      }
      last = compute(l.wg_ps, Phase::Backward, l.op_name, last);
      const std::int64_t g = collective(l.wg, true, Phase::Backward, last);
      if (g >= 0) {
        grads.push_back(g);
        update = l.update_ps;
      }
      // DATA runs the input gradient after the weight gradient, and none for the first line.
      if (data && i > 0) last = compute(l.ig_ps, Phase::Backward, l.op_name, last);
    }
    layer_ = -1;
    if (!grads.empty() && update > 0) {
      grads.push_back(last);
      add(compute_op(update, Phase::Optimizer, names_.optimizer), grads);
    }
  }

  Op compute_op(std::int64_t ps, Phase phase, std::uint8_t name) {
    Op op;
    op.kind = OpKind::Compute;
    op.stream = Stream::Compute;
    op.phase = phase;
    op.name = name;
    op.item = kernels_.of(dag_, ps);
    return op;
  }

  // SimAI skips a zero delay, so no op for it.
  std::int64_t compute(std::int64_t ps, Phase phase, std::uint8_t name, std::int64_t after) {
    if (ps == 0) return after;
    return add(compute_op(ps, phase, name), {after});
  }

  // A forward or input-gradient collective: the next compute waits for it and for the update
  // time after it.
  std::int64_t blocking(const CommSpec& c, std::int64_t update_ps, Phase phase,
                        std::int64_t after) {
    const std::int64_t op = collective(c, false, phase, after);
    if (op < 0) return after;
    return compute(update_ps, phase, names_.comm(c.op, false), op);
  }

  // Adds the collective for this rank, or returns -1 if it moves nothing.
  std::int64_t collective(const CommSpec& c, bool gradient, Phase phase, std::int64_t after) {
    if (c.none) return -1;
    Members& m = gradient || c.group != Group::Default ? members_[static_cast<int>(c.group)] : tp_;
    const auto n = static_cast<std::uint64_t>(m.ranks.size());
    const bool blocked = c.op != collectives::Op::AllReduce;
    const std::uint64_t bytes = blocked ? c.bytes / n * n : c.bytes;
    if (n == 1 || bytes == 0) return -1;
    if (!m.group) {
      const auto [it, fresh] =
          groups_.try_emplace(m.ranks, static_cast<std::uint32_t>(dag_.groups.size()));
      if (fresh) dag_.groups.push_back(m.ranks);
      m.group = it->second;
    }
    // Every rank runs the same lines, so the k-th collective a rank issues on a group is the
    // k-th of every member.
    const std::uint64_t key = (std::uint64_t{*m.group} << 32) | seq_[*m.group]++;
    const auto [it, fresh] = comms_.try_emplace(key, static_cast<std::uint32_t>(dag_.comms.size()));
    if (fresh) dag_.comms.push_back(Comm{c.op, bytes, *m.group});
    Op op;
    op.kind = OpKind::Collective;
    op.stream = gradient ? Stream::Dp : c.group == Group::Default ? Stream::Tp : Stream::Ep;
    op.phase = phase;
    op.name = names_.comm(c.op, gradient);
    op.item = it->second;
    return add(op, {after});
  }

  std::int64_t add(Op op, const std::vector<std::int64_t>& deps) {
    RankDag& rd = dag_.ranks[rank_];
    op.deps_begin = static_cast<std::uint32_t>(rd.deps.size());
    for (const std::int64_t d : deps) {
      if (d >= 0) rd.deps.push_back(static_cast<std::uint32_t>(d));
    }
    op.deps_end = static_cast<std::uint32_t>(rd.deps.size());
    op.layer = layer_;
    rd.ops.push_back(op);
    return static_cast<std::int64_t>(rd.ops.size() - 1);
  }

  const AicbHeader& h_;
  const int world_, dp_;
  const bool one_replica_;
  const std::vector<Line>& lines_;
  const Names& names_;
  Dag dag_;
  std::map<std::vector<int>, std::uint32_t> groups_;
  GivenKernels kernels_;
  std::unordered_map<std::uint64_t, std::uint32_t> comms_;
  std::unordered_map<std::uint32_t, std::uint32_t> seq_;  // this rank's collectives per group
  Members tp_;
  std::array<Members, static_cast<int>(Group::Count)> members_;  // DP (Default), EP, DP_EP
  int rank_ = 0;
  std::int32_t layer_ = -1;
};

}  // namespace

AicbHeader parse_aicb_header(std::string_view line, const std::string& file) {
  const std::vector<std::string_view> t = split(line);
  if (t.empty()) {
    fail(file, 1,
         std::string("empty header line; expected the strategy (") + kSupportedList +
             ") followed by 'model_parallel_NPU_group: N' and the other keys");
  }
  AicbHeader h;
  h.strategy = std::string(t[0]);
  if (kUnsupported.count(t[0]) != 0) {
    fail(file, 1, "strategy " + h.strategy + " is not supported; supported: " + kSupportedList);
  }
  if (kSupported.count(t[0]) == 0) {
    fail(file, 1, "unknown strategy '" + h.strategy + "'; expected " + kSupportedList);
  }
  std::set<std::string_view> seen;
  for (std::size_t i = 1; i < t.size(); i += 2) {
    const std::string_view key = t[i];
    const std::string k(key);
    if (!seen.insert(key == "pp_comm:" ? "pp_comm" : key).second) {
      fail(file, 1, "'" + k + "' appears twice");
    }
    if (i + 1 == t.size()) fail(file, 1, "'" + k + "' needs a value");
    const std::string_view value = t[i + 1];
    const auto positive = [&] {
      const auto v = integer<int>(value);
      if (!v || *v < 1) {
        fail(file, 1, k + " '" + std::string(value) + "' is not a positive integer");
      }
      return *v;
    };
    if (key == "model_parallel_NPU_group:") {
      h.tp = positive();
    } else if (key == "ep:" || key == "expert_parallel_npu_group:") {
      h.ep = positive();
    } else if (key == "pp:") {
      h.pp = positive();
    } else if (key == "vpp:") {
      positive();  // only in SimAI's analytical pipeline estimate
    } else if (key == "ga:") {
      h.ga = positive();
    } else if (key == "all_gpus:") {
      h.all_gpus = positive();
    } else if (key == "checkpoints:" || key == "checkpoint_initiates:") {
      const auto v = integer<int>(value);
      if (!v || *v < 0) {
        fail(file, 1, k + " '" + std::string(value) + "' is not a non-negative integer");
      }
      if (*v > 0) {
        fail(file, 1,
             k + " " + std::string(value) +
                 ": activation checkpointing is not supported (SimAI never applies it; AICB "
                 "writes recomputation into the forward times instead)");
      }
    } else if (key == "pp_comm" || key == "pp_comm:") {
      // Only in SimAI's analytical estimate; AICB may write it as a decimal.
      double v = -1;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
      if (ec != std::errc() || end != value.data() + value.size() || v < 0) {
        fail(file, 1, "pp_comm '" + std::string(value) + "' is not a non-negative number");
      }
    } else {
      fail(file, 1,
           "unknown header key '" + k +
               "'; expected model_parallel_NPU_group:, ep:, pp:, vpp:, ga:, all_gpus:, "
               "checkpoints:, checkpoint_initiates: or pp_comm:");
    }
  }
  if (h.strategy == "DATA") {
    if (h.tp != 1) {
      fail(file, 1, "DATA has no tensor parallelism: model_parallel_NPU_group must be 1");
    }
  } else if (seen.count("model_parallel_NPU_group:") == 0) {
    fail(file, 1, h.strategy + " needs 'model_parallel_NPU_group: N' (the tensor-parallel size)");
  }
  if (h.pp > 1) {
    fail(file, 1,
         "pp: " + std::to_string(h.pp) +
             ": pipeline parallelism is not in the file (SimAI only estimates its bubble "
             "analytically); use the training: section's generator for pipeline schedules");
  }
  return h;
}

AicbWorkload import_aicb(std::istream& in, const std::string& file, int world, bool one_replica) {
  Parser parser(in, file);
  const AicbHeader h = parser.header();
  if (world < 1) fail(file, 1, "the cluster has no GPUs (world " + std::to_string(world) + ")");
  if (h.all_gpus != 0 && h.all_gpus != world) {
    fail(file, 1,
         "all_gpus is " + std::to_string(h.all_gpus) + " but the cluster has " +
             std::to_string(world) + " GPUs");
  }
  if (world % h.tp != 0) {
    fail(file, 1,
         "the tensor-parallel group (model_parallel_NPU_group: " + std::to_string(h.tp) +
             ") does not divide the " + std::to_string(world) + " GPUs");
  }
  const int dp = world / h.tp;
  if (dp % h.ep != 0) {
    fail(file, 1,
         "ep: " + std::to_string(h.ep) + " does not divide the data-parallel size " +
             std::to_string(dp) + " (" + std::to_string(world) + " GPUs / tp " +
             std::to_string(h.tp) + ")");
  }
  const Names names;
  const std::vector<Line> lines = parser.lines(names);
  // Dag's FLOP counts stay 0: the file gives times, not shapes.
  return {h, Builder(h, world, one_replica, lines, names).run()};
}

}  // namespace fabricsim::workload
