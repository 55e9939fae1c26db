#pragma once
// The built cluster: network nodes (NICs and switches), full-duplex links between their ports,
// and the hosts that group GPUs and NICs. Plain data; builders live in build.*, checks in
// validate.*, routing in routing.*, LP partitioning in partition.*, Graphviz export in graphviz.*.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/event.hpp"
#include "core/time.hpp"

namespace fabricsim::net {

using core::NodeId;
using core::Time;
using PortId = std::uint16_t;
using LinkId = std::uint32_t;
using Bps = std::uint64_t;  // bits per second

inline constexpr Bps kGbps = 1'000'000'000ULL;

enum class NodeKind : std::uint8_t { kNic, kSwitch };

struct Node {
  NodeKind kind = NodeKind::kSwitch;
  std::string name;           // "host3.nic1", "leaf2", "spine0": used in every error message
  std::vector<LinkId> ports;  // port p of this node is attached to links[ports[p]]
  std::uint32_t host = 0;     // NICs: index into Topology::hosts
  std::uint8_t tier = 0;      // switches: 0 = leaf/ToR, 1 = spine/aggregation, 2 = core
  std::uint32_t group = 0;    // switches: pod / rail / dragonfly group; NICs: rail (NIC index)
};

// A full-duplex link; each direction has the same rate and delay.
struct Link {
  NodeId a = 0, b = 0;
  PortId port_a = 0, port_b = 0;  // the link's port index on a and on b
  Bps rate = 0;
  Time delay = 0;  // propagation
};

enum class IntraHost : std::uint8_t { kNvSwitch, kPcie };

struct Host {
  std::string name;
  std::uint32_t gpus = 0;
  std::string gpu;                        // GPU model name as the scenario gave it
  std::string cpu;                        // host CPU maker as the scenario gave it
  std::string nic_path;                   // GPU-to-NIC route as the scenario gave it
  std::string transport;                  // NCCL's network transport as the scenario gave it
  std::vector<NodeId> nics;               // network node of each NIC
  std::vector<std::uint32_t> gpu_to_nic;  // per GPU: index into nics
  IntraHost intra = IntraHost::kNvSwitch;
  Bps gpu_link_rate = 0;  // per-GPU NVLink (or PCIe) bandwidth, one direction
  Time gpu_link_latency = 0;
};

struct Topology {
  std::string kind;  // "single", "fat_tree", ...
  std::vector<Node> nodes;
  std::vector<Link> links;
  std::vector<Host> hosts;
  std::vector<NodeId> nics;  // every NIC node, in host order: NIC index -> node
  // The last `aggregators` hosts are the switches' SHARP aggregation nodes (cluster.sharp):
  // no GPUs, one NIC on an internal port of the switch that roots their reduction trees.
  std::uint32_t aggregators = 0;

  // Hosts with GPUs: the first gpu_hosts() of `hosts`.
  std::uint32_t gpu_hosts() const { return static_cast<std::uint32_t>(hosts.size()) - aggregators; }
  // The aggregation node (its host index) that reduces for NIC rail `rail`: the roots take
  // the rails in turn.
  std::uint32_t aggregator_for_rail(int rail) const {
    return gpu_hosts() + static_cast<std::uint32_t>(rail) % aggregators;
  }

  // The node and port at the other end of `node`'s port `port`.
  NodeId peer(NodeId node, PortId port) const {
    const Link& l = links[nodes[node].ports[port]];
    return l.a == node ? l.b : l.a;
  }
  PortId peer_port(NodeId node, PortId port) const {
    const Link& l = links[nodes[node].ports[port]];
    return l.a == node ? l.port_b : l.port_a;
  }
  const Link& link_at(NodeId node, PortId port) const { return links[nodes[node].ports[port]]; }
  // The inverse of `nics`: by node, its NIC index (~0u for switches).
  std::vector<std::uint32_t> nic_index_of_nodes() const {
    std::vector<std::uint32_t> index(nodes.size(), ~0u);
    for (std::uint32_t i = 0; i < nics.size(); ++i) index[nics[i]] = i;
    return index;
  }
};

class TopologyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fabricsim::net
