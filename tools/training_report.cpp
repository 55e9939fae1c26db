#include "tools/training_report.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>

#include "tools/csv.hpp"
#include "tools/net_report.hpp"
#include "tools/progress.hpp"
#include "tools/results_json.hpp"

namespace fabricsim::tools {
namespace {

using workload::Stream;

const char* stream_name(int s) {
  switch (static_cast<Stream>(s)) {
    case Stream::Compute:
      return "compute";
    case Stream::Tp:
      return "tensor-parallel";
    case Stream::PpSend:
      return "pipeline send";
    case Stream::PpRecv:
      return "pipeline recv";
    case Stream::Dp:
      return "data-parallel";
    case Stream::Ep:
      return "expert-parallel";
    case Stream::Cpu:
      return "cpu";
    case Stream::Comm:
      return "communication";
    case Stream::Count:
      break;
  }
  return "?";
}

const char* schedule_name(workload::Schedule s) {
  switch (s) {
    case workload::Schedule::GPipe:
      return "gpipe";
    case workload::Schedule::OneFOneB:
      return "1f1b";
    case workload::Schedule::Interleaved:
      return "interleaved";
  }
  return "?";
}

std::string pct(double part, double whole) {
  return whole > 0 ? fmt::format("{:5.1f}%", 100.0 * part / whole) : "    -";
}

// One line: where the chain of ops that set the iteration time spent it.
std::string critical_path_summary(const workload::TrainingReport& r) {
  const workload::CriticalPath& cp = r.critical;
  if (cp.steps.empty()) return {};
  static constexpr const char* kPhases[] = {"forward", "backward", "recompute", "optimizer"};
  std::string parts;
  const auto add = [&](const char* what, core::Time t) {
    if (t > 0) parts += fmt::format("{}{} {:.4f} s", parts.empty() ? "" : ", ", what, t * 1e-12);
  };
  static_assert(std::size(kPhases) == workload::CriticalPath::kPhases);
  for (int p = 0; p < workload::CriticalPath::kPhases; ++p) add(kPhases[p], cp.compute[p]);
  for (int s = 0; s < static_cast<int>(Stream::Count); ++s) add(stream_name(s), cp.comm[s]);
  add("idle", cp.idle);
  std::string ranks;
  for (std::size_t k = 0; k < cp.ranks.size() && k < 6; ++k) {
    ranks += fmt::format("{}{}", k ? ", " : "", cp.ranks[k]);
  }
  if (cp.ranks.size() > 6) ranks += ", ...";
  return fmt::format("critical path       {}; through {} rank(s) ({})\n", parts, cp.ranks.size(),
                     ranks);
}

}  // namespace

namespace {

// What the scenario gives every training run: cluster, network, GPU, kernels, how to run.
workload::TrainingInputs inputs_of(const Scenario& sc) {
  const NetScenario& ns = *sc.net;
  const TrainingSection& t = *ns.training;
  workload::TrainingInputs in;
  in.gpu = t.gpu;
  in.kernels = &t.kernels;
  in.topology = &ns.topology;
  in.network = &ns.network;
  in.hw = t.hw;
  in.exec = t.exec;
  in.comm = t.comm;
  in.slowdown = t.slowdown;
  in.run = ns.run;
  return in;
}

}  // namespace

workload::TrainingReport run_training(const Scenario& sc, bool quiet) {
  const TrainingSection& t = *sc.net->training;
  workload::TrainingInputs in = inputs_of(sc);
  in.model = t.model;
  in.config = t.config;
  if (t.imported) in.imported = &*t.imported;
  // One packet-level run: the kernel's own progress line (isolated runs report per shape).
  if (t.comm == workload::CommMode::Packet && progress_wanted(quiet)) {
    in.run.progress = show_progress;
  }
  auto start = std::chrono::steady_clock::now();
  if (progress_wanted(quiet)) {
    in.progress = show_comm_progress;
    in.progress_ctx = &start;
  }
  try {
    workload::TrainingReport r = workload::simulate_training(in);
    clear_progress();
    return r;
  } catch (...) {
    clear_progress();
    throw;
  }
}

namespace {

// The model, its parallelism and the memory estimate.
std::string model_summary(const workload::ModelSpec& model, const workload::TrainingConfig& c,
                          const compute::GpuSpec& gpu, const workload::TrainingReport& r) {
  std::string out = fmt::format(
      "job: {} on {} x {}, tp {} pp {} dp {}{}, {} schedule{}, micro-batch {}, global "
      "batch {} ({} micro-batches per replica), recompute {}, ZeRO {}\n",
      model.name, c.world(), gpu.name, c.tp, c.pp, c.dp,
      c.ep > 1 ? fmt::format(" ep {}", c.ep) : "", schedule_name(c.schedule),
      c.schedule == workload::Schedule::Interleaved
          ? fmt::format(" ({} chunks per stage)", c.virtual_stages)
          : "",
      c.micro_batch, c.global_batch, c.micro_batches(),
      c.recompute == workload::Recompute::None        ? "none"
      : c.recompute == workload::Recompute::Selective ? "selective"
                                                      : "full",
      c.zero);
  const workload::MemoryEstimate& m = r.memory;
  out += fmt::format(
      "memory per GPU (first stage): weights {:.1f} GB, gradients {:.1f} GB, optimizer {:.1f} "
      "GB, activations {:.1f} GB = {:.1f} of {:.0f} GB\n",
      m.weights / 1e9, m.gradients / 1e9, m.optimizer / 1e9, m.activations / 1e9, m.total() / 1e9,
      gpu.hbm_gb);
  return out;
}

// The iteration: its time and breakdown, critical path and throughput.
std::string iteration_summary(const workload::TrainingReport& r, const compute::GpuSpec& gpu) {
  const double it = r.iteration_s;
  // Four decimals of a second hide a short imported trace (a microbenchmark): say it in us too.
  std::string out = it < 0.01
                        ? fmt::format("iteration time      {:.4f} s ({:.3f} us)\n", it, it * 1e6)
                        : fmt::format("iteration time      {:.4f} s\n", it);
  out += fmt::format("  compute           {:.4f} s {}\n", r.compute_s, pct(r.compute_s, it));
  double exposed = 0;
  for (int s = 0; s < static_cast<int>(Stream::Count); ++s) exposed += r.exposed_s[s];
  out += fmt::format("  exposed comm      {:.4f} s {}\n", exposed, pct(exposed, it));
  for (int s = 0; s < static_cast<int>(Stream::Count); ++s) {
    if (r.exposed_s[s] > 0) {
      out += fmt::format("    {:<15} {:.4f} s {}\n", stream_name(s), r.exposed_s[s],
                         pct(r.exposed_s[s], it));
    }
  }
  out += fmt::format("  bubble and waits  {:.4f} s {}\n", r.bubble_s, pct(r.bubble_s, it));
  out += critical_path_summary(r);
  if (r.dag.model_flops > 0) {
    out += fmt::format(
        "throughput          {:.1f} TFLOP/s per GPU (model FLOPs), MFU {:.1f}% of "
        "{:.0f} TFLOP/s\n",
        r.tflops_per_gpu, 100.0 * r.mfu, gpu.bf16_tflops);
  } else {
    out += "throughput          unknown (the workload file gives times, not FLOPs)\n";
  }
  return out;
}

// What the shared fabric ran at.
const char* level(const net::NetworkResult& fabric) {
  return fabric.fidelity == net::Fidelity::kFlow ? "flow level" : "packet";
}

// The shared fabric over `span` (ps, `what`): the busiest links (with jobs: whose data they
// carried) and the marks and pauses.
std::string fabric_summary(const Scenario& sc, const net::NetworkResult& fabric, core::Time span,
                           const char* what) {
  const std::vector<workload::TrainingJob>& jobs = sc.net->training->jobs;
  std::string links;
  for (const BusyLink& l : busiest_links(sc.net->topology, fabric, span, 3)) {
    links += fmt::format("{}{} {:.1f}%", links.empty() ? "" : ", ", l.name, 100 * l.share);
    if (jobs.empty()) continue;
    std::uint64_t total = 0;
    for (std::uint32_t j = 0; j < jobs.size(); ++j) total += fabric.data_bytes(l.port, j);
    std::string split;
    for (std::uint32_t j = 0; j < jobs.size() && total > 0; ++j) {
      const std::uint64_t bytes = fabric.data_bytes(l.port, j);
      if (bytes == 0) continue;
      const double share = 100.0 * double(bytes) / double(total);
      split += fmt::format("{}{} {}", split.empty() ? "" : ", ", jobs[j].name,
                           share < 1 ? std::string("<1%") : fmt::format("{:.0f}%", share));
    }
    if (!split.empty()) links += " (" + split + ")";
  }
  std::string out = fmt::format("busiest links (busy share of {}): {}\n", what, links);
  if (fabric.fidelity == net::Fidelity::kFlow) return out;  // no marks or pauses exist
  std::uint64_t pauses = 0, marks = 0, lost = 0;
  for (const net::PortStats& p : fabric.ports) {
    pauses += p.pauses_sent, marks += p.ecn_marks, lost += p.lost;
  }
  // Frames sent into links while they were down (cluster.failed_links), resent by their NICs.
  const std::string failed = lost ? fmt::format(", {} frames lost on failed links", lost) : "";
  return out + fmt::format("fabric: {} ECN marks, {} PFC pauses{}\n", marks, pauses, failed);
}

}  // namespace

std::string training_summary(const Scenario& sc, const workload::TrainingReport& r) {
  const TrainingSection& t = *sc.net->training;
  const workload::TrainingConfig& c = t.config;
  std::string out;
  if (t.imported && t.imported_format.starts_with("chakra")) {
    out = fmt::format("job: imported {} (Chakra execution traces) on {} x {}\n", t.imported_from,
                      c.world(), t.gpu.name);
  } else if (t.imported) {
    out = fmt::format("job: imported {} on {} x {}, tp {} dp {}{}\n", t.imported_from, c.world(),
                      t.gpu.name, c.tp, c.dp, c.ep > 1 ? fmt::format(" ep {}", c.ep) : "");
  } else {
    out = model_summary(t.model, c, t.gpu, r);
  }
  if (!t.slowdown.empty()) {
    std::size_t slow = 0;
    double worst = 1.0;
    for (const double f : t.slowdown) {
      slow += f != 1.0;
      if (std::abs(f - 1.0) > std::abs(worst - 1.0)) worst = f;
    }
    out += fmt::format("stragglers          {} GPU(s) with kernel times scaled, up to x{:.2f}\n",
                       slow, worst);
  }
  out += iteration_summary(r, t.gpu);
  std::map<std::string, int> paths;
  for (const compute::KernelTime& k : r.kernel_source) ++paths[std::string(name(k.path))];
  std::string p;
  for (const auto& [k, n] : paths) p += fmt::format("{}{} {}", p.empty() ? "" : ", ", n, k);
  std::size_t ops = 0;
  for (const workload::RankDag& rd : r.dag.ranks) ops += rd.ops.size();
  out += fmt::format("model: {} ops on {} ranks, {} kernel shapes ({}), {} communications\n", ops,
                     r.dag.ranks.size(), r.dag.kernels.size(), p, r.dag.comms.size());
  if (r.comm == workload::CommMode::Packet) {
    out += fmt::format(
        "network: {} (every rank's communications on one shared fabric): {} plans, {} queue "
        "pairs, {} events\n",
        level(r.fabric), r.comm_shapes, r.queue_pairs, r.network_events);
    // Where the fabric was busiest: the links a slow iteration should be read from.
    out += fabric_summary(sc, r.fabric, r.timeline.iteration, "the iteration");
  } else if (r.comm == workload::CommMode::Analytical) {
    out += fmt::format(
        "network: analytical (each of {} distinct communications timed by a closed form, NCCL's "
        "tuning model for collectives and alpha-beta for point-to-point, and replayed; no "
        "network run)\n",
        r.comm_shapes);
  } else {
    out += fmt::format(
        "network: isolated (each of {} distinct communications alone on an idle fabric, its time "
        "replayed): {} events\n",
        r.comm_shapes, r.network_events);
  }
  return out;
}

namespace {

// The ranks trace.json and ops.csv hold: every simulated one (the other data-parallel replicas
// run the same schedule and are left out when TrainingConfig::one_replica), or with more than
// `max_ops` operations in all, tensor-parallel rank 0 of replica 0, one per pipeline stage.
struct RankSample {
  bool all = true;
  std::string description;
};

RankSample sample_ranks(const workload::TrainingReport& r, std::size_t max_ops) {
  std::size_t ops = 0, simulated = 0;
  for (const workload::RankDag& rd : r.dag.ranks) {
    ops += rd.ops.size();
    simulated += rd.simulated;
  }
  RankSample out;
  out.all = ops <= max_ops;
  out.description =
      !out.all ? "tp 0 of dp replica 0, one per pipeline stage"
      : simulated == r.dag.ranks.size()
          ? "all"
          : fmt::format("the {} ranks of dp replica 0 (the other replicas are not simulated)",
                        simulated);
  return out;
}

struct RankCoords {
  int tp, dp, pp;
};

RankCoords coords_of(std::size_t rank, const workload::TrainingConfig& c) {
  const int rk = static_cast<int>(rank);
  return {rk % c.tp, rk / c.tp % c.dp, rk / (c.tp * c.dp)};
}

bool kept(const workload::TrainingReport& r, const workload::TrainingConfig& c,
          const RankSample& sample, std::size_t rank) {
  const RankCoords rc = coords_of(rank, c);
  return r.dag.ranks[rank].simulated && (sample.all || (rc.tp == 0 && rc.dp == 0));
}

const char* category(const workload::Op& op) {
  if (op.kind != workload::OpKind::Compute) return "communication";
  return op.phase == workload::Phase::Forward     ? "forward"
         : op.phase == workload::Phase::Backward  ? "backward"
         : op.phase == workload::Phase::Recompute ? "recompute"
                                                  : "optimizer";
}

}  // namespace

std::string trace_json(const workload::TrainingReport& r, const workload::TrainingConfig& c,
                       std::size_t max_ops) {
  const RankSample sample = sample_ranks(r, max_ops);
  std::string out = "{\"displayTimeUnit\": \"ms\", \"otherData\": {\"ranks\": \"";
  out += sample.description;
  out += "\"},\n\"traceEvents\": [\n";
  bool first = true;
  const auto sep = [&] {
    if (!first) out += ",\n";
    first = false;
  };
  for (std::size_t rank = 0; rank < r.dag.ranks.size(); ++rank) {
    if (!kept(r, c, sample, rank)) continue;
    const RankCoords rc = coords_of(rank, c);
    sep();
    out += fmt::format(
        R"j({{"name": "process_name", "ph": "M", "pid": {}, "args": {{"name": "rank {} (tp {}, dp {}, pp {})"}}}})j",
        rank, rank, rc.tp, rc.dp, rc.pp);
    for (int s = 0; s < static_cast<int>(Stream::Count); ++s) {
      sep();
      out += fmt::format(
          R"j({{"name": "thread_name", "ph": "M", "pid": {}, "tid": {}, "args": {{"name": "{}"}}}})j",
          rank, s, stream_name(s));
    }
    const workload::RankDag& rd = r.dag.ranks[rank];
    for (std::size_t i = 0; i < rd.ops.size(); ++i) {
      const workload::Op& op = rd.ops[i];
      const workload::OpTiming& tm = r.timeline.ops[rank][i];
      sep();
      // Chrome trace times are microseconds; core::Time is picoseconds. Start and end are
      // rounded to whole nanoseconds first, so a slice ends exactly where the next one on its
      // stream starts (rounding start and duration apart made them overlap by 1 ns).
      const std::int64_t start_ns = (tm.start + 500) / 1000, end_ns = (tm.end + 500) / 1000;
      out += fmt::format(
          R"j({{"name": "{}", "cat": "{}", "ph": "X", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}, "args": {{"micro_batch": {}, "layer": {}}}}})j",
          workload::kOpNames[op.name], category(op), rank, static_cast<int>(op.stream),
          static_cast<double>(start_ns) * 1e-3, static_cast<double>(end_ns - start_ns) * 1e-3,
          op.micro_batch, op.layer);
    }
  }
  out += "\n]}\n";
  return out;
}

std::string ops_csv(const workload::TrainingReport& r, const workload::TrainingConfig& c,
                    std::size_t max_ops) {
  const RankSample sample = sample_ranks(r, max_ops);
  std::string out =
      "rank,tp,dp,pp,stream,op,category,micro_batch,layer,collective,bytes,group_ranks,start_us,"
      "end_us,duration_us\n";
  for (std::size_t rank = 0; rank < r.dag.ranks.size(); ++rank) {
    if (!kept(r, c, sample, rank)) continue;
    const RankCoords rc = coords_of(rank, c);
    const workload::RankDag& rd = r.dag.ranks[rank];
    for (std::size_t i = 0; i < rd.ops.size(); ++i) {
      const workload::Op& op = rd.ops[i];
      const workload::OpTiming& tm = r.timeline.ops[rank][i];
      std::string comm = ",,";
      if (op.kind != workload::OpKind::Compute) {
        const workload::Comm& cm = r.dag.comms[op.item];
        comm = fmt::format("{},{},{}", collectives::name(cm.op), cm.bytes,
                           r.dag.groups[cm.group].size());
      }
      out += fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f}\n", rank, rc.tp, rc.dp, rc.pp,
          stream_name(static_cast<int>(op.stream)), csv_field(workload::kOpNames[op.name]),
          category(op), op.micro_batch, op.layer, comm, static_cast<double>(tm.start) * 1e-6,
          static_cast<double>(tm.end) * 1e-6, static_cast<double>(tm.end - tm.start) * 1e-6);
    }
  }
  return out;
}

namespace {

// Several jobs on one fabric: each job's summary, then the shared fabric's.
int print_jobs(const Scenario& sc, const std::string& out_dir, bool quiet) {
  const NetScenario& ns = *sc.net;
  const TrainingSection& t = *ns.training;
  std::printf("%s", describe(sc).c_str());
  std::fflush(stdout);
  workload::TrainingInputs in = inputs_of(sc);
  if (progress_wanted(quiet)) in.run.progress = show_progress;
  const auto t0 = std::chrono::steady_clock::now();
  workload::JobsReport jr;
  try {
    jr = workload::simulate_jobs(in, t.jobs);
    clear_progress();
  } catch (...) {
    clear_progress();
    throw;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const collectives::RankLayout layout = workload::rank_layout(ns.topology, t.hw);
  for (std::size_t j = 0; j < t.jobs.size(); ++j) {
    const workload::TrainingJob& job = t.jobs[j];
    // The hosts of its GPUs, in the order the job lists them.
    std::string hosts;
    int last = -1;
    for (const int g : job.gpus) {
      const int h = layout.ranks[static_cast<std::size_t>(g)].host;
      if (h == last) continue;
      hosts += fmt::format("{}{}", hosts.empty() ? "" : ", ", ns.topology.hosts[h].name);
      last = h;
    }
    std::printf("== job %s on %s, from %s\n", job.name.c_str(), hosts.c_str(),
                job.start > 0 ? core::format_time(job.start).c_str() : "the start");
    std::printf("%s%s", model_summary(job.model, job.config, t.gpu, jr.jobs[j]).c_str(),
                iteration_summary(jr.jobs[j], t.gpu).c_str());
    // Where this job's own bytes were heaviest, over its own iteration.
    std::string links;
    for (const BusyLink& l : busiest_links(ns.topology, jr.fabric, jr.jobs[j].timeline.iteration, 3,
                                           static_cast<int>(j))) {
      if (l.share <= 0) break;
      links += fmt::format("{}{} {:.1f}%", links.empty() ? "" : ", ", l.name, 100 * l.share);
    }
    if (!links.empty())
      std::printf("its busiest links (its data's share of its iteration): %s\n", links.c_str());
  }
  std::printf(
      "== shared fabric until the last job ends (%.4f s)\nnetwork: %s, %zu jobs: %zu plans, "
      "%u queue pairs, %llu events\n%s",
      static_cast<double>(jr.end) * 1e-12, level(jr.fabric), t.jobs.size(), jr.comm_shapes,
      jr.queue_pairs, static_cast<unsigned long long>(jr.fabric.kernel.events),
      fabric_summary(sc, jr.fabric, jr.end, "the run").c_str());
  std::printf("simulated in %.2f s\n", wall);
  if (!out_dir.empty()) {
    std::string traces;
    for (std::size_t j = 0; j < t.jobs.size(); ++j) {
      const std::string name = "trace_" + t.jobs[j].name + ".json";
      write_atomically(out_dir, name, trace_json(jr.jobs[j], t.jobs[j].config));
      const std::string ops = "ops_" + t.jobs[j].name + ".csv";
      write_atomically(out_dir, ops, ops_csv(jr.jobs[j], t.jobs[j].config));
      traces += name + "," + ops + ",";
    }
    write_atomically(out_dir, "results.json", results_json(sc, jr));
    std::vector<std::string> names;
    for (const workload::TrainingJob& j : t.jobs) names.push_back(j.name);
    write_atomically(out_dir, "ports.csv", ports_csv(ns.topology, jr.fabric, names));
    std::printf("wrote %s/{%sresults.json,ports.csv}\n", out_dir.c_str(), traces.c_str());
  }
  return 0;
}

}  // namespace

int print_training(const Scenario& sc, const std::string& out_dir, bool quiet) {
  if (!sc.net->training->jobs.empty()) return print_jobs(sc, out_dir, quiet);
  std::printf("%s", describe(sc).c_str());
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  const workload::TrainingReport r = run_training(sc, quiet);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s", training_summary(sc, r).c_str());
  std::printf("simulated in %.2f s\n", wall);
  if (!out_dir.empty()) {
    write_atomically(out_dir, "trace.json", trace_json(r, sc.net->training->config));
    write_atomically(out_dir, "ops.csv", ops_csv(r, sc.net->training->config));
    write_atomically(out_dir, "results.json", results_json(sc, r));
    if (r.comm == workload::CommMode::Packet) {
      // The shared fabric's own statistics: every port's busy time, bytes, queue, marks, pauses.
      write_atomically(out_dir, "ports.csv", ports_csv(sc.net->topology, r.fabric));
      std::printf("wrote %s/{trace.json,ops.csv,results.json,ports.csv}\n", out_dir.c_str());
    } else {
      std::printf("wrote %s/{trace.json,ops.csv,results.json}\n", out_dir.c_str());
    }
  }
  return 0;
}

}  // namespace fabricsim::tools
