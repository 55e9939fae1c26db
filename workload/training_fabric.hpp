#pragma once
// One training iteration on the shared fabric: every rank's operation DAG (training.hpp) runs
// in one packet-level network simulation. A host agent runs the ranks of its host: a compute op
// is a timer for its kernel time on the rank's compute stream; a communication op, once its
// dependencies are met and it heads its stream, starts that rank's part of the communication's
// plan (plan_runner.hpp), and ends when that part has completed. So data-parallel rings of
// different pipeline stages, pipeline sends and tensor-parallel traffic meet on the links and
// NVLink they share, as they do on a real cluster; nothing waits for a global barrier (a rank's
// receives wait for their data, its sends for the receiver's free slots, as NCCL's do).
#include <cstdint>
#include <vector>

#include "net/config.hpp"
#include "net/network.hpp"
#include "net/topology/topology.hpp"
#include "workload/collective_exec.hpp"
#include "workload/training.hpp"
#include "workload/training_exec.hpp"

namespace fabricsim::workload {

struct FabricTraining {
  TrainingTimeline timeline;
  net::NetworkResult net;
  std::size_t shapes = 0;         // distinct plans built (instances share them)
  std::uint32_t queue_pairs = 0;  // RDMA connections of all communications
  // Per Dag::comms entry: from its data starting to move (its last member's start; a
  // transfer's send) to its last participant's completion.
  std::vector<core::Time> comm_time;
};

// `layout`: every GPU of `topo` (rank_layout); every rank of the DAG must be simulated (all
// replicas built). Throws std::invalid_argument for a DAG or plan that does not fit the
// cluster, std::runtime_error naming the op that never ends when the DAG stalls.
// Several jobs in one DAG: per rank, its job (which tags the flows of its communications,
// FlowSpec::tag) and when its first ops may begin (its job's start).
struct RankJobs {
  std::vector<std::uint16_t> job;
  std::vector<core::Time> start;
};

// `slowdown`: per rank, a factor on its kernels' times (empty: none). `jobs`: null for one job
// starting at 0.
FabricTraining run_training_on_fabric(const Dag& dag, const std::vector<core::Time>& kernel_time,
                                      const net::Topology& topo, const net::NetworkConfig& cfg,
                                      const collectives::RankLayout& layout,
                                      const ExecParams& params, const net::RunOptions& run,
                                      const std::vector<double>& slowdown = {},
                                      const RankJobs* jobs = nullptr);

}  // namespace fabricsim::workload
