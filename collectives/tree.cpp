#include "collectives/tree.hpp"

#include <algorithm>
#include <vector>

namespace fabricsim::collectives {

TreeLinks btree(int n, int rank) {
  int bit = 1;
  while (bit < n && (bit & rank) == 0) bit <<= 1;
  TreeLinks t;
  if (rank == 0) {
    if (n > 1) t.child1 = bit >> 1;
    return t;
  }
  // Clearing the lowest set bit and setting the next one gives the parent one level up; near
  // the end of the range that parent may not exist, then the level above adopts us.
  t.parent = (rank ^ bit) | (bit << 1);
  if (t.parent >= n) t.parent = rank ^ bit;
  int low = bit >> 1;
  if (low > 0) t.child0 = rank - low;
  while (low > 0 && rank + low >= n) low >>= 1;
  if (low > 0) t.child1 = rank + low;
  return t;
}

std::array<TreeLinks, 2> dtree(int n, int rank) {
  std::array<TreeLinks, 2> trees{btree(n, rank), {}};
  const auto map = [&](int x, auto f) { return x < 0 ? -1 : f(x); };
  if (n % 2 == 1) {
    const TreeLinks t = btree(n, (rank - 1 + n) % n);
    const auto up = [&](int x) { return (x + 1) % n; };
    trees[1] = {map(t.parent, up), map(t.child0, up), map(t.child1, up)};
  } else {
    const TreeLinks t = btree(n, n - 1 - rank);
    const auto mirror = [&](int x) { return n - 1 - x; };
    trees[1] = {map(t.parent, mirror), map(t.child0, mirror), map(t.child1, mirror)};
  }
  return trees;
}

int tree_of_channel(const Hosts& hosts, int channels, int c) {
  // Channels go round-robin over the rails; alternating the tree per round (rather than per
  // channel) gives every rail's NIC both trees, as NCCL does by running both trees on every
  // channel's NIC. A node is interior in one tree and a leaf in the other, so the per-NIC load
  // evens out; with one tree per rail, interior nodes' rails would carry three times the data.
  const int rails = hosts.rails();
  return channels >= 2 * rails ? (c / rails) % 2 : c % 2;
}

void build_tree_allreduce(PlanBuilder& b, Plan& plan, const RankLayout& layout, const Hosts& hosts,
                          std::uint64_t chunk) {
  const int n = plan.n_ranks;
  const int nch = plan.channels;
  const int nhosts = static_cast<int>(hosts.ranks.size());
  int base = 0;
  const std::uint64_t loops = b.add_channel_loops(chunk, -1, base);

  std::vector<int> parent(n);
  std::vector<std::vector<int>> children(n);
  std::vector<std::uint32_t> ups;
  for (int c = 0; c < nch; ++c) {
    std::vector<std::vector<int>> chains(nhosts);
    for (int h = 0; h < nhosts; ++h) chains[h] = host_chain(hosts, layout, h, c);
    for (int h = 0; h < nhosts; ++h) {
      const TreeLinks inter = dtree(nhosts, h)[tree_of_channel(hosts, nch, c)];
      const std::vector<int>& chain = chains[h];
      for (std::size_t i = 0; i < chain.size(); ++i) {
        const int r = chain[i];
        children[r].clear();
        if (i + 1 < chain.size()) children[r].push_back(chain[i + 1]);
        if (i > 0) {
          parent[r] = chain[i - 1];
          continue;
        }
        parent[r] = inter.parent < 0 ? -1 : chains[inter.parent].front();
        for (int ch : {inter.child0, inter.child1}) {
          if (ch >= 0) children[r].push_back(chains[ch].front());
        }
      }
    }
    for (int r = 0; r < n; ++r) {
      for (std::uint64_t l = 0; l < loops; ++l) {
        const int chunk_id = base + c * static_cast<int>(loops) + static_cast<int>(l);
        ups.clear();
        for (int ch : children[r]) ups.push_back(b.recv(r, ch, c, chunk_id, Combine::Reduce));
        std::uint32_t down = 0;
        if (parent[r] >= 0) {
          b.send(r, parent[r], c, chunk_id, ups);
          down = b.recv(r, parent[r], c, chunk_id, Combine::Copy);
        }
        for (int ch : children[r]) {
          if (parent[r] >= 0) {
            b.send(r, ch, c, chunk_id, down);
          } else {
            b.send(r, ch, c, chunk_id, ups);
          }
        }
      }
    }
  }
}

}  // namespace fabricsim::collectives
