#include "net/topology/validate.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <string>
#include <unordered_set>

namespace fabricsim::net {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw TopologyError("topology: " + what);
}

std::string link_name(const Topology& t, LinkId id) {
  const Link& l = t.links[id];
  return "link " + std::to_string(id) + " (" + t.nodes[l.a].name + " -- " + t.nodes[l.b].name + ")";
}

void check_links(const Topology& t) {
  const auto n = t.nodes.size();
  for (LinkId id = 0; id < t.links.size(); ++id) {
    const Link& l = t.links[id];
    if (l.a >= n || l.b >= n) {
      const NodeId ok = l.a < n ? l.a : l.b;
      fail("link " + std::to_string(id) + " has endpoint " + std::to_string(l.a >= n ? l.a : l.b) +
           " out of range (" + std::to_string(n) + " nodes)" +
           (ok < n ? ", other end " + t.nodes[ok].name : std::string()));
    }
    if (l.a == l.b) fail(link_name(t, id) + " loops on " + t.nodes[l.a].name);
    if (l.rate == 0) fail(link_name(t, id) + " has zero rate");
    if (l.delay < 0) fail(link_name(t, id) + " has negative delay");
    for (const auto& [node, port] : {std::pair{l.a, l.port_a}, std::pair{l.b, l.port_b}}) {
      const Node& nd = t.nodes[node];
      if (port >= nd.ports.size()) {
        fail(nd.name + ": " + link_name(t, id) + " uses port " + std::to_string(port) +
             " but the node has " + std::to_string(nd.ports.size()) + " ports");
      }
      const LinkId owner = nd.ports[port];
      if (owner == id) continue;
      const bool claimed_twice =
          owner < t.links.size() && ((t.links[owner].a == node && t.links[owner].port_a == port) ||
                                     (t.links[owner].b == node && t.links[owner].port_b == port));
      fail(nd.name + ": port " + std::to_string(port) +
           (claimed_twice ? " is a duplicate port, claimed by links " + std::to_string(owner) +
                                " and " + std::to_string(id)
                          : " lists link " + std::to_string(owner) + " but " + link_name(t, id) +
                                " claims it"));
    }
  }
}

void check_ports(const Topology& t) {
  for (NodeId node = 0; node < t.nodes.size(); ++node) {
    const Node& nd = t.nodes[node];
    std::unordered_set<LinkId> seen;
    for (PortId p = 0; p < nd.ports.size(); ++p) {
      const LinkId id = nd.ports[p];
      if (id >= t.links.size()) {
        fail(nd.name + ": port " + std::to_string(p) + " lists link " + std::to_string(id) +
             ", out of range (" + std::to_string(t.links.size()) + " links)");
      }
      const Link& l = t.links[id];
      if (!(l.a == node && l.port_a == p) && !(l.b == node && l.port_b == p)) {
        fail(nd.name + ": port " + std::to_string(p) + " lists " + link_name(t, id) +
             ", which does not attach to this port");
      }
      if (!seen.insert(id).second) {
        fail(nd.name + ": duplicate port " + std::to_string(p) + " on " + link_name(t, id));
      }
    }
    if (nd.kind == NodeKind::kNic && nd.ports.size() != 1) {
      fail(nd.name + ": a NIC must be attached to exactly one link, has " +
           std::to_string(nd.ports.size()));
    }
  }
}

void check_hosts(const Topology& t) {
  std::size_t next_nic = 0;  // position in Topology::nics, which lists the hosts' NICs in order
  for (std::uint32_t h = 0; h < t.hosts.size(); ++h) {
    const Host& host = t.hosts[h];
    if (host.nics.empty()) fail(host.name + " has no NIC");
    for (NodeId nic : host.nics) {
      if (nic >= t.nodes.size() || t.nodes[nic].kind != NodeKind::kNic) {
        fail(host.name + ": NIC entry " + std::to_string(nic) + " is not a NIC node");
      }
      if (t.nodes[nic].host != h) {
        fail(t.nodes[nic].name + " belongs to host " + std::to_string(t.nodes[nic].host) +
             " but is listed by " + host.name);
      }
      if (next_nic >= t.nics.size() || t.nics[next_nic] != nic) {
        fail(t.nodes[nic].name + " is not at position " + std::to_string(next_nic) +
             " of Topology::nics (host order)");
      }
      ++next_nic;
    }
    if (host.gpu_to_nic.size() != host.gpus) {
      fail(host.name + ": gpu_to_nic has " + std::to_string(host.gpu_to_nic.size()) +
           " entries for " + std::to_string(host.gpus) + " GPUs");
    }
    for (std::uint32_t g = 0; g < host.gpus; ++g) {
      if (host.gpu_to_nic[g] >= host.nics.size()) {
        fail(host.name + ": GPU " + std::to_string(g) + " maps to NIC " +
             std::to_string(host.gpu_to_nic[g]) + " but the host has " +
             std::to_string(host.nics.size()) + " NICs");
      }
    }
    if (host.gpus > 0 && host.gpu_link_rate == 0) fail(host.name + ": zero GPU link rate");
    if (host.gpu_link_latency < 0) fail(host.name + ": negative GPU link latency");
  }
  if (next_nic != t.nics.size()) {
    const NodeId extra = t.nics[next_nic];
    fail((extra < t.nodes.size() ? t.nodes[extra].name : "node " + std::to_string(extra)) +
         " is in Topology::nics but in no host");
  }
  std::vector<bool> listed(t.nodes.size(), false);
  for (NodeId nic : t.nics) listed[nic] = true;
  for (NodeId n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].kind == NodeKind::kNic && !listed[n]) fail(t.nodes[n].name + " is in no host");
  }
}

void check_names(const Topology& t) {
  std::unordered_set<std::string> names;
  for (const Node& nd : t.nodes) {
    if (!names.insert(nd.name).second) fail("duplicate node name " + nd.name);
  }
}

void check_connected(const Topology& t) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  Graph g(t.nodes.size());
  for (const Link& l : t.links) boost::add_edge(l.a, l.b, g);
  std::vector<int> component(t.nodes.size());
  if (boost::connected_components(g, component.data()) <= 1) return;
  for (NodeId n = 1; n < t.nodes.size(); ++n) {
    if (component[n] != component[0]) {
      fail(t.nodes[n].name + " is not connected to " + t.nodes[0].name);
    }
  }
}

}  // namespace

void validate(const Topology& t) {
  if (t.nodes.empty()) fail("no nodes");
  check_names(t);
  check_links(t);
  check_ports(t);
  check_hosts(t);
  check_connected(t);
}

}  // namespace fabricsim::net
