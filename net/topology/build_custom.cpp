#include <unordered_map>

#include "net/topology/builder.hpp"

namespace fabricsim::net {

Topology custom(const CustomParams& p) {
  detail::Builder b("custom");
  std::unordered_map<std::string, NodeId> by_name;
  const auto name_node = [&](const std::string& name, NodeId id) {
    detail::require(!name.empty(), "custom", "a node has an empty name");
    detail::require(by_name.emplace(name, id).second, "custom",
                    "duplicate node name '" + name + "'");
  };
  for (const CustomHost& h : p.hosts) {
    const std::uint32_t host = b.add_host(h.name, h.host);
    for (NodeId nic : b.topology().hosts[host].nics) name_node(b.topology().nodes[nic].name, nic);
  }
  for (const CustomSwitch& s : p.switches) name_node(s.name, b.add_switch(s.name, s.tier, s.group));
  const auto find = [&](const std::string& name, std::size_t link) {
    const auto it = by_name.find(name);
    detail::require(it != by_name.end(), "custom",
                    "link " + std::to_string(link) + ": unknown endpoint '" + name + "'");
    return it->second;
  };
  for (std::size_t i = 0; i < p.links.size(); ++i) {
    const CustomLink& l = p.links[i];
    detail::require(l.a != l.b, "custom", "link " + std::to_string(i) + " loops on '" + l.a + "'");
    b.connect(find(l.a, i), find(l.b, i), l.link);
  }
  return b.take();
}

}  // namespace fabricsim::net
