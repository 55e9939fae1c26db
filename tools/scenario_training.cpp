// The `training` section: a model (by name from workload/models/, a YAML file, or inline), its
// parallelism and schedule, and the kernel-timing database that times its kernels.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "compute/gpu.hpp"
#include "compute/kernel_db.hpp"
#include "core/input_file.hpp"
#include "tools/busbw.hpp"
#include "tools/scenario_parts.hpp"
#include "workload/aicb_import.hpp"
#include "workload/chakra_import.hpp"
#include "workload/training_run.hpp"

namespace fabricsim::tools {
namespace {

namespace fs = std::filesystem;

workload::ModelSpec read_model_keys(const Section& s) {
  s.only({"name", "layers", "hidden", "ffn_hidden", "heads", "kv_heads", "seq_len", "vocab",
          "experts", "top_k", "swiglu", "causal", "position_embedding", "source"});
  workload::ModelSpec m;
  m.name = s.has("name") ? s.text("name") : "model";
  m.layers = static_cast<int>(s.uint("layers", std::nullopt));
  m.hidden = static_cast<int>(s.uint("hidden", std::nullopt));
  m.ffn_hidden = static_cast<int>(s.uint("ffn_hidden", 4ull * m.hidden));
  m.heads = static_cast<int>(s.uint("heads", std::nullopt));
  m.kv_heads = static_cast<int>(s.uint("kv_heads", m.heads));
  m.seq_len = static_cast<int>(s.uint("seq_len", std::nullopt));
  m.vocab = static_cast<int>(s.uint("vocab", std::nullopt));
  m.experts = static_cast<int>(s.uint("experts"));
  m.top_k = static_cast<int>(s.uint("top_k"));
  m.swiglu = s.boolean("swiglu");
  m.causal = s.boolean("causal");
  const std::string positions = s.choice("position_embedding");
  m.positions = positions == "rope"   ? workload::PositionEmbedding::Rope
                : positions == "none" ? workload::PositionEmbedding::None
                                      : workload::PositionEmbedding::Learned;
  if (s.has("source")) m.source = s.text("source");
  if (m.hidden % m.heads != 0) {
    s.fail_key("heads", fmt::format("({}) must divide hidden ({})", m.heads, m.hidden));
  }
  if (m.heads % m.kv_heads != 0) {
    s.fail_key("kv_heads", fmt::format("({}) must divide heads ({})", m.kv_heads, m.heads));
  }
  if (m.top_k > m.experts) {
    s.fail_key("top_k", fmt::format("({}) exceeds experts ({})", m.top_k, m.experts));
  }
  return m;
}

// Where a model named on its own lives: workload/models/NAME.yaml from the working folder, or
// from the source tree this binary was built from.
std::vector<fs::path> model_candidates(const std::string& name, const std::string& scenario) {
  if (name.find('/') != std::string::npos || name.ends_with(".yaml")) {
    const fs::path p(name);
    if (p.is_absolute()) return {p};
    return {fs::path(scenario).parent_path() / p, p};
  }
  return {fs::path("workload/models") / (name + ".yaml"),
          fs::path(FABRICSIM_SOURCE_DIR) / "workload/models" / (name + ".yaml")};
}

std::string model_names() {
  std::vector<std::string> names;
  for (const fs::path& dir :
       {fs::path("workload/models"), fs::path(FABRICSIM_SOURCE_DIR) / "workload/models"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
    }
    if (!names.empty()) break;
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

workload::ModelSpec read_model(const Section& t) {
  const YAML::Node node = t.node()["model"];
  if (!node)
    t.fail_key("model",
               "is required: a name from workload/models/, a .yaml file, or "
               "the model's keys (layers, hidden, heads, seq_len, vocab, ...)");
  if (node.IsMap()) {
    workload::ModelSpec m = read_model_keys(t.sub("model"));
    return m;
  }
  const std::string name = t.text("model");
  if (const auto found = first_input_file(t, "model", model_candidates(name, t.context().file),
                                          "model file", 16u << 20)) {
    const fs::path& p = *found;
    std::ifstream in(p);
    std::stringstream buf;
    buf << in.rdbuf();
    ParseContext ctx;
    ctx.file = p.string();
    ctx.registry_root = "training.model";  // a model file holds the inline keys
    YAML::Node root;
    try {
      root = YAML::Load(buf.str());
    } catch (const YAML::ParserException& e) {
      throw ScenarioError(fmt::format("{}:{}:{}: not valid YAML: {}", ctx.file, e.mark.line + 1,
                                      e.mark.column + 1, e.msg));
    }
    workload::ModelSpec m = read_model_keys(Section(root, ctx, ""));
    if (m.name == "model") m.name = name;
    return m;
  }
  t.fail_key("model", fmt::format("'{}' is not a model file nor a known model; known: {}", name,
                                  model_names()));
}

// `network`: how the iteration's communications meet the network.
workload::CommMode read_comm_mode(const Section& t) {
  return t.choice("network") == "packet" ? workload::CommMode::Packet
                                         : workload::CommMode::Isolated;
}

// `stragglers`: GPUs (or every GPU of a host) whose kernels run slower by a factor. Returns one
// factor per rank (rank r is the cluster's r-th GPU), or nothing when none is listed.
std::vector<double> read_stragglers(const Section& t, const net::Topology& topo) {
  std::vector<std::uint32_t> first_rank;  // per host
  std::uint32_t gpus = 0;
  for (const net::Host& h : topo.hosts) first_rank.push_back(gpus), gpus += h.gpus;
  std::vector<double> out;
  std::set<std::uint32_t> listed;  // ranks given a factor
  for (const Section& s : t.items("stragglers")) {
    s.only({"host", "gpu", "factor"});
    const auto host = static_cast<std::uint32_t>(
        s.uint_in("host", std::nullopt, 0, static_cast<std::uint64_t>(topo.hosts.size()) - 1));
    const std::uint32_t n = topo.hosts[host].gpus;
    if (n == 0) s.fail_key("host", fmt::format("host {} has no GPUs", topo.hosts[host].name));
    std::uint32_t lo = 0, hi = n;
    if (s.has("gpu")) {
      lo = static_cast<std::uint32_t>(s.uint_in("gpu", std::nullopt, 0, n - 1));
      hi = lo + 1;
    }
    // Kernels up to 100x slower (or a faster GPU, down to a tenth of the time).
    const double factor = s.real("factor", std::nullopt);
    if (out.empty()) out.assign(gpus, 1.0);
    for (std::uint32_t g = lo; g < hi; ++g) {
      if (listed.count(first_rank[host] + g)) {
        s.fail_key(s.has("gpu") ? "gpu" : "host",
                   fmt::format("GPU {} of host {} is listed already (a GPU has one factor)", g,
                               topo.hosts[host].name));
      }
      listed.insert(first_rank[host] + g);
      out[first_rank[host] + g] = factor;
    }
  }
  return out;
}

}  // namespace

namespace {

// What every training section reads first: its network mode, stragglers and the GPU model.
TrainingSection training_base(const Section& t, const net::Topology& topo) {
  TrainingSection s;
  s.comm = read_comm_mode(t);
  s.slowdown = read_stragglers(t, topo);
  s.gpu = cluster_gpu(t, topo);
  return s;
}

fs::path beside_scenario(const Section& t, const std::string& name) {
  return fs::path(name).is_absolute() ? fs::path(name)
                                      : fs::path(t.context().file).parent_path() / name;
}

void check_import_file(const Section& t, const char* key, const fs::path& p) {
  try {
    core::check_input_file(p.string(), "workload import", 1ULL << 30);
  } catch (const std::runtime_error& e) {
    t.fail_key(key, e.what());
  }
  t.context().inputs.push_back(p.string());
}

// `format: aicb`: parallelism from the file's header, compute times from its lines.
void read_aicb(const Section& t, std::uint32_t gpus, TrainingSection& s) {
  const fs::path p = beside_scenario(t, t.text("import"));
  check_import_file(t, "import", p);
  std::ifstream in(p);
  if (!in) t.fail_key("import", fmt::format("cannot open '{}'", p.string()));
  try {
    // One replica only when the isolated path may assume the replicas alike.
    workload::AicbWorkload w =
        workload::import_aicb(in, p.string(), static_cast<int>(gpus),
                              s.comm == workload::CommMode::Isolated && s.slowdown.empty());
    const workload::AicbHeader& h = w.header;
    s.imported = std::move(w.dag);
    s.config.tp = h.tp;
    s.config.dp = static_cast<int>(gpus) / h.tp;
    s.config.ep = h.ep;
  } catch (const std::invalid_argument& e) {
    t.fail_key("import", e.what());
  }
  s.imported_from = p.string();
  s.model.name = p.filename().string();
}

// `format: chakra`: `import` is the traces' prefix, one file `<prefix>.<rank>.et` per GPU
// (`chakra_json`: `<prefix>.<rank>.json`, the jsonizer's form); `comm_groups` an optional
// communicator file.
void read_chakra(const Section& t, std::uint32_t gpus, bool json, TrainingSection& s) {
  const fs::path prefix = beside_scenario(t, t.text("import"));
  const std::string ext = json ? ".json" : ".et";
  std::vector<workload::ChakraTrace> traces;
  traces.reserve(gpus);
  try {
    for (std::uint32_t r = 0; r < gpus; ++r) {
      const fs::path p = prefix.string() + "." + std::to_string(r) + ext;
      if (!fs::exists(p)) {
        t.fail_key(
            "import",
            fmt::format("no trace for rank {}: '{}' does not exist (the cluster has {} GPUs; "
                        "a Chakra import needs {}.0{} to {}.{}{})",
                        r, p.string(), gpus, prefix.filename().string(), ext,
                        prefix.filename().string(), gpus - 1, ext));
      }
      check_import_file(t, "import", p);
      std::ifstream in(p, std::ios::binary);
      if (!in) t.fail_key("import", fmt::format("cannot open '{}'", p.string()));
      traces.push_back(json ? workload::read_chakra_json_trace(in, p.string())
                            : workload::read_chakra_trace(in, p.string()));
    }
    workload::ChakraGroups groups;
    if (t.has("comm_groups")) {
      const fs::path g = beside_scenario(t, t.text("comm_groups"));
      try {
        core::check_input_file(g.string(), "communicator file", 1ULL << 26);
      } catch (const std::runtime_error& e) {
        t.fail_key("comm_groups", e.what());
      }
      t.context().inputs.push_back(g.string());
      std::ifstream in(g);
      if (!in) t.fail_key("comm_groups", fmt::format("cannot open '{}'", g.string()));
      groups = workload::read_chakra_groups(in, g.string());
    }
    s.imported = workload::build_chakra_dag(traces, groups);
  } catch (const std::invalid_argument& e) {
    t.fail_key("import", e.what());
  }
  s.imported->ready_order = t.choice("issue_order") == "ready";
  s.config.tp = 1;
  s.config.dp = static_cast<int>(gpus);
  s.imported_from = prefix.string() + ".<rank>" + ext;
  s.model.name = prefix.filename().string();
}

}  // namespace

// `import`: a workload written by another tool (SimAI's AICB, a Chakra execution trace), whose
// DAG replaces the model's.
TrainingSection read_import(const Section& t, const net::Topology& topo) {
  t.only(
      comm_model_keys({"import", "format", "comm_groups", "issue_order", "network", "stragglers"}));
  const std::string format = t.choice("format");
  const bool chakra = format == "chakra" || format == "chakra_json";
  for (const char* key : {"comm_groups", "issue_order"}) {
    if (!chakra && t.has(key)) t.fail_key(key, "goes with format: chakra or chakra_json only");
  }
  TrainingSection s = training_base(t, topo);
  s.imported_format = format;
  const auto gpus = static_cast<std::uint32_t>(gpu_count(topo));
  if (chakra) {
    read_chakra(t, gpus, format == "chakra_json", s);
  } else {
    read_aicb(t, gpus, s);
  }
  read_comm_model(t, topo, s.gpu, s.hw, s.exec);
  return s;
}

namespace {

// The keys of one job: its model, parallelism and schedule (what `jobs` items may override).
constexpr std::string_view kJobKeys[] = {"model",
                                         "tp",
                                         "pp",
                                         "dp",
                                         "ep",
                                         "sequence_parallel",
                                         "schedule",
                                         "virtual_stages",
                                         "micro_batch",
                                         "global_batch",
                                         "recompute",
                                         "zero",
                                         "attention",
                                         "memory_kernels",
                                         "dtype",
                                         "grad_dtype",
                                         "bucket_params",
                                         "overlap_grad_reduce"};

// A job's model and parallelism on `gpus` GPUs: those of `owner` ("the cluster", "job a").
// Errors that span several keys are reported at `at`.
void read_job(const Section& t, const YAML::Node& at, const std::string& owner, std::uint32_t gpus,
              const compute::GpuSpec& gpu, workload::ModelSpec& model,
              workload::TrainingConfig& c) {
  model = read_model(t);
  c.tp = static_cast<int>(t.uint("tp"));
  c.pp = static_cast<int>(t.uint("pp"));
  // Products in 64 bits: tp and pp may each be 2^16, and their product must not wrap.
  const std::uint64_t tp_pp = std::uint64_t(c.tp) * std::uint64_t(c.pp);
  if (tp_pp > gpus) {
    t.fail_key(t.has("pp") ? "pp" : "tp", fmt::format("tp x pp = {} x {} = {} exceeds {}'s {} GPUs",
                                                      c.tp, c.pp, tp_pp, owner, gpus));
  }
  // Data parallelism fills the GPUs unless given.
  c.dp = static_cast<int>(t.uint("dp", gpus % tp_pp == 0 ? gpus / tp_pp : 1));
  const std::uint64_t world = tp_pp * std::uint64_t(c.dp);
  if (world != gpus) {
    t.fail_key(t.has("dp") ? "dp" : "tp",
               fmt::format("tp x pp x dp = {} x {} x {} = {}, but {} has {} GPUs", c.tp, c.pp, c.dp,
                           world, owner, gpus));
  }
  c.ep = static_cast<int>(t.uint("ep"));
  c.sequence_parallel = t.boolean("sequence_parallel");
  const std::string sched = t.choice("schedule");
  c.schedule = sched == "gpipe"         ? workload::Schedule::GPipe
               : sched == "interleaved" ? workload::Schedule::Interleaved
                                        : workload::Schedule::OneFOneB;
  c.virtual_stages = static_cast<int>(
      t.uint("virtual_stages", c.schedule == workload::Schedule::Interleaved ? 2 : 1));
  c.micro_batch = static_cast<int>(t.uint("micro_batch"));
  c.global_batch = static_cast<int>(t.uint("global_batch", std::nullopt));
  const std::string rc = t.choice("recompute");
  c.recompute = rc == "selective" ? workload::Recompute::Selective
                : rc == "full"    ? workload::Recompute::Full
                                  : workload::Recompute::None;
  c.zero = static_cast<int>(t.uint("zero"));
  c.attention = t.choice("attention") == "flash" ? workload::AttentionImpl::Flash
                                                 : workload::AttentionImpl::Unfused;
  c.memory_kernels = t.choice("memory_kernels") == "compiled" ? compute::MemoryImpl::Compiled
                                                              : compute::MemoryImpl::Tuned;
  const std::string dt = t.choice("dtype");
  c.dtype = dt == "fp16" ? compute::Dtype::FP16 : compute::Dtype::BF16;
  c.grad_bytes = t.choice("grad_dtype") == "fp32" ? 4 : 2;
  c.bucket_params = t.uint("bucket_params");
  c.overlap_grad_reduce = t.boolean("overlap_grad_reduce");
  try {
    workload::validate(model);
    workload::validate(c, model);
    workload::check_memory(model, c, gpu);
  } catch (const std::invalid_argument& e) {
    t.fail(at, e.what());
  }
}

// `jobs`: several jobs on the cluster, each on the hosts it lists, from its `start`; the
// training section's own job keys are every job's defaults.
void read_jobs(const Section& t, const net::Topology& topo, TrainingSection& s) {
  std::vector<std::uint32_t> first_rank;  // per host
  std::uint32_t total = 0;
  for (const net::Host& h : topo.hosts) first_rank.push_back(total), total += h.gpus;
  std::vector<int> owner(topo.hosts.size(), -1);
  const std::vector<Section> items = t.items("jobs");
  if (items.empty()) t.fail_key("jobs", "lists no job");
  for (std::size_t j = 0; j < items.size(); ++j) {
    const Section& item = items[j];
    std::vector<std::string_view> allowed{"name", "hosts", "start"};
    allowed.insert(allowed.end(), std::begin(kJobKeys), std::end(kJobKeys));
    item.only(allowed);
    workload::TrainingJob job;
    job.name = item.has("name") ? item.text("name") : fmt::format("job{}", j);
    // The name goes into file names (trace_NAME.json) and CSV headers.
    const bool plain = !job.name.empty() && job.name.size() <= 64 && job.name.front() != '.' &&
                       std::all_of(job.name.begin(), job.name.end(), [](char ch) {
                         return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' ||
                                ch == '-' || ch == '.';
                       });
    if (!plain) {
      item.fail_key("name", fmt::format("'{}' is not a plain name: 1-64 letters, digits, '_', '-' "
                                        "or '.', not starting with '.'",
                                        job.name));
    }
    for (std::size_t k = 0; k < j; ++k) {
      if (s.jobs[k].name == job.name) {
        item.fail_key("name", fmt::format("'{}' names job {} already", job.name, k));
      }
    }
    job.start = item.time("start");
    const std::vector<std::uint32_t> hosts =
        item.uints("hosts", 0, static_cast<std::uint32_t>(topo.hosts.size() - 1));
    if (hosts.empty()) item.fail_key("hosts", "lists no host");
    for (const std::uint32_t h : hosts) {
      if (owner[h] == static_cast<int>(j)) {
        item.fail_key("hosts", fmt::format("lists host {} ({}) twice", h, topo.hosts[h].name));
      }
      if (owner[h] >= 0) {
        item.fail_key("hosts", fmt::format("host {} ({}) is job {}'s already", h,
                                           topo.hosts[h].name, s.jobs[owner[h]].name));
      }
      owner[h] = static_cast<int>(j);
      for (std::uint32_t g = 0; g < topo.hosts[h].gpus; ++g) {
        job.gpus.push_back(static_cast<int>(first_rank[h] + g));
      }
    }
    // The job's keys over the section's: one mapping, read as the job's.
    YAML::Node merged = YAML::Clone(t.node());
    merged.remove("jobs");
    for (const auto& kv : item.node()) {
      const std::string key = kv.first.as<std::string>();
      if (key != "name" && key != "hosts" && key != "start") merged[key] = kv.second;
    }
    const Section js(merged, t.context(), item.path());
    read_job(js, item.node(), "job " + job.name, static_cast<std::uint32_t>(job.gpus.size()), s.gpu,
             job.model, job.config);
    s.jobs.push_back(std::move(job));
  }
}

}  // namespace

TrainingSection read_training(const Section& t, const net::Topology& topo) {
  if (t.has("import")) {
    if (t.has("jobs")) t.fail_key("jobs", "cannot go with import (one imported job)");
    return read_import(t, topo);
  }
  std::vector<std::string_view> keys =
      comm_model_keys({"kernels", "network", "stragglers", "jobs"});
  keys.insert(keys.end(), std::begin(kJobKeys), std::end(kJobKeys));
  t.only(keys);
  TrainingSection s = training_base(t, topo);
  const auto gpus = static_cast<std::uint32_t>(gpu_count(topo));
  if (t.has("jobs")) {
    if (s.comm != workload::CommMode::Packet) {
      t.fail_key("network", "must be packet with jobs: several jobs share the fabric only there");
    }
    read_jobs(t, topo, s);
    s.model = s.jobs.front().model;
    s.config = s.jobs.front().config;
  } else {
    read_job(t, t.node(), "the cluster", gpus, s.gpu, s.model, s.config);
  }
  const std::string db = t.has("kernels") ? t.text("kernels") : compute::default_kernel_db_path();
  try {
    s.kernels = compute::KernelDb::load(db);
  } catch (const std::runtime_error& e) {
    t.fail_key("kernels", e.what());
  }
  t.context().inputs.push_back(db);
  read_comm_model(t, topo, s.gpu, s.hw, s.exec);
  return s;
}

}  // namespace fabricsim::tools
