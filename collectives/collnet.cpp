#include "collectives/collnet.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace fabricsim::collectives {

void build_collnet_chain_allreduce(PlanBuilder& b, Plan& plan, const RankLayout& layout,
                                   const Hosts& hosts, std::uint64_t chunk) {
  const int nch = plan.channels;
  const int nhosts = static_cast<int>(hosts.ranks.size());
  const int first_agent = plan.n_ranks + static_cast<int>(plan.switch_host.size());
  int base = 0;
  const std::uint64_t loops = b.add_channel_loops(chunk, -1, base);
  std::vector<std::vector<int>> chains(static_cast<std::size_t>(nhosts));
  std::vector<std::uint32_t> sums, up;
  for (int c = 0; c < nch; ++c) {
    const int agent = first_agent + c;
    for (int h = 0; h < nhosts; ++h) chains[h] = host_chain(hosts, layout, h, c);
    for (std::uint64_t l = 0; l < loops; ++l) {
      const int id = base + c * static_cast<int>(loops) + static_cast<int>(l);
      // Up each chain, from its tail to its head: receive the sum so far, add, pass it on.
      for (const std::vector<int>& chain : chains) {
        for (std::size_t i = chain.size(); i-- > 0;) {
          const int r = chain[i];
          up.clear();
          if (i + 1 < chain.size()) up.push_back(b.recv(r, chain[i + 1], c, id, Combine::Reduce));
          b.send(r, i == 0 ? agent : chain[i - 1], c, id, up);
        }
      }
      // The switches reduce the heads' sums and return the total to every head.
      sums.clear();
      for (const std::vector<int>& chain : chains) {
        sums.push_back(b.recv(agent, chain.front(), c, id, Combine::Reduce));
      }
      for (const std::vector<int>& chain : chains) b.send(agent, chain.front(), c, id, sums);
      // Down each chain.
      for (const std::vector<int>& chain : chains) {
        std::uint32_t got = b.recv(chain.front(), agent, c, id, Combine::Copy);
        for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
          b.send(chain[i], chain[i + 1], c, id, got);
          got = b.recv(chain[i + 1], chain[i], c, id, Combine::Copy);
        }
      }
    }
  }
}

std::vector<int> collnet_direct_heads(const Hosts& hosts, const RankLayout& layout, int host) {
  // (rail, rank) of the first GPU on each rail, by rail: head h of every host on one rail.
  std::vector<std::pair<int, int>> firsts;
  for (const int r : hosts.ranks[static_cast<std::size_t>(host)]) {
    const int rail = layout.ranks[static_cast<std::size_t>(r)].nic;
    if (std::none_of(firsts.begin(), firsts.end(),
                     [&](const auto& f) { return f.first == rail; })) {
      firsts.emplace_back(rail, r);
    }
  }
  std::sort(firsts.begin(), firsts.end());
  std::vector<int> heads;
  for (std::size_t i = 0; i < firsts.size() && i < 8; ++i) heads.push_back(firsts[i].second);
  return heads;
}

bool collnet_direct_same_rails(const Hosts& hosts, const RankLayout& layout) {
  const auto rails = [&](int h) {
    std::vector<int> out;
    for (const int r : collnet_direct_heads(hosts, layout, h)) out.push_back(layout.ranks[r].nic);
    return out;
  };
  for (int h = 1; h < static_cast<int>(hosts.ranks.size()); ++h) {
    if (rails(h) != rails(0)) return false;
  }
  return true;
}

void build_collnet_direct_allreduce(PlanBuilder& b, Plan& plan, const RankLayout& layout,
                                    const Hosts& hosts, std::uint64_t chunk) {
  const int nch = plan.channels;
  const int nhosts = static_cast<int>(hosts.ranks.size());
  std::vector<std::vector<int>> heads(static_cast<std::size_t>(nhosts));
  for (int h = 0; h < nhosts; ++h) heads[h] = collnet_direct_heads(hosts, layout, h);
  const int nheads = static_cast<int>(heads.front().size());
  const int first_agent = plan.n_ranks + static_cast<int>(plan.switch_host.size());
  const HeadChunks pieces(plan, nheads, chunk);
  std::vector<std::uint32_t> parts, sums;
  for (int c = 0; c < nch; ++c) {
    for (std::uint64_t l = 0; l < pieces.loops; ++l) {
      for (int k = 0; k < nheads; ++k) {
        const int id = pieces.chunk(b, c, l, k);
        const int agent = first_agent + c * nheads + k;
        sums.clear();
        for (int h = 0; h < nhosts; ++h) {
          const int head = heads[h][k];
          parts.clear();
          for (const int r : hosts.ranks[h]) {
            if (r == head) continue;
            b.send(r, head, c, id);
            parts.push_back(b.recv(head, r, c, id, Combine::Reduce));
          }
          b.send(head, agent, c, id, parts);
          sums.push_back(b.recv(agent, head, c, id, Combine::Reduce));
        }
        for (int h = 0; h < nhosts; ++h) b.send(agent, heads[h][k], c, id, sums);
        for (int h = 0; h < nhosts; ++h) {
          const int head = heads[h][k];
          const std::uint32_t total = b.recv(head, agent, c, id, Combine::Copy);
          for (const int r : hosts.ranks[h]) {
            if (r == head) continue;
            b.send(head, r, c + nch, id, total);
            b.recv(r, head, c + nch, id, Combine::Copy);
          }
        }
      }
    }
  }
}

}  // namespace fabricsim::collectives
