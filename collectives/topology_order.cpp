#include "collectives/topology_order.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace fabricsim::collectives {

Hosts group_hosts(const RankLayout& layout) {
  std::map<int, std::vector<int>> by_host;
  for (int r = 0; r < static_cast<int>(layout.ranks.size()); ++r) {
    by_host[layout.ranks[r].host].push_back(r);
  }
  Hosts hosts;
  hosts.host_index.resize(layout.ranks.size());
  for (auto& [id, ranks] : by_host) {
    std::sort(ranks.begin(), ranks.end(),
              [&](int a, int b) { return layout.ranks[a].local < layout.ranks[b].local; });
    std::set<int> nics;
    for (int r : ranks) {
      hosts.host_index[r] = static_cast<int>(hosts.ranks.size());
      nics.insert(layout.ranks[r].nic);
    }
    const int n = static_cast<int>(nics.size());
    if (hosts.rail_nics.empty() || n < hosts.rails())
      hosts.rail_nics.assign(nics.begin(), nics.end());
    hosts.ranks.push_back(std::move(ranks));
  }
  if (hosts.rail_nics.empty()) hosts.rail_nics.push_back(0);
  return hosts;
}

bool same_per_host(const Hosts& hosts) {
  return std::all_of(hosts.ranks.begin(), hosts.ranks.end(), [&](const std::vector<int>& h) {
    return h.size() == hosts.ranks.front().size();
  });
}

int channel_rail(const Hosts& hosts, int channel) {
  return hosts.rail_nics[static_cast<std::size_t>(channel % hosts.rails())];
}

std::vector<int> host_chain(const Hosts& hosts, const RankLayout& layout, int host, int channel) {
  const std::vector<int>& ranks = hosts.ranks[host];
  const int ppn = static_cast<int>(ranks.size());
  std::vector<int> chain;
  chain.reserve(ranks.size());
  // One host: every channel takes the same order. NCCL's graph search first tries
  // sameChannels, replaying channel 0's GPU order for the others (search.cc
  // FORCED_ORDER_REPLAY), and on an NVSwitch that succeeds. Rings do not care; a tree's chain
  // does: its middle GPUs send up and down on every channel.
  if (hosts.ranks.size() == 1) return ranks;
  const int rail = channel_rail(hosts, channel);
  std::vector<int> on_rail;
  int start = channel % ppn;  // a host without this rail still rotates
  for (int i = 0; i < ppn; ++i) {
    if (layout.ranks[ranks[i]].nic == rail) {
      if (on_rail.empty()) start = i;
      on_rail.push_back(ranks[i]);
    }
  }
  chain.push_back(ranks[start]);
  for (int i = 1; i < ppn; ++i) {
    const int r = ranks[(start + i) % ppn];
    if (std::find(on_rail.begin(), on_rail.end(), r) == on_rail.end()) chain.push_back(r);
  }
  for (std::size_t i = 1; i < on_rail.size(); ++i) chain.push_back(on_rail[i]);
  return chain;
}

std::vector<int> ring_order(const Hosts& hosts, const RankLayout& layout, int channel) {
  std::vector<int> order;
  for (int h = 0; h < static_cast<int>(hosts.ranks.size()); ++h) {
    const std::vector<int> chain = host_chain(hosts, layout, h, channel);
    order.insert(order.end(), chain.begin(), chain.end());
  }
  return order;
}

}  // namespace fabricsim::collectives
