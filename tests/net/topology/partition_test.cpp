#include <algorithm>
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "net/topology/build.hpp"
#include "net/topology/partition.hpp"

using namespace fabricsim::net;
using namespace fabricsim::net::test;
using fabricsim::core::LpId;

namespace {

void check_partition(const Topology& t, std::uint32_t lps) {
  CAPTURE(t.kind, lps);
  const std::vector<LpId> lp = partition(t, lps);
  REQUIRE(lp.size() == t.nodes.size());
  CHECK(lp == partition(t, lps));  // deterministic
  const std::uint32_t used = std::min(lps, partition_groups(t));
  std::vector<std::size_t> weight(used, 0);
  for (NodeId n = 0; n < t.nodes.size(); ++n) {
    REQUIRE(lp[n] < used);
    weight[lp[n]] += 1 + t.nodes[n].ports.size();
  }
  for (std::size_t w : weight) CHECK(w > 0);                       // no empty LP
  for (NodeId nic : t.nics) CHECK(lp[nic] == lp[t.peer(nic, 0)]);  // a NIC stays with its leaf
  for (const Link& l : t.links) {
    if (lp[l.a] != lp[l.b]) {
      CHECK(t.nodes[l.a].kind == NodeKind::kSwitch);
      CHECK(t.nodes[l.b].kind == NodeKind::kSwitch);
    }
  }
}

}  // namespace

TEST_CASE("partition keeps each leaf with its NICs and uses every LP", "[topology][partition]") {
  const Topology ft = fat_tree(two_tier(8, 4));  // 8 leaf groups + 4 spines
  REQUIRE(partition_groups(ft) == 12);
  for (std::uint32_t lps : {1u, 2u, 3u, 4u, 7u, 12u, 100u}) check_partition(ft, lps);

  RailParams rail;
  rail.hosts = 16;
  rail.hosts_per_group = 4;
  rail.spines = 4;
  rail.host = host(4);
  rail.nic = nic_link();
  rail.uplink = fabric_link();
  const Topology rt = rail_optimized(rail);
  REQUIRE(partition_groups(rt) == 16 + 4);
  for (std::uint32_t lps : {1u, 3u, 8u, 20u}) check_partition(rt, lps);

  DragonflyParams d;
  d.groups = 5;
  d.routers_per_group = 4;
  d.hosts_per_router = 2;
  d.global_links_per_router = 1;
  d.host = host();
  d.nic = nic_link();
  d.local = d.global = fabric_link();
  for (std::uint32_t lps : {2u, 5u, 20u}) check_partition(dragonfly(d), lps);

  CHECK_THROWS_AS(partition(ft, 0), TopologyError);
}

TEST_CASE("partition balances node and port counts", "[topology][partition]") {
  const Topology t = fat_tree(two_tier(16, 8));  // 16 leaf groups of weight 41, 8 spines of 33
  const std::vector<LpId> lp = partition(t, 4);
  std::vector<std::size_t> weight(4, 0);
  std::size_t total = 0;
  for (NodeId n = 0; n < t.nodes.size(); ++n) {
    weight[lp[n]] += 1 + t.nodes[n].ports.size();
    total += 1 + t.nodes[n].ports.size();
  }
  for (std::size_t w : weight) {
    CHECK(w * 4 <= total + 4 * 41);  // within one group of the even share
    CHECK(w * 4 + 4 * 41 >= total);
  }
}

TEST_CASE("min_cross_delay is the shortest link between LPs", "[topology][partition]") {
  const Topology t = fat_tree(two_tier(4, 2));
  CHECK(min_cross_delay(t, partition(t, 1)) == fabricsim::core::kTimeMax);
  CHECK(min_cross_delay(t, partition(t, 4)) == fabric_link().delay);  // not the NIC links
  CHECK_THROWS_AS(min_cross_delay(t, {0, 1}), TopologyError);
}

TEST_CASE("partition can cut NICs from their switch (more MPI ranks than switch groups)",
          "[topology][partition]") {
  const Topology t = fat_tree(two_tier(2, 1));  // 2 leaf groups and a spine
  REQUIRE(partition_groups(t) == 3);
  REQUIRE(partition_groups(t, true) == t.nodes.size());  // every node on its own
  for (std::uint32_t lps : {4u, 7u}) {
    const std::vector<LpId> lp = partition(t, lps, true);
    // Every LP used, up to one per node.
    CHECK(*std::max_element(lp.begin(), lp.end()) + 1 ==
          std::min<std::size_t>(lps, t.nodes.size()));
    CHECK(lp == partition(t, lps, true));
    // The shortest link between LPs is now a NIC's.
    CHECK(min_cross_delay(t, lp) == std::min(nic_link().delay, fabric_link().delay));
  }
  // Without the cut the same request stays at the switch groups.
  const std::vector<LpId> whole = partition(t, 7);
  CHECK(*std::max_element(whole.begin(), whole.end()) == 2);
}
