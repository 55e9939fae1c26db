#pragma once
// NCCL's double binary tree (src/graph/trees.cc, connect.cc; nccl-facts.md §3). Between hosts
// two complementary binary trees: the first is NCCL's bit-pattern btree rooted at 0, the
// second its mirror (n even) or its shift by one (n odd), so most hosts are interior in one tree
// and a leaf in the other. Channel c uses tree c % 2 (NCCL doubles its channels, one copy per
// tree). Inside a host the GPUs form a chain whose head connects to the inter-host tree.
// All-reduce runs TreeUpDown: reduce towards the root, then broadcast back, per chunk.
#include <array>
#include <cstdint>

#include "collectives/builder.hpp"

namespace fabricsim::collectives {

struct TreeLinks {
  int parent = -1;
  int child0 = -1;
  int child1 = -1;
};

TreeLinks btree(int n, int rank);
std::array<TreeLinks, 2> dtree(int n, int rank);
// Which of the two trees channel c of `channels` follows.
int tree_of_channel(const Hosts& hosts, int channels, int c);

void build_tree_allreduce(PlanBuilder& b, Plan& plan, const RankLayout& layout, const Hosts& hosts,
                          std::uint64_t chunk);

}  // namespace fabricsim::collectives
