#include "net/topology/builder.hpp"

namespace fabricsim::net {

Topology rail_optimized(const RailParams& p) {
  detail::require(p.hosts > 0 && p.hosts_per_group > 0, "rail_optimized",
                  "hosts and hosts_per_group must be >= 1");
  detail::require(p.spines > 0 && p.links_per_spine > 0, "rail_optimized",
                  "spines and links_per_spine must be >= 1 (rails meet only at the spines)");
  const std::uint32_t rails = p.host.nics;
  const std::uint32_t groups = (p.hosts + p.hosts_per_group - 1) / p.hosts_per_group;
  detail::Builder b("rail_optimized");
  const std::uint64_t leaves = std::uint64_t{groups} * rails;
  b.plan(p.hosts, rails, leaves + p.spines, leaves * p.spines * p.links_per_spine, leaves);
  for (std::uint32_t h = 0; h < p.hosts; ++h) b.add_host("host" + std::to_string(h), p.host);
  if (p.sharp) b.add_aggregators(p.spines);
  std::vector<NodeId> leaf;  // leaf[group * rails + rail]
  for (std::uint32_t g = 0; g < groups; ++g) {
    for (std::uint32_t r = 0; r < rails; ++r) {
      leaf.push_back(b.add_switch("g" + std::to_string(g) + ".rail" + std::to_string(r), 0, r));
    }
  }
  std::vector<NodeId> spine;
  for (std::uint32_t s = 0; s < p.spines; ++s) {
    spine.push_back(b.add_switch("spine" + std::to_string(s), 1, 0));
  }
  for (std::uint32_t h = 0; h < p.hosts; ++h) {
    const std::uint32_t g = h / p.hosts_per_group;
    const std::vector<NodeId>& nics = b.topology().hosts[h].nics;
    for (std::uint32_t r = 0; r < rails; ++r) b.connect(nics[r], leaf[g * rails + r], p.nic);
  }
  for (NodeId l : leaf) {
    for (NodeId s : spine) {
      for (std::uint32_t i = 0; i < p.links_per_spine; ++i) b.connect(l, s, p.uplink);
    }
  }
  if (p.sharp) b.connect_aggregators(spine, p.nic.delay);
  return b.take();
}

}  // namespace fabricsim::net
