#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "net/topology/build.hpp"
#include "net/topology/graphviz.hpp"

using namespace fabricsim::net;
using namespace fabricsim::net::test;
using Catch::Contains;

TEST_CASE("rates print in the largest unit that keeps them >= 1", "[topology][graphviz]") {
  CHECK(format_rate(400 * kGbps) == "400Gbps");
  CHECK(format_rate(1600 * kGbps) == "1.6Tbps");
  CHECK(format_rate(100'000'000) == "100Mbps");
  CHECK(format_rate(25) == "25bps");
  CHECK(format_rate(0) == "0bps");
}

TEST_CASE("dot output: every node by name, every link with rate and delay",
          "[topology][graphviz]") {
  const Topology t = fat_tree(two_tier(2, 2));
  const std::string dot = to_dot(t);
  CHECK(dot.rfind("graph \"fat_tree\" {", 0) == 0);
  for (const Node& n : t.nodes) CHECK_THAT(dot, Contains("\"" + n.name + "\""));
  CHECK_THAT(dot, Contains("\"host3.nic0\" -- \"leaf1\" [label=\"400Gbps 200ns\"]"));
  CHECK_THAT(dot, Contains("\"leaf0\" -- \"spine1\" [label=\"400Gbps 1us\"]"));
  CHECK_THAT(dot, Contains("subgraph \"cluster_host0\""));
  std::size_t edges = 0;
  for (std::size_t at = dot.find(" -- "); at != std::string::npos; at = dot.find(" -- ", at + 1)) {
    ++edges;
  }
  CHECK(edges == t.links.size());

  CustomParams p;
  p.switches = {{"a\"b", 0, 0}};
  p.hosts = {{"h", host()}};
  p.links = {{"h.nic0", "a\"b", nic_link()}};
  CHECK_THAT(to_dot(custom(p)), Contains("\"a\\\"b\""));
}
