#include "net/topology/builder.hpp"

#include "net/memory.hpp"

#include <limits>
#include <utility>

namespace fabricsim::net::detail {

void fail(std::string_view builder, const std::string& what) {
  throw TopologyError(std::string(builder) + ": " + what);
}

Builder::Builder(std::string kind) {
  t_.kind = std::move(kind);
}

void Builder::plan(std::uint64_t hosts, std::uint64_t nics_per_host, std::uint64_t switches,
                   std::uint64_t switch_links, std::uint64_t anchors) {
  NetworkSize s;
  s.hosts = hosts;
  s.nics = hosts * nics_per_host;
  s.switches = switches;
  s.links = s.nics + switch_links;
  s.anchors = anchors;
  check_memory(s, t_.kind + " cluster");
}

NodeId Builder::add_switch(std::string name, std::uint8_t tier, std::uint32_t group) {
  Node n;
  n.kind = NodeKind::kSwitch;
  n.name = std::move(name);
  n.tier = tier;
  n.group = group;
  t_.nodes.push_back(std::move(n));
  return static_cast<NodeId>(t_.nodes.size() - 1);
}

std::uint32_t Builder::add_host(std::string name, const HostParams& p) {
  require(p.nics > 0, t_.kind, name + " has no NIC");
  require(p.gpus == 0 || p.gpu_link_rate > 0, t_.kind, name + ": gpu_link_rate is not set");
  require(p.gpu_link_latency >= 0, t_.kind, name + ": negative gpu_link_latency");
  Host h;
  h.name = std::move(name);
  h.gpus = p.gpus;
  h.intra = p.intra;
  h.gpu = p.gpu;
  h.cpu = p.cpu;
  h.nic_path = p.nic_path;
  h.transport = p.transport;
  h.gpu_link_rate = p.gpu_link_rate;
  h.gpu_link_latency = p.gpu_link_latency;
  if (p.gpu_to_nic.empty()) {
    for (std::uint32_t g = 0; g < p.gpus; ++g) {
      h.gpu_to_nic.push_back(static_cast<std::uint32_t>(std::uint64_t{g} * p.nics / p.gpus));
    }
  } else {
    require(p.gpu_to_nic.size() == p.gpus, t_.kind,
            h.name + ": gpu_to_nic has " + std::to_string(p.gpu_to_nic.size()) + " entries for " +
                std::to_string(p.gpus) + " GPUs");
    h.gpu_to_nic = p.gpu_to_nic;
  }
  const auto host = static_cast<std::uint32_t>(t_.hosts.size());
  for (std::uint32_t i = 0; i < p.nics; ++i) {
    Node n;
    n.kind = NodeKind::kNic;
    n.name = h.name + ".nic" + std::to_string(i);
    n.host = host;
    n.group = i;
    t_.nodes.push_back(std::move(n));
    const auto id = static_cast<NodeId>(t_.nodes.size() - 1);
    h.nics.push_back(id);
    t_.nics.push_back(id);
  }
  t_.hosts.push_back(std::move(h));
  return host;
}

void Builder::attach(std::uint32_t host, NodeId sw, const LinkParams& l) {
  for (NodeId nic : t_.hosts[host].nics) connect(nic, sw, l);
}

void Builder::add_aggregators(std::uint32_t count) {
  HostParams p;
  p.gpus = 0;
  p.gpu.clear();
  p.nics = 1;
  for (std::uint32_t k = 0; k < count; ++k) add_host("sharp" + std::to_string(k), p);
  t_.aggregators = count;
}

void Builder::connect_aggregators(const std::vector<NodeId>& switches, Time delay) {
  require(switches.size() == t_.aggregators, t_.kind, "one aggregation node per root switch");
  for (std::uint32_t k = 0; k < t_.aggregators; ++k) {
    const NodeId sw = switches[k];
    Bps rate = 0;
    for (const LinkId l : t_.nodes[sw].ports) rate += t_.links[l].rate;
    require(rate > 0, t_.kind, t_.nodes[sw].name + " has no links for SHARP to reduce");
    connect(t_.hosts[t_.gpu_hosts() + k].nics.front(), sw, LinkParams{rate, delay});
  }
}

PortId Builder::next_port(NodeId n) {
  const std::size_t p = t_.nodes[n].ports.size();
  require(p < std::numeric_limits<PortId>::max(), t_.kind,
          t_.nodes[n].name + " has more ports than PortId can number");
  return static_cast<PortId>(p);
}

LinkId Builder::connect(NodeId a, NodeId b, const LinkParams& l) {
  Link link;
  link.a = a;
  link.b = b;
  link.port_a = next_port(a);
  link.port_b = next_port(b);
  link.rate = l.rate;
  link.delay = l.delay;
  const auto id = static_cast<LinkId>(t_.links.size());
  t_.links.push_back(link);
  t_.nodes[a].ports.push_back(id);
  t_.nodes[b].ports.push_back(id);
  return id;
}

}  // namespace fabricsim::net::detail
