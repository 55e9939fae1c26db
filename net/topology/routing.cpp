#include "net/topology/routing.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "core/rng.hpp"

namespace fabricsim::net {

namespace {

constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();

bool usable(const Topology& t, std::span<const std::uint8_t> link_down, NodeId n, PortId p) {
  return link_down.empty() || !link_down[t.nodes[n].ports[p]] ||
         t.nodes[n].kind == NodeKind::kNic || t.nodes[t.peer(n, p)].kind == NodeKind::kNic;
}

// Hop distance from `from` to every node over the usable links.
void bfs(const Topology& t, std::span<const std::uint8_t> link_down, NodeId from,
         std::vector<std::uint32_t>& dist, std::vector<NodeId>& queue) {
  std::fill(dist.begin(), dist.end(), kUnreached);
  queue.clear();
  dist[from] = 0;
  queue.push_back(from);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const NodeId n = queue[head];
    for (PortId p = 0; p < t.nodes[n].ports.size(); ++p) {
      if (!usable(t, link_down, n, p)) continue;
      const NodeId m = t.peer(n, p);
      if (dist[m] == kUnreached) {
        dist[m] = dist[n] + 1;
        queue.push_back(m);
      }
    }
  }
}

}  // namespace

Routes Routes::build(const Topology& t, std::span<const std::uint8_t> link_down) {
  Routes r;
  const auto n_nodes = static_cast<std::uint32_t>(t.nodes.size());
  r.is_nic_.assign(n_nodes, 0);
  r.slot_.assign(n_nodes, kNone);
  std::vector<NodeId> switches;
  for (NodeId n = 0; n < n_nodes; ++n) {
    if (t.nodes[n].kind == NodeKind::kNic) {
      r.is_nic_[n] = 1;
    } else {
      r.slot_[n] = static_cast<std::uint32_t>(switches.size());
      switches.push_back(n);
    }
  }
  std::vector<NodeId> anchors;
  for (std::uint32_t i = 0; i < t.nics.size(); ++i) {
    const NodeId nic = t.nics[i];
    if (t.nodes[nic].ports.size() != 1) {
      throw TopologyError("routes: " + t.nodes[nic].name + " must have exactly one link");
    }
    r.slot_[nic] = i;
    r.nic_node_.push_back(nic);
    r.nic_peer_.push_back(t.peer(nic, 0));
    r.nic_peer_port_.push_back(t.peer_port(nic, 0));
    anchors.push_back(t.peer(nic, 0));
  }
  std::sort(anchors.begin(), anchors.end());
  anchors.erase(std::unique(anchors.begin(), anchors.end()), anchors.end());
  for (NodeId peer : r.nic_peer_) {
    r.nic_anchor_.push_back(static_cast<std::uint32_t>(
        std::lower_bound(anchors.begin(), anchors.end(), peer) - anchors.begin()));
  }
  r.anchor_count_ = static_cast<std::uint32_t>(anchors.size());

  const std::size_t entries = switches.size() * anchors.size();
  r.hops_.resize(entries);
  r.count_.resize(entries);
  r.start_.resize(entries);
  std::map<std::vector<PortId>, std::uint32_t> interned;
  std::vector<std::uint32_t> dist(n_nodes);
  std::vector<NodeId> queue;
  std::vector<PortId> list;
  for (std::uint32_t a = 0; a < anchors.size(); ++a) {
    bfs(t, link_down, anchors[a], dist, queue);
    for (NodeId n = 0; n < n_nodes; ++n) {
      if (dist[n] == kUnreached) {
        throw TopologyError("routes: " + t.nodes[n].name + " cannot reach " +
                            t.nodes[anchors[a]].name);
      }
    }
    for (std::uint32_t s = 0; s < switches.size(); ++s) {
      const NodeId sw = switches[s];
      list.clear();
      for (PortId p = 0; p < t.nodes[sw].ports.size(); ++p) {
        if (usable(t, link_down, sw, p) && dist[t.peer(sw, p)] + 1 == dist[sw]) list.push_back(p);
      }
      const auto [it, fresh] = interned.emplace(list, static_cast<std::uint32_t>(r.ports_.size()));
      if (fresh) r.ports_.insert(r.ports_.end(), list.begin(), list.end());
      const std::size_t e = std::size_t{s} * anchors.size() + a;
      if (dist[sw] > std::numeric_limits<std::uint16_t>::max() ||
          list.size() > std::numeric_limits<std::uint16_t>::max()) {
        throw TopologyError("routes: " + t.nodes[sw].name + " is too far from or too wide toward " +
                            t.nodes[anchors[a]].name);
      }
      r.hops_[e] = static_cast<std::uint16_t>(dist[sw]);
      r.count_[e] = static_cast<std::uint16_t>(list.size());
      r.start_[e] = it->second;
    }
  }
  r.ports_.shrink_to_fit();
  return r;
}

std::span<const PortId> Routes::next_hops(NodeId at, std::uint32_t dst_nic) const {
  if (is_nic_[at]) {
    if (at == nic_node_[dst_nic]) return {};
    return {&port_zero_, 1};
  }
  if (at == nic_peer_[dst_nic]) return {&nic_peer_port_[dst_nic], 1};
  const std::uint32_t e = entry(at, dst_nic);
  return {ports_.data() + start_[e], count_[e]};
}

std::uint32_t Routes::hops(NodeId at, std::uint32_t dst_nic) const {
  if (is_nic_[at]) {
    if (at == nic_node_[dst_nic]) return 0;
    const NodeId peer = nic_peer_[slot_[at]];
    // A NIC's peer is a switch unless two NICs are cabled back to back.
    return peer == nic_node_[dst_nic] ? 1 : 1 + hops(peer, dst_nic);
  }
  return hops_[entry(at, dst_nic)] + 1u;
}

std::uint64_t Routes::anchor_count(const Topology& t) {
  std::vector<NodeId> anchors;
  for (NodeId nic : t.nics) {
    if (!t.nodes[nic].ports.empty()) anchors.push_back(t.peer(nic, 0));
  }
  std::sort(anchors.begin(), anchors.end());
  return static_cast<std::uint64_t>(std::unique(anchors.begin(), anchors.end()) - anchors.begin());
}

std::uint64_t Routes::estimate_bytes(std::uint64_t switches, std::uint64_t anchors,
                                     std::uint64_t nodes, std::uint64_t nics) {
  // hops_ and count_ (2 bytes each) and start_ (4) per (switch, anchor); per node and per NIC
  // indexes; interned port lists are small next to the rows.
  return switches * anchors * 8 + nodes * 5 + nics * 17;
}

std::size_t Routes::memory_bytes() const {
  return is_nic_.size() * sizeof(std::uint8_t) +
         (slot_.size() + nic_anchor_.size() + start_.size()) * sizeof(std::uint32_t) +
         (nic_node_.size() + nic_peer_.size()) * sizeof(NodeId) +
         (nic_peer_port_.size() + ports_.size()) * sizeof(PortId) +
         (hops_.size() + count_.size()) * sizeof(std::uint16_t);
}

std::uint64_t ecmp_hash(NodeId src, NodeId dst, std::uint32_t qp, std::uint32_t salt) {
  // SplitMix64 mixing (core/rng.hpp): full avalanche, so consecutive QP numbers and node ids
  // spread evenly over the ports.
  std::uint64_t h = core::hash_mix(salt, (std::uint64_t{src} << 32) | dst);
  return core::hash_mix(h, qp);
}

PortId ecmp_next_hop(const Routes& routes, NodeId at, NodeId src, NodeId dst, std::uint32_t dst_nic,
                     std::uint32_t qp) {
  const auto hops = routes.next_hops(at, dst_nic);
  return hops[ecmp_choice(hops.size(), src, dst, qp, at)];
}

const WidestPath::Best& WidestPath::solve(const Topology& t, const Routes& routes, NodeId at,
                                          NodeId dst, std::uint32_t dst_nic) {
  Best& b = best_[at];
  if (b.known) return b;
  touched_.push_back(at);
  b.known = true;
  if (at == dst) {
    b.rate = ~Bps{0};
    return b;
  }
  const auto hops = routes.next_hops(at, dst_nic);
  for (const PortId p : hops) {
    const Link& l = t.link_at(at, p);
    const Best& next = solve(t, routes, t.peer(at, p), dst, dst_nic);
    const Bps rate = std::min(l.rate, next.rate);
    const core::Time delay = l.delay + next.delay;
    // solve() never resizes best_, so `b` stays valid across the recursion.
    if (p == hops.front() || rate > b.rate || (rate == b.rate && delay < b.delay)) {
      b.rate = rate;
      b.delay = delay;
      b.port = p;
    }
  }
  return b;
}

}  // namespace fabricsim::net
