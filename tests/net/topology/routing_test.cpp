#include <array>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <set>

#include "fixtures.hpp"
#include "net/topology/build.hpp"
#include "net/topology/routing.hpp"
#include "net/topology/validate.hpp"

using namespace fabricsim::net;
using namespace fabricsim::net::test;

namespace {

// From every NIC to every NIC, every next hop brings the packet one hop closer, and a walk that
// picks next hops by ecmp_hash arrives in exactly hops() steps.
void check_routes_lead_home(const Topology& t, const Routes& r) {
  for (std::uint32_t dst = 0; dst < t.nics.size(); ++dst) {
    for (NodeId at = 0; at < t.nodes.size(); ++at) {
      const std::uint32_t h = r.hops(at, dst);
      const auto next = r.next_hops(at, dst);
      if (at == t.nics[dst]) {
        REQUIRE(h == 0);
        REQUIRE(next.empty());
        continue;
      }
      REQUIRE(!next.empty());
      for (PortId p : next) REQUIRE(r.hops(t.peer(at, p), dst) + 1 == h);
    }
    for (std::uint32_t src = 0; src < t.nics.size(); ++src) {
      NodeId at = t.nics[src];
      std::uint32_t steps = 0;
      while (at != t.nics[dst] && steps <= t.nodes.size()) {
        const auto next = r.next_hops(at, dst);
        at = t.peer(at, next[ecmp_hash(t.nics[src], t.nics[dst], 7, at) % next.size()]);
        ++steps;
      }
      REQUIRE(at == t.nics[dst]);
      REQUIRE(steps == r.hops(t.nics[src], dst));
    }
  }
}

}  // namespace

TEST_CASE("fat_tree routes: hop counts and ECMP width", "[topology][routing]") {
  FatTreeParams p = two_tier(4, 4);  // 4 uplinks, one spine each
  SECTION("one spine per uplink") {}
  SECTION("parallel links to fewer spines") {
    p.spines = 2;
  }
  SECTION("oversubscribed 2:1") {
    p.oversubscription = 2;
  }
  const std::uint32_t up = uplinks_per_leaf(p);
  const Topology t = fat_tree(p);
  validate(t);
  const Routes r = Routes::build(t);
  REQUIRE(r.nic_count() == 16);
  const NodeId nic0 = t.nics[0];
  const NodeId leaf0 = t.peer(nic0, 0);
  CHECK(r.hops(nic0, 1) == 2);  // same leaf
  CHECK(r.hops(nic0, 4) == 4);  // other leaf
  CHECK(r.hops(leaf0, 0) == 1);
  CHECK(r.hops(leaf0, 15) == 3);
  CHECK(r.next_hops(leaf0, 15).size() == up);  // every uplink is a shortest path
  const auto local = r.next_hops(leaf0, 1);
  REQUIRE(local.size() == 1);
  CHECK(t.peer(leaf0, local[0]) == t.nics[1]);
  const auto from_nic = r.next_hops(nic0, 15);
  REQUIRE(from_nic.size() == 1);
  CHECK(from_nic[0] == 0);
  const NodeId spine0 = t.peer(leaf0, r.next_hops(leaf0, 15)[0]);
  const std::uint32_t spines = p.spines == 0 ? up : p.spines;
  CHECK(r.next_hops(spine0, 15).size() == up / spines);  // parallel links to the leaf
  check_routes_lead_home(t, r);
}

TEST_CASE("every NIC is reachable from every node in every topology", "[topology][routing]") {
  KaryFatTreeParams k;
  k.k = 4;
  k.host = host();
  k.nic = nic_link();
  k.edge_agg = k.agg_core = fabric_link();
  check_routes_lead_home(fat_tree_3tier(k), Routes::build(fat_tree_3tier(k)));

  RailParams rail;
  rail.hosts = 6;
  rail.hosts_per_group = 2;
  rail.spines = 2;
  rail.host = host(4);
  rail.nic = nic_link();
  rail.uplink = fabric_link();
  const Topology rt = rail_optimized(rail);
  const Routes rr = Routes::build(rt);
  check_routes_lead_home(rt, rr);
  // Rail 0 of group 0 to rail 0 of group 1: up to any spine and down.
  CHECK(rr.next_hops(rt.peer(rt.hosts[0].nics[0], 0), 4 * 2).size() == 2);

  DragonflyParams d;
  d.groups = 4;
  d.routers_per_group = 3;
  d.hosts_per_router = 1;
  d.global_links_per_router = 1;
  d.host = host();
  d.nic = nic_link();
  d.local = d.global = fabric_link();
  const Topology dt = dragonfly(d);
  check_routes_lead_home(dt, Routes::build(dt));

  TorusParams tp;
  tp.dims = {3, 4};
  tp.hosts_per_switch = 1;
  tp.host = host();
  tp.nic = nic_link();
  tp.link = fabric_link();
  const Topology tt = torus(tp);
  check_routes_lead_home(tt, Routes::build(tt));

  CustomParams pair;  // two NICs cabled back to back
  pair.hosts = {{"a", host()}, {"b", host()}};
  pair.links = {{"a.nic0", "b.nic0", nic_link()}};
  const Topology pt = custom(pair);
  validate(pt);
  const Routes pr = Routes::build(pt);
  CHECK(pr.hops(pt.nics[0], 1) == 1);
  check_routes_lead_home(pt, pr);
}

TEST_CASE("routes reject NICs that cannot be reached", "[topology][routing]") {
  CustomParams p;
  p.switches = {{"left", 0, 0}, {"right", 0, 0}};
  p.hosts = {{"a", host()}, {"b", host()}};
  p.links = {{"a.nic0", "left", nic_link()}, {"b.nic0", "right", nic_link()}};
  CHECK_THROWS_AS(Routes::build(custom(p)), TopologyError);
}

TEST_CASE("routing tables stay small at 10k NICs", "[topology][routing]") {
  // 10,240 NICs: 160 leaves x 64 hosts, 64 spines at 1:1. Measured: 482,848 bytes = 35,840
  // (switch, leaf) entries x 8 bytes + per-node (5 B) and per-NIC (14 B) indexes + one copy of
  // each distinct port list. A per-(node, NIC) table of uint32 offsets alone would take
  // 10,464 x 10,240 x 4 = 429 MB. Rail-optimized below (8,192 NICs, 288 switches x 256 leaves):
  // 747,488 bytes. For scale: a 3-tier k=34 fat tree (9,826 NICs, 1,445 switches x 578 edge
  // switches) measures 6.9 MB.
  const Topology t = fat_tree(two_tier(160, 64));
  const Routes r = Routes::build(t);
  CHECK(r.nic_count() == 10240);
  CHECK(r.next_hops(t.peer(t.nics[0], 0), 10239).size() == 64);
  CHECK(r.hops(t.nics[0], 10239) == 4);
  CHECK(r.memory_bytes() < 1'000'000);

  // Rail-optimized, 1,024 hosts x 8 NICs, 32 groups, 32 spines: 288 switches x 256 leaves.
  RailParams rail;
  rail.hosts = 1024;
  rail.hosts_per_group = 32;
  rail.spines = 32;
  rail.host = host(8);
  rail.nic = nic_link();
  rail.uplink = fabric_link();
  const Routes rr = Routes::build(rail_optimized(rail));
  CHECK(rr.memory_bytes() < 1'000'000);
}

TEST_CASE("ecmp_hash is deterministic and spreads flows evenly", "[topology][routing]") {
  // A fixed value: changing the hash moves flows to other paths and changes every result.
  CHECK(ecmp_hash(1, 2, 3, 4) == 9760248100581067374ULL);
  CHECK(ecmp_hash(1, 2, 3, 4) != ecmp_hash(1, 2, 3, 5));
  CHECK(ecmp_hash(1, 2, 3, 4) != ecmp_hash(2, 1, 3, 4));
  std::array<int, 8> buckets{};
  for (std::uint32_t qp = 0; qp < 8000; ++qp) ++buckets[ecmp_hash(10, 20, qp, 99) % 8];
  for (int b : buckets) CHECK(std::abs(b - 1000) < 120);  // ~4 standard deviations
  std::set<std::uint64_t> distinct;
  for (std::uint32_t salt = 0; salt < 64; ++salt) distinct.insert(ecmp_hash(1, 2, 3, salt) % 8);
  CHECK(distinct.size() == 8);  // per-switch salts decorrelate the tiers
}
