#pragma once
// ECMP next-hop tables: at every node, toward every NIC, the egress ports that lie on a shortest
// path (in hops).
//
// A NIC has one link, so every shortest path to it ends with its attachment switch (its
// "anchor", a leaf or ToR); away from that switch, the next hops toward any of its NICs are the
// next hops toward the switch itself. Tables are therefore kept per (switch, anchor) — a few
// hundred squared — not per (node, NIC), and identical port lists (a leaf's uplinks toward every
// remote leaf) are stored once. NICs need no rows: their only egress is port 0.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "net/topology/topology.hpp"

namespace fabricsim::net {

class Routes {
 public:
  // Throws TopologyError if a NIC does not have exactly one link or a node cannot reach a NIC.
  // `link_down` (by link, when given): links to route around; a NIC's own link is never avoided
  // (it has no other), so only switch-to-switch entries matter.
  static Routes build(const Topology& t, std::span<const std::uint8_t> link_down = {});

  // Egress ports of `at` on shortest paths to NIC `dst_nic` (index into Topology::nics); empty
  // at the NIC itself. Valid while this Routes lives.
  std::span<const PortId> next_hops(NodeId at, std::uint32_t dst_nic) const;
  // Links on a shortest path from `at` to NIC `dst_nic`.
  std::uint32_t hops(NodeId at, std::uint32_t dst_nic) const;

  std::uint32_t nic_count() const { return static_cast<std::uint32_t>(nic_node_.size()); }
  // Bytes held by the tables (what matters when choosing this layout over a per-NIC one).
  std::size_t memory_bytes() const;
  // What build() will hold for `switches` switches, `anchors` of them with NICs, `nodes` nodes
  // and `nics` NICs, before building it (the per-(switch, anchor) rows dominate).
  static std::uint64_t estimate_bytes(std::uint64_t switches, std::uint64_t anchors,
                                      std::uint64_t nodes, std::uint64_t nics);
  // The switches NICs attach to.
  static std::uint64_t anchor_count(const Topology& t);

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;

  std::uint32_t entry(NodeId sw, std::uint32_t dst_nic) const {
    return slot_[sw] * anchor_count_ + nic_anchor_[dst_nic];
  }

  std::uint32_t anchor_count_ = 0;
  std::vector<std::uint8_t> is_nic_;       // per node
  std::vector<std::uint32_t> slot_;        // per node: switch row, or NIC index for NICs
  std::vector<NodeId> nic_node_;           // per NIC
  std::vector<NodeId> nic_peer_;           // per NIC: the node at the other end of its link
  std::vector<std::uint32_t> nic_anchor_;  // per NIC: index of its peer among the anchors
  std::vector<PortId> nic_peer_port_;      // per NIC: the peer's port toward it
  // Per (switch row, anchor): hops to the anchor, and the next hops as ports_[start, +count).
  std::vector<std::uint16_t> hops_;
  std::vector<std::uint16_t> count_;
  std::vector<std::uint32_t> start_;
  std::vector<PortId> ports_;
  PortId port_zero_ = 0;  // what next_hops returns at a NIC
};

// Deterministic flow hash for choosing among next hops: ports[ecmp_hash(...) % ports.size()].
// Pass a per-switch salt (e.g. the switch's node id): with one salt everywhere, every tier makes
// the same choice and ECMP polarizes.
std::uint64_t ecmp_hash(NodeId src, NodeId dst, std::uint32_t qp, std::uint32_t salt);

// Which of `count` equal-cost ports switch `at` gives queue pair `qp` from NIC node `src` to
// NIC node `dst` (the switch's own node id salts the hash).
inline std::size_t ecmp_choice(std::size_t count, NodeId src, NodeId dst, std::uint32_t qp,
                               NodeId at) {
  return count == 1 ? 0 : ecmp_hash(src, dst, qp, at) % count;
}

// The port a packet of queue pair `qp` from NIC node `src` to NIC `dst_nic` (node `dst`) leaves
// `at` by under per-flow ECMP: what the switches choose for every packet but spraying and
// adaptive routing's data, and so the path of a flow alone on an idle network.
PortId ecmp_next_hop(const Routes& routes, NodeId at, NodeId src, NodeId dst, std::uint32_t dst_nic,
                     std::uint32_t qp);

// Calls visit(at, port) for each hop of that path from `src` to NIC `dst_nic` (node `dst`).
template <class Visit>
void walk_ecmp_path(const Topology& t, const Routes& routes, NodeId src, NodeId dst,
                    std::uint32_t dst_nic, std::uint32_t qp, Visit&& visit) {
  for (NodeId at = src; at != dst;) {
    const PortId p = ecmp_next_hop(routes, at, src, dst, dst_nic, qp);
    visit(at, p);
    at = t.peer(at, p);
  }
}

// The best path per-packet routing (spraying, adaptive) can give a flow alone: among the
// shortest paths, the one whose slowest link is fastest, then the one of least propagation
// delay (the first such next hop on a tie). Per-flow ECMP gives the hashed path instead.
class WidestPath {
 public:
  explicit WidestPath(const Topology& t) : best_(t.nodes.size()) {}
  // Calls visit(at, port) for each hop of that path from `src` to NIC `dst_nic` (node `dst`).
  template <class Visit>
  void walk(const Topology& t, const Routes& routes, NodeId src, NodeId dst, std::uint32_t dst_nic,
            Visit&& visit) {
    for (NodeId v : touched_) best_[v] = Best{};
    touched_.clear();
    solve(t, routes, src, dst, dst_nic);
    for (NodeId at = src; at != dst;) {
      const PortId p = best_[at].port;
      visit(at, p);
      at = t.peer(at, p);
    }
  }

 private:
  struct Best {
    Bps rate = 0;
    core::Time delay = 0;
    PortId port = 0;
    bool known = false;
  };
  const Best& solve(const Topology& t, const Routes& routes, NodeId at, NodeId dst,
                    std::uint32_t dst_nic);
  std::vector<Best> best_;  // by node, for the current destination
  std::vector<NodeId> touched_;
};

}  // namespace fabricsim::net
