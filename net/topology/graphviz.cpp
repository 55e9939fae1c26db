#include "net/topology/graphviz.hpp"

#include <cstdio>

#include "core/time.hpp"

namespace fabricsim::net {

namespace {

// Names come from users (custom topologies), so quotes and backslashes must not end the string.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

}  // namespace

std::string format_rate(Bps rate) {
  struct Unit {
    Bps scale;
    const char* name;
  };
  const Unit units[] = {
      {1000 * kGbps, "Tbps"}, {kGbps, "Gbps"}, {1'000'000, "Mbps"}, {1000, "Kbps"}, {1, "bps"}};
  for (const Unit& u : units) {
    if (rate >= u.scale || u.scale == 1) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.4g%s", static_cast<double>(rate) / u.scale, u.name);
      return buf;
    }
  }
  return "0bps";
}

std::string to_dot(const Topology& t) {
  std::string out = "graph " + quoted(t.kind.empty() ? "topology" : t.kind) + " {\n";
  out += "  node [shape=box];\n";
  for (const Node& n : t.nodes) {
    if (n.kind == NodeKind::kSwitch) {
      out += "  " + quoted(n.name) + " [tier=" + std::to_string(n.tier) + "];\n";
    }
  }
  for (std::size_t h = 0; h < t.hosts.size(); ++h) {
    const Host& host = t.hosts[h];
    out += "  subgraph " + quoted("cluster_" + host.name) + " {\n";
    out += "    label=" +
           quoted(host.name + ": " + std::to_string(host.gpus) + " GPUs, " +
                  (host.intra == IntraHost::kNvSwitch ? "NVSwitch " : "PCIe ") +
                  format_rate(host.gpu_link_rate) + "/GPU") +
           ";\n";
    for (NodeId nic : host.nics) out += "    " + quoted(t.nodes[nic].name) + " [shape=ellipse];\n";
    out += "  }\n";
  }
  for (const Link& l : t.links) {
    out += "  " + quoted(t.nodes[l.a].name) + " -- " + quoted(t.nodes[l.b].name) +
           " [label=" + quoted(format_rate(l.rate) + " " + core::format_time(l.delay)) + "];\n";
  }
  return out + "}\n";
}

}  // namespace fabricsim::net
