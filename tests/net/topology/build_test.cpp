#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <tuple>

#include "fixtures.hpp"
#include "net/memory.hpp"
#include "net/topology/build.hpp"
#include "net/topology/routing.hpp"
#include "net/topology/validate.hpp"

using namespace fabricsim::net;
using namespace fabricsim::net::test;

namespace {

std::size_t switch_count(const Topology& t) {
  return static_cast<std::size_t>(std::count_if(
      t.nodes.begin(), t.nodes.end(), [](const Node& n) { return n.kind == NodeKind::kSwitch; }));
}

const Node& by_name(const Topology& t, const std::string& name) {
  for (const Node& n : t.nodes) {
    if (n.name == name) return n;
  }
  FAIL("no node " << name);
  return t.nodes.front();
}

std::size_t ports_of(const Topology& t, const std::string& name) {
  return by_name(t, name).ports.size();
}

// Links between two switches only.
std::size_t fabric_links(const Topology& t) {
  return static_cast<std::size_t>(std::count_if(t.links.begin(), t.links.end(), [&](const Link& l) {
    return t.nodes[l.a].kind == NodeKind::kSwitch && t.nodes[l.b].kind == NodeKind::kSwitch;
  }));
}

}  // namespace

TEST_CASE("single: every NIC on one switch, hosts carry GPUs and their NIC map", "[topology]") {
  const Topology t = single(one_switch(5, 2));
  validate(t);
  CHECK(t.kind == "single");
  REQUIRE(t.hosts.size() == 5);
  REQUIRE(t.nics.size() == 10);
  CHECK(t.nodes.size() == 11);
  CHECK(t.links.size() == 10);
  CHECK(ports_of(t, "switch") == 10);
  for (std::uint32_t h = 0; h < 5; ++h) {
    for (std::uint32_t i = 0; i < 2; ++i) {
      const NodeId nic = t.hosts[h].nics[i];
      CHECK(t.nics[h * 2 + i] == nic);  // host order
      CHECK(t.nodes[nic].name == "host" + std::to_string(h) + ".nic" + std::to_string(i));
      CHECK(t.nodes[nic].host == h);
      CHECK(t.nodes[nic].group == i);
      CHECK(t.nodes[nic].ports.size() == 1);
    }
  }
  CHECK(t.hosts[3].gpus == 8);
  CHECK(t.hosts[3].gpu_to_nic == std::vector<std::uint32_t>{0, 0, 0, 0, 1, 1, 1, 1});
}

TEST_CASE("single: more NICs than a switch has ports is refused before anything is built",
          "[topology]") {
  // 428,177 hosts x 8 NICs: building it first took 37 s under ASan (found by fuzz_scenario).
  CHECK_THROWS_WITH(single(one_switch(428177, 8)),
                    Catch::Contains("3425416 ports on the one switch, above the 65534"));
  CHECK(single(one_switch(8191, 8)).nics.size() == 65528);
}

TEST_CASE("host GPU->NIC map: one per GPU, one per two GPUs, or given", "[topology]") {
  CHECK(single(one_switch(1, 8)).hosts[0].gpu_to_nic ==
        std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(single(one_switch(1, 4)).hosts[0].gpu_to_nic ==
        std::vector<std::uint32_t>{0, 0, 1, 1, 2, 2, 3, 3});
  SingleParams p = one_switch(1, 2);
  p.host.gpus = 4;
  p.host.gpu_to_nic = {1, 0, 1, 0};
  p.host.intra = IntraHost::kPcie;
  const Topology t = single(p);
  CHECK(t.hosts[0].gpu_to_nic == std::vector<std::uint32_t>{1, 0, 1, 0});
  CHECK(t.hosts[0].intra == IntraHost::kPcie);
  p.host.gpu_to_nic = {0, 1};
  CHECK_THROWS_AS(single(p), TopologyError);
  p = one_switch(1);
  p.host.gpu_link_rate = 0;
  CHECK_THROWS_WITH(single(p), Catch::Contains("host0") && Catch::Contains("gpu_link_rate"));
}

TEST_CASE("fat_tree 2-tier: oversubscription sets the uplinks per leaf", "[topology][fat_tree]") {
  FatTreeParams p = two_tier(4, 8);  // 8 x 400G down per leaf
  CHECK(uplinks_per_leaf(p) == 8);   // 1:1 over 400G uplinks
  p.oversubscription = 2;
  CHECK(uplinks_per_leaf(p) == 4);
  p.oversubscription = 3;
  CHECK(uplinks_per_leaf(p) == 3);  // ceil(8/3): never more oversubscribed than asked
  p.oversubscription = 1;
  p.uplink.rate = 100 * kGbps;
  CHECK(uplinks_per_leaf(p) == 32);
  p.uplink.rate = 800 * kGbps;
  p.host.nics = 2;  // 16 x 400G down
  CHECK(uplinks_per_leaf(p) == 8);
  // A 1 bit/s uplink would need 6.4e12 uplinks: refused, not wrapped into a 32-bit count
  // (found by fuzzing the scenario loader; UBSan: float-cast-overflow).
  p.uplink.rate = 1;
  CHECK_THROWS_WITH(uplinks_per_leaf(p), Catch::Contains("uplinks per leaf, more than the 65536"));
}

TEST_CASE("fat_tree 2-tier: counts follow the formulas", "[topology][fat_tree]") {
  for (const auto& [leaves, hpl, nics, over, spines] :
       {std::tuple{4u, 8u, 1u, 1.0, 0u}, std::tuple{3u, 4u, 2u, 2.0, 2u},
        std::tuple{6u, 16u, 1u, 4.0, 4u}, std::tuple{2u, 2u, 1u, 1.0, 1u}}) {
    CAPTURE(leaves, hpl, nics, over, spines);
    FatTreeParams p = two_tier(leaves, hpl);
    p.host.nics = nics;
    p.oversubscription = over;
    p.spines = spines;
    const std::uint32_t up = uplinks_per_leaf(p);
    const std::uint32_t s = spines == 0 ? up : spines;
    const Topology t = fat_tree(p);
    validate(t);
    const std::size_t nic_count = std::size_t{leaves} * hpl * nics;
    CHECK(t.nics.size() == nic_count);
    CHECK(switch_count(t) == leaves + s);
    CHECK(t.links.size() == nic_count + std::size_t{leaves} * up);
    CHECK(ports_of(t, "leaf0") == hpl * nics + up);
    CHECK(ports_of(t, "spine0") == leaves * up / s);
    CHECK(by_name(t, "spine0").tier == 1);
    CHECK(by_name(t, "leaf" + std::to_string(leaves - 1)).tier == 0);
  }
}

TEST_CASE("fat_tree 2-tier: uplinks must divide over the spines", "[topology][fat_tree]") {
  FatTreeParams p = two_tier(2, 3);  // 3 uplinks
  p.spines = 2;
  CHECK_THROWS_WITH(fat_tree(p), Catch::Contains("not a multiple of 2 spines"));
}

TEST_CASE("fat_tree 3-tier k-ary: counts and hop counts", "[topology][fat_tree]") {
  for (std::uint32_t k : {2u, 4u, 6u}) {
    CAPTURE(k);
    KaryFatTreeParams p;
    p.k = k;
    p.host = host();
    p.nic = nic_link();
    p.edge_agg = fabric_link();
    p.agg_core = fabric_link();
    const Topology t = fat_tree_3tier(p);
    validate(t);
    CHECK(t.hosts.size() == k * k * k / 4);
    CHECK(switch_count(t) == 5 * k * k / 4);
    CHECK(t.links.size() == 3 * k * k * k / 4);
    for (const Node& n : t.nodes) {
      if (n.kind == NodeKind::kSwitch) CHECK(n.ports.size() == k);
    }
    CHECK(by_name(t, "pod1.agg0").tier == 1);
    CHECK(by_name(t, "pod1.agg0").group == 1);
    CHECK(by_name(t, "core0").tier == 2);
    if (k < 4) continue;
    const Routes r = Routes::build(t);
    const std::uint32_t half = k / 2;
    const NodeId h0 = t.nics[0];
    CHECK(r.hops(h0, 1) == 2);            // same edge switch
    CHECK(r.hops(h0, half) == 4);         // same pod
    CHECK(r.hops(h0, half * half) == 6);  // next pod
    CHECK(nic_diameter(t, r) == 6);
  }
  KaryFatTreeParams odd;
  odd.k = 5;
  CHECK_THROWS_AS(fat_tree_3tier(odd), TopologyError);
}

TEST_CASE("rail_optimized: NIC i of every host is on its group's rail-i leaf", "[topology][rail]") {
  for (const auto& [hosts, per_group] : {std::pair{8u, 4u}, std::pair{6u, 4u}, std::pair{3u, 8u}}) {
    CAPTURE(hosts, per_group);
    RailParams p;
    p.hosts = hosts;
    p.hosts_per_group = per_group;
    p.spines = 2;
    p.links_per_spine = 2;
    p.host = host(4);
    p.nic = nic_link();
    p.uplink = fabric_link();
    const Topology t = rail_optimized(p);
    validate(t);
    const std::uint32_t groups = (hosts + per_group - 1) / per_group;
    CHECK(switch_count(t) == groups * 4 + 2);
    CHECK(t.links.size() == hosts * 4 + groups * 4 * 2 * 2);
    CHECK(ports_of(t, "spine1") == groups * 4 * 2);
    for (std::uint32_t h = 0; h < hosts; ++h) {
      for (std::uint32_t i = 0; i < 4; ++i) {
        const NodeId nic = t.hosts[h].nics[i];
        const Node& leaf = t.nodes[t.peer(nic, 0)];
        CHECK(leaf.name == "g" + std::to_string(h / per_group) + ".rail" + std::to_string(i));
        CHECK(leaf.group == i);
        CHECK(leaf.tier == 0);
      }
    }
    const Routes r = Routes::build(t);
    CHECK(nic_diameter(t, r) == 4);  // NIC, leaf, spine, leaf, NIC
  }
}

TEST_CASE("sharp: an aggregation node on each top switch, as fast as its other ports",
          "[topology]") {
  SingleParams one = one_switch(5, 2);
  one.sharp = true;
  const Topology s = single(one);
  validate(s);
  REQUIRE(s.aggregators == 1);
  REQUIRE(s.gpu_hosts() == 5);
  REQUIRE(s.hosts.size() == 6);
  const Host& agg = s.hosts.back();
  CHECK(agg.name == "sharp0");
  CHECK(agg.gpus == 0);
  REQUIRE(agg.nics.size() == 1);
  CHECK(s.nics.back() == agg.nics.front());  // NICs stay in host order
  const Link& internal = s.link_at(agg.nics.front(), 0);
  CHECK(internal.rate == 10 * one.nic.rate);
  CHECK(internal.delay == one.nic.delay);
  CHECK(s.aggregator_for_rail(0) == 5);
  CHECK(s.aggregator_for_rail(1) == 5);

  // Rails meet at the spines: one aggregation node per spine, the rails dealt over them.
  RailParams p;
  p.hosts = 8;
  p.hosts_per_group = 4;
  p.spines = 2;
  p.host = host(4);
  p.nic = nic_link();
  p.uplink = fabric_link();
  p.sharp = true;
  const Topology r = rail_optimized(p);
  validate(r);
  REQUIRE(r.aggregators == 2);
  for (std::uint32_t k = 0; k < 2; ++k) {
    const NodeId nic = r.hosts[r.gpu_hosts() + k].nics.front();
    const Node& spine = r.nodes[r.peer(nic, 0)];
    CHECK(spine.name == "spine" + std::to_string(k));
    // Every leaf's link to it (2 groups x 4 rails), at the uplink's rate.
    CHECK(r.link_at(nic, 0).rate == 8 * p.uplink.rate);
  }
  CHECK(r.aggregator_for_rail(3) == r.gpu_hosts() + 1);
  const Routes routes = Routes::build(r);
  CHECK(nic_diameter(r, routes) == 4);
}

TEST_CASE("dragonfly: counts, global links per router, diameter", "[topology][dragonfly]") {
  DragonflyParams p;
  p.groups = 5;
  p.routers_per_group = 4;
  p.hosts_per_router = 2;
  p.global_links_per_router = 1;  // a*h = groups-1: one link per group pair
  p.host = host();
  p.nic = nic_link();
  p.local = fabric_link();
  p.global = {200 * kGbps, 5 * fabric_link().delay};
  const Topology t = dragonfly(p);
  validate(t);
  CHECK(t.hosts.size() == 40);
  CHECK(switch_count(t) == 20);
  CHECK(fabric_links(t) == 5 * 6 + 10);
  for (const Node& n : t.nodes) {
    if (n.kind != NodeKind::kSwitch) continue;
    CAPTURE(n.name);
    CHECK(n.ports.size() == 2 + 3 + 1);
    std::size_t global = 0;
    for (LinkId l : n.ports) global += t.links[l].rate == 200 * kGbps;
    CHECK(global == 1);
  }
  CHECK(by_name(t, "g2.r1").group == 2);
  const Routes r = Routes::build(t);
  CHECK(nic_diameter(t, r) == 5);  // NIC, local, global, local, NIC

  p.groups = 3;
  p.routers_per_group = 2;
  p.global_links_per_router = 2;  // two links per group pair
  const Topology t2 = dragonfly(p);
  validate(t2);
  CHECK(fabric_links(t2) == 3 * 1 + 3 * 2);
  CHECK(nic_diameter(t2, Routes::build(t2)) <= 5);

  p.groups = 9;  // 2 x 2 global ports cannot reach 8 groups
  CHECK_THROWS_AS(dragonfly(p), TopologyError);
}

TEST_CASE("torus and mesh: counts, names, diameter", "[topology][torus]") {
  TorusParams p;
  p.hosts_per_switch = 2;
  p.host = host();
  p.nic = nic_link();
  p.link = fabric_link();
  struct Case {
    std::vector<std::uint32_t> dims;
    bool wrap;
    std::size_t links;
    std::uint32_t diameter;  // between switches
  };
  for (const Case& c :
       {Case{{4, 4}, true, 32, 4}, Case{{4, 4}, false, 24, 6}, Case{{3, 3, 3}, true, 81, 3},
        Case{{2, 3}, true, 9, 2}, Case{{5, 2, 3}, false, 4 * 6 + 5 * 3 + 2 * 10, 4 + 1 + 2}}) {
    CAPTURE(c.dims, c.wrap);
    p.dims = c.dims;
    p.wraparound = c.wrap;
    const Topology t = torus(p);
    validate(t);
    CHECK(t.kind == (c.wrap ? "torus" : "mesh"));
    std::size_t switches = 1;
    for (std::uint32_t d : c.dims) switches *= d;
    CHECK(switch_count(t) == switches);
    CHECK(t.hosts.size() == 2 * switches);
    CHECK(fabric_links(t) == c.links);
    const Routes r = Routes::build(t);
    CHECK(nic_diameter(t, r) == c.diameter + 2);
  }
  p.dims = {4, 4};
  p.wraparound = true;
  const Topology t = torus(p);
  CHECK(ports_of(t, "sw(1,2)") == 2 + 4);
  CHECK(t.nodes[t.peer(t.nics[0], 0)].name == "sw(0,0)");
  CHECK(t.nodes[t.peer(t.nics[2], 0)].name == "sw(1,0)");
  p.dims = {4};
  CHECK_THROWS_AS(torus(p), TopologyError);
}

TEST_CASE("custom: named switches, hosts and links", "[topology][custom]") {
  CustomParams p;
  p.switches = {{"tor", 0, 0}, {"agg", 1, 0}};
  p.hosts = {{"a", host(2)}, {"b", host(1)}};
  p.links = {{"a.nic0", "tor", nic_link()},
             {"a.nic1", "agg", nic_link()},
             {"b.nic0", "tor", nic_link()},
             {"tor", "agg", fabric_link()}};
  const Topology t = custom(p);
  validate(t);
  CHECK(t.nodes.size() == 5);
  CHECK(t.links.size() == 4);
  CHECK(t.nics.size() == 3);
  CHECK(by_name(t, "agg").tier == 1);
  CHECK(ports_of(t, "tor") == 3);

  CustomParams bad = p;
  bad.links.push_back({"tor", "spine9", fabric_link()});
  CHECK_THROWS_WITH(custom(bad), Catch::Contains("spine9"));
  bad = p;
  bad.switches.push_back({"a.nic1", 0, 0});
  CHECK_THROWS_WITH(custom(bad), Catch::Contains("duplicate node name 'a.nic1'"));
  bad = p;
  bad.links.push_back({"tor", "tor", fabric_link()});
  CHECK_THROWS_WITH(custom(bad), Catch::Contains("loops on 'tor'"));
}

TEST_CASE("every builder refuses a cluster past the memory limit before building it",
          "[topology][memory]") {
  // Each builder checks the memory estimate of the counts it is about to build: refused one
  // byte below the estimate of what it builds, built at it.
  KaryFatTreeParams k;
  k.k = 8;
  k.host = host(2);
  k.nic = nic_link();
  k.edge_agg = k.agg_core = fabric_link();
  RailParams rail;
  rail.hosts = 6;
  rail.hosts_per_group = 4;
  rail.spines = 2;
  rail.links_per_spine = 2;
  rail.host = host(4);
  rail.nic = nic_link();
  rail.uplink = fabric_link();
  DragonflyParams fly;
  fly.groups = 5;
  fly.routers_per_group = 4;
  fly.hosts_per_router = 2;
  fly.global_links_per_router = 2;
  fly.host = host();
  fly.nic = nic_link();
  fly.local = fly.global = fabric_link();
  TorusParams torus3;
  torus3.dims = {3, 3, 3};
  torus3.hosts_per_switch = 2;
  torus3.host = host();
  torus3.nic = torus3.link = fabric_link();
  FatTreeParams over = two_tier(4, 4);
  over.oversubscription = 2;
  const std::vector<std::function<Topology()>> builders = {
      [] { return single(one_switch(5, 2)); }, [&] { return fat_tree(over); },
      [&] { return fat_tree_3tier(k); },       [&] { return rail_optimized(rail); },
      [&] { return dragonfly(fly); },          [&] { return torus(torus3); }};
  const std::uint64_t before = memory_limit();
  for (std::size_t i = 0; i < builders.size(); ++i) {
    CAPTURE(i);
    set_memory_limit(before);
    const Topology t = builders[i]();
    const std::uint64_t need = estimate_memory(size_of(t)).total();
    set_memory_limit(need - 1);
    CHECK_THROWS_AS(builders[i](), std::length_error);
    set_memory_limit(need);
    CHECK_NOTHROW(builders[i]());
  }
  set_memory_limit(before);
}
