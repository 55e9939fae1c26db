#include "workload/training_run.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "workload/comm_cost.hpp"
#include "workload/training_fabric.hpp"

namespace fabricsim::workload {

const char* name(CommMode m) {
  return m == CommMode::Packet ? "packet" : "isolated";
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
  rep.comm = packet ? CommMode::Packet : CommMode::Isolated;
  if (in.imported) {
    rep.dag = *in.imported;
  } else {
    rep.memory = check_memory(in.model, c, in.gpu);
    // On the shared fabric every replica runs: contention between them is the point.
    TrainingConfig built = c;
    built.one_replica = !packet && in.slowdown.empty();
    rep.dag = build_training(in.model, built);
  }
  const Dag& dag = rep.dag;

  rep.kernel_time.reserve(dag.kernels.size());
  for (const compute::Kernel& k : dag.kernels) {
    compute::KernelTime t = in.kernels->time(in.gpu, k);
    rep.kernel_time.push_back(static_cast<core::Time>(std::llround(t.us * 1e6)));
    rep.kernel_source.push_back(std::move(t));
  }
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
  }
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
    rep.tflops_per_gpu = dag.model_flops / c.world() / rep.iteration_s / 1e12;
    rep.mfu = rep.tflops_per_gpu / in.gpu.bf16_tflops;
  }
  return rep;
}

}  // namespace fabricsim::workload
