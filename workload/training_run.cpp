#include "workload/training_run.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "net/memory.hpp"
#include "workload/comm_cost.hpp"
#include "workload/comm_model.hpp"
#include "workload/rank_progress.hpp"
#include "workload/training_fabric.hpp"

namespace fabricsim::workload {

const char* name(CommMode m) {
  switch (m) {
    case CommMode::Packet:
      return "packet";
    case CommMode::Isolated:
      return "isolated";
    case CommMode::Analytical:
      return "analytical";
  }
  return "?";
}

MemoryEstimate check_memory(const ModelSpec& model, const TrainingConfig& c,
                            const compute::GpuSpec& gpu) {
  const MemoryEstimate m = estimate_memory(model, c);
  if (m.total() > gpu.hbm_gb * 1e9) {
    throw std::invalid_argument(fmt::format(
        "does not fit in GPU memory: weights {:.1f} GB + gradients {:.1f} GB + optimizer state "
        "{:.1f} GB + activations {:.1f} GB = {:.1f} GB per GPU, but the {} has {:.0f} GB (more "
        "tp/pp, ZeRO, recomputation or a smaller micro_batch would help)",
        m.weights / 1e9, m.gradients / 1e9, m.optimizer / 1e9, m.activations / 1e9, m.total() / 1e9,
        gpu.name, gpu.hbm_gb));
  }
  return m;
}

namespace {

std::vector<core::Time> kernel_times(const Dag& dag, const TrainingInputs& in,
                                     std::vector<compute::KernelTime>& source) {
  std::vector<core::Time> out;
  out.reserve(dag.kernels.size());
  for (const compute::Kernel& k : dag.kernels) {
    compute::KernelTime t = in.kernels->time(in.gpu, k);
    out.push_back(static_cast<core::Time>(std::llround(t.us * 1e6)));
    source.push_back(std::move(t));
  }
  return out;
}

// The critical path and the per-rank averages, from the timeline.
void summarize(TrainingReport& rep, int world, const compute::GpuSpec& gpu) {
  const Dag& dag = rep.dag;
  rep.critical = critical_path(dag, rep.timeline);
  double n = 0;
  for (const RankDag& rd : dag.ranks) n += rd.simulated ? 1 : 0;
  constexpr double kSecond = 1e12;  // core::Time is in picoseconds
  rep.iteration_s = static_cast<double>(rep.timeline.iteration) / kSecond;
  for (std::size_t r = 0; r < dag.ranks.size(); ++r) {
    if (!dag.ranks[r].simulated) continue;
    const RankBreakdown& b = rep.timeline.ranks[r];
    rep.compute_s += static_cast<double>(b.compute) / kSecond / n;
    for (int s = 0; s < static_cast<int>(Stream::Count); ++s) {
      rep.exposed_s[s] += static_cast<double>(b.exposed[s]) / kSecond / n;
    }
    rep.bubble_s += static_cast<double>(b.bubble) / kSecond / n;
  }
  if (rep.iteration_s > 0) {
    rep.tflops_per_gpu = dag.model_flops / world / rep.iteration_s / 1e12;
    rep.mfu = rep.tflops_per_gpu / gpu.bf16_tflops;
  }
}

}  // namespace

namespace {

// What a run holds per op of its DAG, roughly: the op and its dependencies, its communication,
// its timing, and the executors' bookkeeping (80 bytes an op, measured: a 4-layer model on 8
// GPUs at packet level grew by 67 KB of resident memory per micro-batch).
std::uint64_t dag_bytes(const Dag& d) {
  std::uint64_t ops = 0, deps = 0;
  for (const RankDag& r : d.ranks) {
    ops += r.ops.size();
    deps += r.deps.size() + 2 * r.issue_key.size();
  }
  return ops * (sizeof(Op) + sizeof(OpTiming) + 80) + deps * sizeof(std::uint32_t) +
         d.comms.size() * sizeof(Comm);
}

// A DAG grows with the micro-batches per replica: measured on a build of `step` of them (the
// interleaved schedule takes them in groups of pp), scaled up (a little over: the optimizer's
// part is counted each time), and refused above the memory limit before it is built (a global
// batch of 2^30 ran out of memory, or swapped). A run of a few groups is built as it is: the
// estimate would cost a good part of it.
void check_dag_size(const ModelSpec& m, const TrainingConfig& c) {
  const int step = c.schedule == Schedule::Interleaved ? c.pp : 1;
  const int mb = c.micro_batches();
  if (mb <= 8 * step) return;
  TrainingConfig small = c;
  small.global_batch = step * c.micro_batch * c.dp;
  const double need =
      static_cast<double>(dag_bytes(build_training(m, small))) * (static_cast<double>(mb) / step);
  if (need > static_cast<double>(net::memory_limit())) {
    throw std::length_error(fmt::format(
        "the training DAG of {} micro-batches per replica needs about {} (its ops, their "
        "dependencies and the executors' state), above the {} limit (--max-memory; default 75% "
        "of this machine's memory): lower training.global_batch or raise training.micro_batch",
        mb, net::approx_bytes(static_cast<std::uint64_t>(need)),
        net::approx_bytes(net::memory_limit())));
  }
}

}  // namespace

TrainingReport simulate_training(const TrainingInputs& in) {
  if (!in.kernels || !in.topology || !in.network) {
    throw std::invalid_argument("simulate_training: kernels, topology and network are needed");
  }
  int gpus = 0;
  for (const net::Host& h : in.topology->hosts) gpus += static_cast<int>(h.gpus);
  const TrainingConfig& c = in.config;
  if (c.world() != gpus) {
    throw std::invalid_argument(
        fmt::format("tp x pp x dp = {} x {} x {} = {} ranks, but the cluster has {} GPUs", c.tp,
                    c.pp, c.dp, c.world(), gpus));
  }
  if (!in.slowdown.empty() && in.slowdown.size() != static_cast<std::size_t>(gpus)) {
    throw std::invalid_argument(fmt::format("{} straggler factors for {} GPUs: one per GPU needed",
                                            in.slowdown.size(), gpus));
  }
  TrainingReport rep;
  const bool packet = in.comm == CommMode::Packet && !in.free_communication;
  rep.comm = packet || in.comm == CommMode::Analytical ? in.comm : CommMode::Isolated;
  if (in.imported) {
    rep.dag = *in.imported;
  } else {
    rep.memory = check_memory(in.model, c, in.gpu);
    // On the shared fabric every replica runs: contention between them is the point.
    TrainingConfig built = c;
    built.one_replica = !packet && in.slowdown.empty();
    check_dag_size(in.model, built);
    rep.dag = build_training(in.model, built);
  }
  const Dag& dag = rep.dag;

  rep.kernel_time = kernel_times(dag, in, rep.kernel_source);
  rep.comm_time.assign(dag.comms.size(), 0);
  if (packet) {
    FabricTraining f =
        run_training_on_fabric(dag, rep.kernel_time, *in.topology, *in.network,
                               rank_layout(*in.topology, in.hw), in.exec, in.run, in.slowdown);
    rep.timeline = std::move(f.timeline);
    rep.comm_time = std::move(f.comm_time);
    rep.comm_shapes = f.shapes;
    rep.network_events = f.net.kernel.events;
    rep.queue_pairs = f.queue_pairs;
    rep.fabric = std::move(f.net);
  } else if (in.comm == CommMode::Analytical && !in.free_communication) {
    CommTimes t = model_communications(dag, *in.topology, *in.network,
                                       rank_layout(*in.topology, in.hw), in.exec);
    rep.comm_time = std::move(t.time);
    rep.comm_shapes = t.shapes;
  } else if (!in.free_communication) {
    CommTimes t =
        time_communications(dag, *in.topology, *in.network, rank_layout(*in.topology, in.hw),
                            in.exec, in.run, in.progress, in.progress_ctx);
    rep.comm_time = std::move(t.time);
    rep.comm_shapes = t.shapes;
    rep.network_events = t.events;
    rep.comm_side_by_side = t.side_by_side;
  }
  if (!packet) {
    rep.timeline = execute_training(dag, rep.kernel_time, rep.comm_time, in.slowdown);
    // Timed apart from the fabric, the iteration still ends where a shared run would have.
    if (rep.timeline.iteration > in.run.end) throw_cut_off(in.run.end);
  }
  summarize(rep, c.world(), in.gpu);
  return rep;
}

JobsReport simulate_jobs(const TrainingInputs& in, const std::vector<TrainingJob>& jobs) {
  if (!in.kernels || !in.topology || !in.network) {
    throw std::invalid_argument("simulate_jobs: kernels, topology and network are needed");
  }
  if (in.comm != CommMode::Packet || in.free_communication) {
    throw std::invalid_argument("several jobs share the fabric only at packet level");
  }
  const collectives::RankLayout layout = rank_layout(*in.topology, in.hw);
  const int gpus = static_cast<int>(layout.ranks.size());
  if (!in.slowdown.empty() && in.slowdown.size() != layout.ranks.size()) {
    throw std::invalid_argument(fmt::format("{} straggler factors for {} GPUs: one per GPU needed",
                                            in.slowdown.size(), gpus));
  }
  if (jobs.size() > 65535) throw std::invalid_argument("more than 65,535 jobs");
  JobsReport out;
  Dag all;
  all.ranks.resize(layout.ranks.size());
  std::vector<core::Time> kernel_time;
  // GPUs outside every job keep kIdle; none of their ops or communications exist.
  constexpr std::uint16_t kIdle = 0xFFFF;
  RankJobs rank_jobs{std::vector<std::uint16_t>(layout.ranks.size(), kIdle),
                     std::vector<core::Time>(layout.ranks.size(), 0)};
  std::vector<std::size_t> comm_base;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const TrainingJob& job = jobs[j];
    const int n = job.config.world();
    if (static_cast<int>(job.gpus.size()) != n) {
      throw std::invalid_argument(fmt::format("job {}: tp x pp x dp = {}, but it is given {} GPUs",
                                              job.name, n, job.gpus.size()));
    }
    for (const int g : job.gpus) {
      if (g < 0 || g >= gpus) {
        throw std::invalid_argument(
            fmt::format("job {} names GPU {}, but the cluster has {}", job.name, g, gpus));
      }
    }
    if (job.start < 0) throw std::invalid_argument("job " + job.name + " starts before 0");
    TrainingReport rep;
    rep.comm = CommMode::Packet;
    rep.memory = check_memory(job.model, job.config, in.gpu);
    TrainingConfig every_replica = job.config;
    every_replica.one_replica = false;
    rep.dag = build_training(job.model, every_replica);
    rep.kernel_time = kernel_times(rep.dag, in, rep.kernel_source);
    // Into the shared DAG: kernels, groups and communications after the earlier jobs', ranks at
    // the job's GPUs.
    const auto kernels0 = static_cast<std::uint32_t>(all.kernels.size());
    const auto comms0 = static_cast<std::uint32_t>(all.comms.size());
    const auto groups0 = static_cast<std::uint32_t>(all.groups.size());
    comm_base.push_back(comms0);
    all.kernels.insert(all.kernels.end(), rep.dag.kernels.begin(), rep.dag.kernels.end());
    kernel_time.insert(kernel_time.end(), rep.kernel_time.begin(), rep.kernel_time.end());
    for (std::vector<int> g : rep.dag.groups) {
      for (int& r : g) r = job.gpus[static_cast<std::size_t>(r)];
      all.groups.push_back(std::move(g));
    }
    for (Comm c : rep.dag.comms) {
      c.group += groups0;
      all.comms.push_back(c);
    }
    for (int r = 0; r < n; ++r) {
      const auto g = static_cast<std::size_t>(job.gpus[static_cast<std::size_t>(r)]);
      if (rank_jobs.job[g] != kIdle) {
        throw std::invalid_argument(fmt::format("jobs {} and {} both use GPU {}",
                                                jobs[rank_jobs.job[g]].name, job.name, g));
      }
      rank_jobs.job[g] = static_cast<std::uint16_t>(j);
      RankDag rd = rep.dag.ranks[r];
      for (Op& op : rd.ops) op.item += op.kind == OpKind::Compute ? kernels0 : comms0;
      all.ranks[g] = std::move(rd);
      rank_jobs.start[g] = job.start;
    }
    all.model_flops += rep.dag.model_flops;
    all.hardware_flops += rep.dag.hardware_flops;
    out.jobs.push_back(std::move(rep));
  }
  FabricTraining f = run_training_on_fabric(all, kernel_time, *in.topology, *in.network, layout,
                                            in.exec, in.run, in.slowdown, &rank_jobs);
  out.end = f.timeline.iteration;
  out.comm_shapes = f.shapes;
  out.queue_pairs = f.queue_pairs;
  // Each job's timeline counted from its start, accounted on its own DAG.
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    TrainingReport& rep = out.jobs[j];
    const TrainingJob& job = jobs[j];
    const int n = job.config.world();
    rep.timeline.ops.resize(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      std::vector<OpTiming>& ops = rep.timeline.ops[r];
      ops = std::move(
          f.timeline.ops[static_cast<std::size_t>(job.gpus[static_cast<std::size_t>(r)])]);
      for (OpTiming& t : ops) t.start -= job.start, t.end -= job.start;
    }
    account(rep.dag, rep.timeline);
    rep.comm_time.assign(
        f.comm_time.begin() + static_cast<std::ptrdiff_t>(comm_base[j]),
        f.comm_time.begin() + static_cast<std::ptrdiff_t>(comm_base[j] + rep.dag.comms.size()));
    rep.comm_shapes = f.shapes;
    rep.queue_pairs = f.queue_pairs;
    rep.network_events = f.net.kernel.events;
    summarize(rep, n, in.gpu);
  }
  out.fabric = std::move(f.net);
  return out;
}

}  // namespace fabricsim::workload
