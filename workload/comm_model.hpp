#pragma once
// The analytical fidelity of a training iteration: every distinct communication timed by a
// closed form instead of a network run, and replayed in the schedule as the isolated path does
// (comm_cost.hpp). Collectives take NCCL's own tuning-model estimate for the algorithm and
// protocol it picks (collectives::model_time). NCCL's model does not time point-to-point
// operations; they take an alpha-beta form on the hardware the scenario describes:
//   send/recv: bytes over the path's rate (the GPU's usable NVLink inside a host; the slower
//     NIC's goodput, mtu / (mtu + 82) of its line rate, between hosts), plus the path's
//     latency (NVLink hop; or host-NIC delay at both ends and every link's propagation);
//   all-to-all: each rank's share to every other rank, the slower of its NVLink part (peers in
//     its host) and its NIC part (peers elsewhere, the NIC shared by the host's GPUs on it),
//     plus the longer latency. The fabric is taken as non-blocking.
// Nothing contends and nothing runs: seconds for any cluster.
#include <cstdint>
#include <vector>

#include "collectives/call.hpp"
#include "net/config.hpp"
#include "net/topology/topology.hpp"
#include "workload/collective_exec.hpp"
#include "workload/comm_cost.hpp"
#include "workload/training.hpp"

namespace fabricsim::workload {

// One communication's closed-form time. `members`: its ranks (hosts index `topo.hosts`).
// Throws collectives::PlanError for a call the plan builder would refuse.
core::Time model_communication(const collectives::Call& call,
                               const collectives::RankLayout& members, const net::Topology& topo,
                               const net::NetworkConfig& cfg, const ExecParams& params);

// Every communication of the DAG, one closed form per shape (comm_shapes); `events` stays 0.
CommTimes model_communications(const Dag& dag, const net::Topology& topo,
                               const net::NetworkConfig& cfg, const collectives::RankLayout& layout,
                               const ExecParams& params);

}  // namespace fabricsim::workload
