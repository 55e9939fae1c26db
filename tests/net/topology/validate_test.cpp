#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "net/topology/build.hpp"
#include "net/topology/validate.hpp"

using namespace fabricsim::net;
using namespace fabricsim::net::test;
using Catch::Contains;

namespace {

std::string error_of(const Topology& t) {
  try {
    validate(t);
  } catch (const TopologyError& e) {
    return e.what();
  }
  return "(no error)";
}

// host0.nic0, host1.nic0, host2.nic0 on "switch": links i = host i's NIC, switch port i.
Topology three() {
  return single(one_switch(3));
}
NodeId switch_of(const Topology& t) {
  return t.peer(t.nics[0], 0);
}

}  // namespace

TEST_CASE("validate accepts every builder's output", "[topology][validate]") {
  CHECK_NOTHROW(validate(three()));
  CHECK_NOTHROW(validate(fat_tree(two_tier(3, 2))));
}

TEST_CASE("validate names the node of each broken case", "[topology][validate]") {
  SECTION("disconnected graph") {
    CustomParams p;
    p.switches = {{"left", 0, 0}, {"right", 0, 0}};
    p.hosts = {{"a", host()}, {"b", host()}};
    p.links = {{"a.nic0", "left", nic_link()}, {"b.nic0", "right", nic_link()}};
    CHECK_THAT(error_of(custom(p)), Contains("b.nic0 is not connected to a.nic0"));
  }
  SECTION("link endpoint out of range") {
    Topology t = three();
    t.links[1].a = 99;
    CHECK_THAT(error_of(t), Contains("endpoint 99 out of range") && Contains("switch"));
  }
  SECTION("self loop") {
    Topology t = three();
    t.links[1].a = t.links[1].b;
    CHECK_THAT(error_of(t), Contains("loops on switch"));
  }
  SECTION("port table inconsistent with the links") {
    Topology t = three();
    std::swap(t.nodes[switch_of(t)].ports[0], t.nodes[switch_of(t)].ports[1]);
    CHECK_THAT(error_of(t), Contains("switch: port 0 lists link 1"));
  }
  SECTION("link port beyond the node's ports") {
    Topology t = three();
    t.links[2].port_b = 7;
    CHECK_THAT(error_of(t), Contains("switch:") && Contains("uses port 7"));
  }
  SECTION("duplicate port") {
    Topology t = three();
    t.links[1].port_b = 0;  // links 0 and 1 both claim switch port 0
    CHECK_THAT(error_of(t), Contains("switch: port 0 is a duplicate port"));
  }
  SECTION("zero rate") {
    Topology t = three();
    t.links[2].rate = 0;
    CHECK_THAT(error_of(t), Contains("host2.nic0 -- switch") && Contains("zero rate"));
  }
  SECTION("negative delay") {
    Topology t = three();
    t.links[1].delay = -1;
    CHECK_THAT(error_of(t), Contains("host1.nic0 -- switch") && Contains("negative delay"));
  }
  SECTION("a NIC on two links") {
    Topology t = three();
    const NodeId nic = t.nics[1], sw = switch_of(t);
    Link extra;
    extra.a = nic;
    extra.b = sw;
    extra.port_a = 1;
    extra.port_b = static_cast<PortId>(t.nodes[sw].ports.size());
    extra.rate = nic_link().rate;
    t.links.push_back(extra);
    t.nodes[nic].ports.push_back(3);
    t.nodes[sw].ports.push_back(3);
    CHECK_THAT(error_of(t), Contains("host1.nic0: a NIC must be attached to exactly one link"));
  }
  SECTION("a NIC on no link") {
    CustomParams p;
    p.switches = {{"tor", 0, 0}};
    p.hosts = {{"a", host()}, {"b", host()}};
    p.links = {{"a.nic0", "tor", nic_link()}};
    CHECK_THAT(error_of(custom(p)), Contains("b.nic0: a NIC must be attached to exactly one link"));
  }
  SECTION("GPU mapped outside the host's NICs") {
    Topology t = three();
    t.hosts[1].gpu_to_nic[3] = 5;
    CHECK_THAT(error_of(t), Contains("host1: GPU 3 maps to NIC 5"));
  }
  SECTION("host with no NIC") {
    Topology t = three();
    Host ghost;
    ghost.name = "host9";
    t.hosts.push_back(ghost);
    CHECK_THAT(error_of(t), Contains("host9 has no NIC"));
  }
  SECTION("Topology::nics out of host order") {
    Topology t = three();
    std::swap(t.nics[0], t.nics[1]);
    CHECK_THAT(error_of(t), Contains("host0.nic0 is not at position 0"));
  }
  SECTION("duplicate node name") {
    Topology t = three();
    t.nodes[switch_of(t)].name = "host1.nic0";
    CHECK_THAT(error_of(t), Contains("duplicate node name host1.nic0"));
  }
}
