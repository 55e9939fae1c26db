#pragma once
// The network transport NCCL runs between hosts, as the facts that set a message's latency:
// NCCL's own IB verbs transport (InfiniBand and RoCE), or AWS EFA through the aws-ofi-nccl
// plugin, one entry per platform class of the plugin's table. Two figures per transport, kept
// apart because they differ on real systems:
// - what the transport *reports* to NCCL (ncclNetProperties.latency). NCCL's tuning model adds
//   it to every network hop's latency, and once more for Simple ("flush extra latency";
//   src/graph/tuning.cc, graph->latencyInter from src/graph/search.cc). It steers NCCL's
//   choice of algorithm and protocol and nothing else;
// - what a message across the network *takes*: NCCL's own per-hop figures (hwLat[NET]) for its
//   IB transport, the transport's measured one-way latency for the others.
#include <optional>
#include <string>
#include <string_view>

#include "collectives/call.hpp"

namespace fabricsim::collectives {

struct TransportFacts {
  std::string_view name;  // the scenario's name (cluster.host.transport)
  // ncclNetProperties.latency, us: what NCCL's tuner adds per network hop (x2 for Simple).
  double reported_latency_us = 0;
  // One network hop of an LL / LL128 step, us; < 0: NCCL's own hwLat[NET] (its IB figures).
  double hop_latency_us = -1;
  // Added to a Simple step's hop, us: the device's completion reaching the host proxy.
  double simple_completion_us = 0;
  // The transport cannot deliver LL/LL128's 128-byte lines in order, so its plugin sets
  // NCCL_PROTO=simple for the whole process unless the user set NCCL_PROTO.
  bool simple_only = false;
};

const TransportFacts& transport_facts(Transport t);
std::optional<Transport> find_transport(std::string_view name);
// Every transport's name, comma-separated, for error messages and the docs.
std::string transport_names();

// What a hop between hosts takes in the executor (the proxy, the NIC and the wire), us: NCCL's
// hwLat[NET] of release `version` for its IB transport; the transport's message latency (plus
// its completion cost for Simple) for the others.
double net_hop_latency_us(Transport t, Algo a, Proto p, int version);

// What NCCL's tuning model charges a hop between hosts, us: hwLat[NET] plus the transport's
// reported latency, twice for Simple.
double tuned_net_latency_us(Transport t, Algo a, Proto p, int version);

}  // namespace fabricsim::collectives
