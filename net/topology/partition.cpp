#include "net/topology/partition.hpp"

#include <algorithm>
#include <string>

namespace fabricsim::net {

namespace {

// Group of every node, numbered in order of the group's switch node id (or, for two
// NICs cabled back to back, its lower NIC).
std::vector<std::uint32_t> group_of_nodes(const Topology& t, std::uint32_t& groups,
                                          bool split_nics) {
  const auto n = static_cast<NodeId>(t.nodes.size());
  std::vector<NodeId> head(n);  // node that names the group
  for (NodeId v = 0; v < n; ++v) head[v] = v;
  for (NodeId v = 0; v < n; ++v) {
    if (t.nodes[v].kind != NodeKind::kNic) continue;
    if (t.nodes[v].ports.size() != 1) {
      throw TopologyError("partition: " + t.nodes[v].name + " must have exactly one link");
    }
    if (split_nics) continue;
    const NodeId peer = t.peer(v, 0);
    head[v] = t.nodes[peer].kind == NodeKind::kNic ? std::min(v, peer) : peer;
  }
  std::vector<std::uint32_t> number(n, 0xffffffffu), group(n);
  groups = 0;
  for (NodeId v = 0; v < n; ++v) {
    if (head[v] == v) number[v] = groups++;
  }
  for (NodeId v = 0; v < n; ++v) group[v] = number[head[v]];
  return group;
}

}  // namespace

std::uint32_t partition_groups(const Topology& t, bool split_nics) {
  std::uint32_t groups = 0;
  group_of_nodes(t, groups, split_nics);
  return groups;
}

std::vector<core::LpId> partition(const Topology& t, std::uint32_t lps, bool split_nics) {
  if (lps == 0) throw TopologyError("partition: need at least one LP");
  std::uint32_t groups = 0;
  const std::vector<std::uint32_t> group = group_of_nodes(t, groups, split_nics);
  lps = std::min(lps, groups);
  std::vector<std::uint64_t> weight(groups, 0);
  std::uint64_t total = 0;
  for (NodeId v = 0; v < t.nodes.size(); ++v) {
    const std::uint64_t w = 1 + t.nodes[v].ports.size();
    weight[group[v]] += w;
    total += w;
  }
  // Walk the groups in order; start the next LP once the current one is past its share of the
  // total (judged at a group's midpoint, so a heavy group goes to the LP holding most of it), or
  // when every remaining group is needed to keep the remaining LPs non-empty.
  std::vector<core::LpId> lp_of_group(groups);
  core::LpId lp = 0;
  std::uint64_t done = 0;
  bool lp_used = false;
  for (std::uint32_t g = 0; g < groups; ++g) {
    if (lp_used && lp + 1 < lps) {
      const bool share_reached = 2 * done + weight[g] >= 2 * total * (lp + 1) / lps;
      const bool needed = groups - g == lps - lp - 1;
      if (share_reached || needed) {
        ++lp;
        lp_used = false;
      }
    }
    lp_of_group[g] = lp;
    lp_used = true;
    done += weight[g];
  }
  std::vector<core::LpId> out(t.nodes.size());
  for (NodeId v = 0; v < t.nodes.size(); ++v) out[v] = lp_of_group[group[v]];
  return out;
}

core::Time min_cross_delay(const Topology& t, const std::vector<core::LpId>& lp_of_node) {
  if (lp_of_node.size() != t.nodes.size()) {
    throw TopologyError("min_cross_delay: " + std::to_string(lp_of_node.size()) +
                        " LP entries for " + std::to_string(t.nodes.size()) + " nodes");
  }
  core::Time best = core::kTimeMax;
  for (const Link& l : t.links) {
    if (lp_of_node[l.a] != lp_of_node[l.b]) best = std::min(best, l.delay);
  }
  return best;
}

}  // namespace fabricsim::net
