#include "collectives/nvls.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include "collectives/tree.hpp"

namespace fabricsim::collectives {

void build_nvls_allreduce(PlanBuilder& b, Plan& plan, const Hosts& hosts, std::uint64_t chunk) {
  const int n = plan.n_ranks;
  const int nch = plan.channels;
  const int sw = n;  // the only switch agent: make_plan allows NVLS on one host only
  const std::vector<int>& heads = hosts.ranks.front();
  const std::uint64_t biggest = part_size(part_size(plan.bytes, nch, 0), n, 0);
  const std::uint64_t loops = std::max<std::uint64_t>(1, div_up(biggest, chunk));
  plan.slice_bytes = part_size(biggest, loops, 0);
  std::vector<std::uint32_t> got(static_cast<std::size_t>(n));
  for (int c = 0; c < nch; ++c) {
    const std::uint64_t share = part_size(plan.bytes, nch, c);
    const std::uint64_t share_off = part_offset(plan.bytes, nch, c);
    for (std::uint64_t l = 0; l < loops; ++l) {
      for (int h = 0; h < n; ++h) {
        const std::uint64_t part = part_size(share, n, h);
        const int id =
            b.add_chunk(share_off + part_offset(share, n, h) + part_offset(part, loops, l),
                        part_size(part, loops, l));
        const int head = heads[h];
        for (int r = 0; r < n; ++r) b.send(r, sw, c, id);
        for (int r = 0; r < n; ++r) got[r] = b.recv(sw, r, c, id, Combine::Reduce);
        b.send(sw, head, c, id, got);
        const std::uint32_t sum = b.recv(head, sw, c, id, Combine::Copy);
        // The gather legs use the channel's second buffer (see kNvlsGatherLane).
        const int gather = c + nch;
        b.send(head, sw, gather, id, sum);
        const std::uint32_t result = b.recv(sw, head, gather, id, Combine::Copy);
        for (int r = 0; r < n; ++r) b.send(sw, r, gather, id, result);
        for (int r = 0; r < n; ++r) b.recv(r, sw, gather, id, Combine::Copy);
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
  const std::uint64_t biggest = part_size(part_size(plan.bytes, nch, 0), heads, 0);
  const std::uint64_t loops = std::max<std::uint64_t>(1, div_up(biggest, chunk));
  plan.slice_bytes = part_size(biggest, loops, 0);
  std::vector<std::uint32_t> got(static_cast<std::size_t>(n));
  std::vector<std::uint32_t> sum(static_cast<std::size_t>(nhosts));
  std::vector<std::uint32_t> ups, deps;
  for (int c = 0; c < nch; ++c) {
    const std::uint64_t share = part_size(plan.bytes, nch, c);
    const std::uint64_t share_off = part_offset(plan.bytes, nch, c);
    const int gather = c + nch;  // the gather legs' own buffer, as in build_nvls_allreduce
    for (std::uint64_t l = 0; l < loops; ++l) {
      for (int h = 0; h < heads; ++h) {
        const std::uint64_t part = part_size(share, heads, h);
        const int id =
            b.add_chunk(share_off + part_offset(share, heads, h) + part_offset(part, loops, l),
                        part_size(part, loops, l));
        const auto head = [&](int host) { return hosts.ranks[host][h]; };
        // The heads of index h talk through their own NIC.
        const int rail = layout.ranks[head(0)].nic;
        for (int host = 0; host < nhosts; ++host) {
          const int sw = n + host;
          for (int r : hosts.ranks[host]) b.send(r, sw, c, id);
          for (int r : hosts.ranks[host]) got[r] = b.recv(sw, r, c, id, Combine::Reduce);
          deps.clear();
          for (int r : hosts.ranks[host]) deps.push_back(got[r]);
          b.send(sw, head(host), c, id, deps);
          sum[host] = b.recv(head(host), sw, c, id, Combine::Copy);
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
          const int sw = n + host;
          b.send(me, sw, gather, id, final_deps);
          const std::uint32_t res = b.recv(sw, me, gather, id, Combine::Copy);
          for (int r : hosts.ranks[host]) b.send(sw, r, gather, id, res);
          for (int r : hosts.ranks[host]) b.recv(r, sw, gather, id, Combine::Copy);
        }
      }
    }
  }
}

}  // namespace fabricsim::collectives
