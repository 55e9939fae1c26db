#include "collectives/nvls.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include "collectives/tree.hpp"

namespace fabricsim::collectives {
namespace {

// Inside one host: every GPU sends its copy of the piece to the switch, which sends the sum to
// the head. Returns the head's receive.
std::uint32_t reduce_to_head(PlanBuilder& b, const std::vector<int>& ranks, int sw, int head,
                             int channel, int id, std::vector<std::uint32_t>& scratch) {
  for (int r : ranks) b.send(r, sw, channel, id);
  scratch.clear();
  for (int r : ranks) scratch.push_back(b.recv(sw, r, channel, id, Combine::Reduce));
  b.send(sw, head, channel, id, scratch);
  return b.recv(head, sw, channel, id, Combine::Copy);
}

// The head stores the result to the multicast address: the switch writes it to every GPU. The
// gather legs use the channel's second buffer (`gather` = channel + channels).
void multicast_from_head(PlanBuilder& b, const std::vector<int>& ranks, int sw, int head,
                         int gather, int id, std::span<const std::uint32_t> deps) {
  b.send(head, sw, gather, id, deps);
  const std::uint32_t result = b.recv(sw, head, gather, id, Combine::Copy);
  for (int r : ranks) b.send(sw, r, gather, id, result);
  for (int r : ranks) b.recv(r, sw, gather, id, Combine::Copy);
}

}  // namespace

void build_nvls_allreduce(PlanBuilder& b, Plan& plan, const Hosts& hosts, std::uint64_t chunk) {
  const int n = plan.n_ranks;
  const int nch = plan.channels;
  const int sw = n;  // the only switch agent: make_plan allows NVLS on one host only
  const std::vector<int>& ranks = hosts.ranks.front();
  const HeadChunks pieces(plan, n, chunk);
  std::vector<std::uint32_t> scratch;
  for (int c = 0; c < nch; ++c) {
    for (std::uint64_t l = 0; l < pieces.loops; ++l) {
      for (int h = 0; h < n; ++h) {
        const int id = pieces.chunk(b, c, l, h);
        const std::uint32_t sum = reduce_to_head(b, ranks, sw, ranks[h], c, id, scratch);
        multicast_from_head(b, ranks, sw, ranks[h], c + nch, id, {&sum, 1});
      }
    }
  }
}

void build_nvls_tree_allreduce(PlanBuilder& b, Plan& plan, const RankLayout& layout,
                               const Hosts& hosts, std::uint64_t chunk) {
  const int n = plan.n_ranks;
  const int nch = plan.channels;
  const int nhosts = static_cast<int>(hosts.ranks.size());
  const int heads = static_cast<int>(hosts.ranks.front().size());
  const HeadChunks pieces(plan, heads, chunk);
  std::vector<std::uint32_t> sum(static_cast<std::size_t>(nhosts));
  std::vector<std::uint32_t> ups, scratch;
  for (int c = 0; c < nch; ++c) {
    for (std::uint64_t l = 0; l < pieces.loops; ++l) {
      for (int h = 0; h < heads; ++h) {
        const int id = pieces.chunk(b, c, l, h);
        const auto head = [&](int host) { return hosts.ranks[host][h]; };
        // The heads of index h talk through their own NIC.
        const int rail = layout.ranks[head(0)].nic;
        for (int host = 0; host < nhosts; ++host) {
          sum[host] = reduce_to_head(b, hosts.ranks[host], n + host, head(host), c, id, scratch);
        }
        for (int host = 0; host < nhosts; ++host) {
          const TreeLinks t = dtree(nhosts, host)[c % 2];
          const int me = head(host);
          ups.assign(1, sum[host]);
          for (int child : {t.child0, t.child1}) {
            if (child >= 0) {
              ups.push_back(b.recv(me, head(child), c, id, Combine::Reduce, {}, rail));
            }
          }
          std::uint32_t result = 0;
          if (t.parent >= 0) {
            b.send(me, head(t.parent), c, id, ups, rail);
            result = b.recv(me, head(t.parent), c, id, Combine::Copy, {}, rail);
          }
          const std::span<const std::uint32_t> final_deps =
              t.parent >= 0 ? std::span<const std::uint32_t>(&result, 1)
                            : std::span<const std::uint32_t>(ups);
          for (int child : {t.child0, t.child1}) {
            if (child >= 0) b.send(me, head(child), c, id, final_deps, rail);
          }
          multicast_from_head(b, hosts.ranks[host], n + host, me, c + nch, id, final_deps);
        }
      }
    }
  }
}

void build_nvls_sharp_allreduce(PlanBuilder& b, Plan& plan, const Hosts& hosts,
                                std::uint64_t chunk) {
  const int n = plan.n_ranks;
  const int nch = plan.channels;
  const int nhosts = static_cast<int>(hosts.ranks.size());
  const int heads = static_cast<int>(hosts.ranks.front().size());
  const HeadChunks pieces(plan, heads, chunk);
  std::vector<std::uint32_t> sums(static_cast<std::size_t>(nhosts)), scratch;
  for (int c = 0; c < nch; ++c) {
    for (std::uint64_t l = 0; l < pieces.loops; ++l) {
      for (int h = 0; h < heads; ++h) {
        const int id = pieces.chunk(b, c, l, h);
        const int agent = n + nhosts + c * heads + h;
        for (int host = 0; host < nhosts; ++host) {
          const int head = hosts.ranks[host][h];
          const std::uint32_t sum =
              reduce_to_head(b, hosts.ranks[host], n + host, head, c, id, scratch);
          b.send(head, agent, c, id, sum);
          sums[host] = b.recv(agent, head, c, id, Combine::Reduce);
        }
        for (int host = 0; host < nhosts; ++host) b.send(agent, hosts.ranks[host][h], c, id, sums);
        for (int host = 0; host < nhosts; ++host) {
          const int head = hosts.ranks[host][h];
          const std::uint32_t total = b.recv(head, agent, c, id, Combine::Copy);
          multicast_from_head(b, hosts.ranks[host], n + host, head, c + nch, id, {&total, 1});
        }
      }
    }
  }
}

}  // namespace fabricsim::collectives
