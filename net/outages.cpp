#include "net/outages.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace fabricsim::net {

namespace {

std::string link_name(const Topology& topo, LinkId l) {
  return topo.nodes[topo.links[l].a].name + " - " + topo.nodes[topo.links[l].b].name;
}

std::string us(core::Time t) {
  return fmt::format("{:.3f} us", double(t) * 1e-6);
}

}  // namespace

Outages::Outages(const Topology& topo, std::vector<LinkOutage> list) : list_(std::move(list)) {
  has_outage_.assign(topo.links.size(), 0);
  std::vector<core::Time> changes{0};
  for (const LinkOutage& o : list_) {
    if (o.link >= topo.links.size()) {
      throw std::invalid_argument(
          fmt::format("link {}: no such link ({} links)", o.link, topo.links.size()));
    }
    const std::string name = link_name(topo, o.link);
    if (o.down < 0 || o.up <= o.down) {
      throw std::invalid_argument(
          fmt::format("link {}: it must come back after it fails (down at {}, up at {})", name,
                      us(o.down), us(o.up)));
    }
    const Link& l = topo.links[o.link];
    if (o.up == core::kTimeMax &&
        (topo.nodes[l.a].kind == NodeKind::kNic || topo.nodes[l.b].kind == NodeKind::kNic)) {
      throw std::invalid_argument(
          fmt::format("link {}: a NIC's only link that never comes back leaves its flows unable to "
                      "finish; give the time it is back ('until')",
                      name));
    }
    has_outage_[o.link] = 1;
    changes.push_back(o.down);
    if (o.up != core::kTimeMax) changes.push_back(o.up);
  }
  std::sort(changes.begin(), changes.end());
  changes.erase(std::unique(changes.begin(), changes.end()), changes.end());
  std::vector<std::uint8_t> down(topo.links.size());
  for (const core::Time t : changes) {
    std::fill(down.begin(), down.end(), 0);
    std::string names;
    for (const LinkOutage& o : list_) {
      if (o.down <= t && t < o.up) {
        down[o.link] = 1;
        names += (names.empty() ? "" : ", ") + link_name(topo, o.link);
      }
    }
    try {
      routes_.push_back(Routes::build(topo, down));
    } catch (const TopologyError& e) {
      throw std::invalid_argument(fmt::format(
          "from {}, with {} down, the fabric is cut in two ({})", us(t), names, e.what()));
    }
    epochs_.push_back(t);
  }
}

}  // namespace fabricsim::net
