#pragma once
// How long one communication of a training DAG takes on the simulated cluster: its collective
// plan (or send/recv) is run alone on the packet-level network and the NVLink model, and the
// time is remembered for every communication of the same shape. A shape is the operation, the
// size and where the members sit (GPUs per host, local GPU and NIC of each, hosts numbered in
// order of appearance): groups that differ only in which hosts they use are taken to take the
// same time, as they do on the symmetric fabrics (fat trees, rail-optimized) of the training
// scenarios. Concurrent communications do not slow each other down here.
#include <cstdint>
#include <map>
#include <vector>

#include "collectives/call.hpp"
#include "net/config.hpp"
#include "net/network.hpp"
#include "net/topology/topology.hpp"
#include "workload/collective_exec.hpp"
#include "workload/training.hpp"

namespace fabricsim::workload {

class CommCost {
 public:
  // `layout`: every GPU of `topo` (rank_layout); DAG ranks are its ranks.
  CommCost(const net::Topology& topo, const net::NetworkConfig& cfg,
           collectives::RankLayout layout, const ExecParams& params, const net::RunOptions& run);

  core::Time time(const Comm& comm, const std::vector<int>& group);

  std::size_t simulated() const { return cache_.size(); }
  std::uint64_t events() const { return events_; }

 private:
  const net::Topology& topo_;
  const net::NetworkConfig& cfg_;
  collectives::RankLayout layout_;
  ExecParams params_;
  net::RunOptions run_;
  std::map<std::vector<std::int64_t>, core::Time> cache_;
  std::uint64_t events_ = 0;
};

}  // namespace fabricsim::workload
