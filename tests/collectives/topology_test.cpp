// Topology-aware orders and NCCL's double binary tree.
#include <catch2/catch.hpp>

#include <set>

#include "collectives/plan.hpp"
#include "collectives/topology_order.hpp"
#include "collectives/tree.hpp"
#include "layouts.hpp"

using namespace fabricsim::collectives;
using namespace fabricsim::collectives::test;

TEST_CASE("rings keep a host's GPUs together and cross hosts on the channel's rail",
          "[collectives]") {
  const RankLayout layout = layout_hosts(32, 8);
  const Hosts hosts = group_hosts(layout);
  REQUIRE(hosts.ranks.size() == 4);
  REQUIRE(hosts.rails() == 8);
  for (int c = 0; c < 16; ++c) {
    const std::vector<int> ring = ring_order(hosts, layout, c);
    REQUIRE(ring.size() == 32);
    CHECK(std::set<int>(ring.begin(), ring.end()).size() == 32);
    for (int h = 0; h < 4; ++h) {
      for (int i = 0; i < 8; ++i) CHECK(layout.ranks[ring[h * 8 + i]].host == h);
      // The ring enters each host at the GPU next to the channel's NIC.
      CHECK(layout.ranks[ring[h * 8]].nic == c % 8);
    }
  }
  // Channels spread over rails: different channels enter hosts through different GPUs.
  CHECK(ring_order(hosts, layout, 0)[0] != ring_order(hosts, layout, 1)[0]);
}

TEST_CASE("two GPUs per NIC: a ring enters and leaves a host on the same rail", "[collectives]") {
  RankLayout layout;
  for (int r = 0; r < 16; ++r) layout.ranks.push_back({r / 8, r % 8, (r % 8) / 2});
  const Hosts hosts = group_hosts(layout);
  REQUIRE(hosts.rails() == 4);
  for (int c = 0; c < 8; ++c) {
    const std::vector<int> chain = host_chain(hosts, layout, 1, c);
    CHECK(layout.ranks[chain.front()].nic == c % 4);
    CHECK(layout.ranks[chain.back()].nic == c % 4);
  }
}

TEST_CASE("one host: every channel's tree is the same chain, so its middle GPUs send twice",
          "[collectives]") {
  // NCCL's search replays channel 0's order for the others (sameChannels); a 4-GPU tree is the
  // chain 0-1-2-3 on every channel, whose middle GPUs send up and down.
  const RankLayout layout = layout_one_host(4);
  const Hosts hosts = group_hosts(layout);
  for (int c = 1; c < 16; ++c)
    CHECK(host_chain(hosts, layout, 0, c) == host_chain(hosts, layout, 0, 0));
  Call call{.op = Op::AllReduce,
            .bytes = 64 << 20,
            .algo = Algo::Tree,
            .proto = Proto::Simple,
            .channels = 16};
  const Plan plan = make_plan(call, layout);
  std::vector<std::uint64_t> sent(4, 0);
  for (int r = 0; r < 4; ++r) {
    for (const Step& s : plan.steps[r]) {
      if (s.dir == Dir::Send) sent[r] += s.wire_bytes;
    }
  }
  CHECK(sent[0] == sent[3]);
  CHECK(sent[1] == sent[2]);
  CHECK(sent[1] == 2 * sent[0]);
}

TEST_CASE("steps between hosts carry the channel's rail, steps inside a host none",
          "[collectives]") {
  const RankLayout layout = layout_hosts(16, 8);
  Call call{.op = Op::AllReduce,
            .bytes = 1 << 16,
            .algo = Algo::Ring,
            .proto = Proto::Simple,
            .channels = 4};
  const Plan plan = make_plan(call, layout);
  int inter = 0;
  for (int r = 0; r < 16; ++r) {
    for (const Step& s : plan.steps[r]) {
      const bool crosses = layout.ranks[r].host != layout.ranks[s.peer].host;
      CHECK(s.rail == (crosses ? s.channel % 8 : kNoRail));
      inter += crosses;
    }
  }
  CHECK(inter > 0);
}

TEST_CASE("btree matches NCCL's example of 14 ranks", "[collectives]") {
  // src/graph/trees.cc illustration: 0 -> 8; 8 -> 4, 12; 4 -> 2, 6; 12 -> 10, 13; 10 -> 9, 11.
  CHECK(btree(14, 0).child1 == 8);
  CHECK(btree(14, 8).parent == 0);
  CHECK(btree(14, 8).child0 == 4);
  CHECK(btree(14, 8).child1 == 12);
  CHECK(btree(14, 12).child0 == 10);
  CHECK(btree(14, 12).child1 == 13);
  CHECK(btree(14, 13).parent == 12);
  CHECK(btree(14, 5).parent == 6);
  CHECK(btree(14, 1).child0 == -1);
}

TEST_CASE("double binary trees span all ranks and share the load", "[collectives]") {
  for (int n = 1; n <= 40; ++n) {
    for (int t = 0; t < 2; ++t) {
      int roots = 0, edges = 0;
      for (int r = 0; r < n; ++r) {
        const TreeLinks links = dtree(n, r)[t];
        if (links.parent < 0) ++roots;
        for (int ch : {links.child0, links.child1}) {
          if (ch < 0) continue;
          ++edges;
          CHECK(dtree(n, ch)[t].parent == r);
        }
        // Walking up ends at the root: no cycles.
        int up = r, hops = 0;
        while (up >= 0 && hops <= n) up = dtree(n, up)[t].parent, ++hops;
        CHECK(hops <= n);
      }
      CHECK(roots == 1);
      CHECK(edges == n - 1);
    }
    if (n % 2 == 0) {
      // Mirrored trees: every rank is a leaf in at least one of the two.
      for (int r = 0; r < n; ++r) {
        const auto t = dtree(n, r);
        const bool leaf0 = t[0].child0 < 0 && t[0].child1 < 0;
        const bool leaf1 = t[1].child0 < 0 && t[1].child1 < 0;
        CHECK((leaf0 || leaf1));
      }
    }
  }
}

TEST_CASE("a communicator of one GPU per host crosses hosts on that GPU's own NIC",
          "[collectives]") {
  // GPU 3 of each of 4 hosts, next to NIC 3: a data-parallel group on rail 3.
  RankLayout layout;
  for (int h = 0; h < 4; ++h) layout.ranks.push_back({h, 3, 3});
  const Hosts hosts = group_hosts(layout);
  REQUIRE(hosts.rails() == 1);
  REQUIRE(hosts.rail_nics == std::vector<int>{3});
  Call call{.op = Op::AllReduce,
            .bytes = 1 << 20,
            .algo = Algo::Ring,
            .proto = Proto::Simple,
            .channels = 4};
  const Plan plan = make_plan(call, layout);
  int inter = 0;
  for (const auto& steps : plan.steps) {
    for (const Step& s : steps) {
      CHECK(s.rail == 3);
      ++inter;
    }
  }
  REQUIRE(inter > 0);
}
