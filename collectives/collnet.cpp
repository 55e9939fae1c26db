#include "collectives/collnet.hpp"

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

}  // namespace fabricsim::collectives
