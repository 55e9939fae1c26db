#pragma once
// How long the communications of a training DAG take on the simulated cluster: each one's
// collective plan (or send/recv) is run alone on the packet-level network and the NVLink
// model, once per shape. A shape is the operation, the size and where the members sit (GPUs
// per host, local GPU and NIC of each, hosts numbered in order of appearance): groups that
// differ only in which hosts they use are taken to take the same time, as they do on the
// symmetric fabrics (fat trees, rail-optimized) of the training scenarios. Concurrent
// communications do not slow each other down here.
#include <cstdint>
#include <vector>

#include "net/config.hpp"
#include "net/network.hpp"
#include "net/topology/topology.hpp"
#include "workload/collective_exec.hpp"
#include "workload/training.hpp"

namespace fabricsim::workload {

// Communications that differ only in which hosts they use take one plan: its shape is the
// operation, the size and where the members sit (GPUs per host, local GPU and NIC of each, hosts
// numbered in order of appearance). Throws std::invalid_argument for a group naming a rank the
// cluster does not have.
struct CommShapes {
  std::vector<std::size_t> shape_of;  // per Dag::comms entry
  std::vector<std::size_t> first;     // per shape: its first communication
  std::vector<double> weight;         // per shape: bytes x hosts, a guess at its cost
};
CommShapes comm_shapes(const Dag& dag, const collectives::RankLayout& layout);
// Per Dag::groups entry, its members' places, in group order. Throws std::invalid_argument for
// a group naming a rank the cluster does not have.
std::vector<std::vector<collectives::RankInfo>> group_members(
    const Dag& dag, const collectives::RankLayout& layout);
// Communication `comm`'s members, in group order, as a layout of their own.
collectives::RankLayout comm_members(const Dag& dag, std::size_t comm,
                                     const collectives::RankLayout& layout);
// The call a communication makes (a send/recv goes from member 0 to member 1).
collectives::Call comm_call(const Comm& comm);

// Told after each network run: how many of how many are done (from one thread only).
using CommProgressFn = void (*)(void* ctx, std::size_t done, std::size_t total);

struct CommTimes {
  std::vector<core::Time> time;  // per Dag::comms entry
  std::size_t shapes = 0;        // distinct communications run on the network
  std::uint64_t events = 0;      // network events of all those runs
  bool side_by_side = false;     // shapes ran in parallel, one thread each
};

// `layout`: every GPU of `topo` (rank_layout); DAG ranks are its ranks. With run.threads > 1
// and no shape heavier (bytes x hosts) than a thread's share of them all, shapes run side by
// side on one thread each, largest first; otherwise one at a time, each on run.threads. Both give
// the same times: every run is deterministic whatever its threads and partition. Throws
// std::invalid_argument for a group naming a rank the cluster does not have.
CommTimes time_communications(const Dag& dag, const net::Topology& topo,
                              const net::NetworkConfig& cfg, const collectives::RankLayout& layout,
                              const ExecParams& params, const net::RunOptions& run,
                              CommProgressFn progress = nullptr, void* progress_ctx = nullptr);

}  // namespace fabricsim::workload
