#pragma once
// One training iteration on a simulated cluster, end to end: the DAG from the generator,
// kernel times from the kernel-timing database, communication times from the network
// (comm_cost.hpp), the schedule from the executor, and the figures a user asks for.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compute/gpu.hpp"
#include "compute/kernel_db.hpp"
#include "net/config.hpp"
#include "net/network.hpp"
#include "net/topology/topology.hpp"
#include "workload/collective_exec.hpp"
#include "workload/comm_cost.hpp"
#include "workload/critical_path.hpp"
#include "workload/training.hpp"
#include "workload/training_exec.hpp"

namespace fabricsim::workload {

// How the communications of an iteration meet the network.
enum class CommMode : std::uint8_t {
  // Every rank's DAG in one packet-level run of the whole iteration (training_fabric.hpp):
  // communications share links and NVLink with everything that runs at the same time.
  Packet,
  // Each distinct communication alone on an idle network, its time replayed in the schedule
  // (comm_cost.hpp): fast, but nothing contends.
  Isolated,
  // Each distinct communication timed by a closed form, replayed the same way (comm_model.hpp):
  // no network run at all.
  Analytical,
};
const char* name(CommMode m);

struct TrainingInputs {
  ModelSpec model;
  TrainingConfig config;
  compute::GpuSpec gpu;
  const compute::KernelDb* kernels = nullptr;
  const net::Topology* topology = nullptr;
  const net::NetworkConfig* network = nullptr;
  collectives::Hardware hw;
  ExecParams exec;
  net::RunOptions run;
  CommMode comm = CommMode::Packet;
  // Per rank (empty: none), a factor on its kernels' times: a straggler GPU. Every replica then
  // runs in isolated mode too, since replicas are no longer alike.
  std::vector<double> slowdown;
  bool free_communication = false;  // every communication takes no time (schedule tests)
  // A DAG imported from a workload file (aicb_import.hpp) instead of the model's: no memory
  // estimate, and no model FLOPs (TFLOP/s and MFU stay 0). `config` still gives tp and dp. In
  // packet mode it must hold every replica.
  const Dag* imported = nullptr;
  CommProgressFn progress = nullptr;  // told after each network run
  void* progress_ctx = nullptr;
};

struct TrainingReport {
  Dag dag;
  std::vector<core::Time> kernel_time;
  std::vector<compute::KernelTime> kernel_source;  // per kernel: path and source
  std::vector<core::Time> comm_time;
  TrainingTimeline timeline;
  CriticalPath critical;  // the chain of ops that set the iteration time
  MemoryEstimate memory;
  // Averages over ranks, seconds: compute + exposed + bubble = iteration.
  double iteration_s = 0;
  double compute_s = 0;
  std::array<double, static_cast<int>(Stream::Count)> exposed_s{};
  double bubble_s = 0;
  double tflops_per_gpu = 0;         // model FLOPs per second per GPU
  double mfu = 0;                    // of the GPU's dense BF16 peak
  CommMode comm = CommMode::Packet;  // what ran
  std::size_t comm_shapes = 0;       // distinct communications (plans) on the network
  std::uint64_t network_events = 0;
  std::uint32_t queue_pairs = 0;   // packet mode: RDMA connections of all communications
  net::NetworkResult fabric;       // packet mode: the run's network result (ports, kernel)
  bool comm_side_by_side = false;  // see time_communications
};

// The memory estimate; throws std::invalid_argument showing it when it exceeds the GPU's HBM.
MemoryEstimate check_memory(const ModelSpec& model, const TrainingConfig& c,
                            const compute::GpuSpec& gpu);

// Throws std::invalid_argument for an inconsistent model/configuration, a world size that is
// not the cluster's GPU count, or a configuration that does not fit in the GPU's memory (the
// message shows the estimate).
TrainingReport simulate_training(const TrainingInputs& in);

// One of several jobs sharing a cluster: its own model and parallelism, its rank r on the
// cluster's GPU gpus[r] (rank_layout's order; config.world() of them), starting at `start`.
struct TrainingJob {
  std::string name;
  ModelSpec model;
  TrainingConfig config;
  std::vector<int> gpus;
  core::Time start = 0;
};

struct JobsReport {
  // Per job, as if it were a run of its own: its DAG, its op times counted from its start,
  // breakdown, critical path and figures. `fabric` holds the shared run.
  std::vector<TrainingReport> jobs;
  net::NetworkResult fabric;
  core::Time end = 0;  // when the last op of any job ended
  std::size_t comm_shapes = 0;
  std::uint32_t queue_pairs = 0;
};

// Every job's every rank in one packet-level run on the shared fabric (in.comm must be Packet;
// in.model, in.config and in.imported are not read). GPUs outside every job stay idle. Throws
// std::invalid_argument when jobs overlap, leave the cluster or do not fit in memory.
JobsReport simulate_jobs(const TrainingInputs& in, const std::vector<TrainingJob>& jobs);

}  // namespace fabricsim::workload
