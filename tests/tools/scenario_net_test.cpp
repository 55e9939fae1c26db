#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "net/topology/build.hpp"
#include "tools/scenario.hpp"

using namespace fabricsim;
using tools::parse_scenario;

namespace {

// Hosts without GPUs: the flows workload needs only NICs, so no intra-host numbers are needed.
const std::string kHost = "  host: {gpus: 0}\n  nic_link: {rate: 100Gbps, delay: 1us}\n";
const std::string kFlows = "workload:\n  flows: {pattern: all_to_all, size: 1MB}\n";

std::string cluster(const std::string& body) {
  return "cluster:\n" + body + kHost + kFlows;
}

const tools::ResolvedKey* find(const tools::NetScenario& n, const std::string& key) {
  for (const auto& r : n.resolved) {
    if (r.key == key) return &r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("every topology kind parses to the builder's node and link counts", "[scenario]") {
  struct Case {
    const char* kind;  // as the builder names it
    std::string body;
    std::size_t nics, nodes, links;
  };
  const Case cases[] = {
      {"single", "  topology: single\n  hosts: 4\n", 4, 5, 4},
      // 2 hosts per leaf at 100G over 100G uplinks: 2 uplinks per leaf, one spine each.
      {"fat_tree",
       "  topology: fat_tree\n  leaves: 2\n  hosts_per_leaf: 2\n"
       "  uplink: {rate: 100Gbps, delay: 1us}\n",
       4, 8, 8},
      // k = 4: 16 hosts, 8 edge, 8 aggregation, 4 core switches; 16 + 16 + 16 links.
      {"fat_tree_3tier",
       "  topology: fat_tree_3tier\n  k: 4\n  edge_agg: {rate: 100Gbps, delay: 1us}\n"
       "  agg_core: {rate: 100Gbps, delay: 1us}\n",
       16, 36, 48},
      {"dragonfly",
       "  topology: dragonfly\n  groups: 3\n  routers_per_group: 2\n  hosts_per_router: 1\n"
       "  global_links_per_router: 1\n  local: {rate: 100Gbps, delay: 100ns}\n"
       "  global: {rate: 100Gbps, delay: 1us}\n",
       6, 12, 12},
      {"torus",
       "  topology: torus\n  dims: [3, 3]\n  hosts_per_switch: 1\n"
       "  link: {rate: 100Gbps, delay: 1us}\n",
       9, 18, 27},
      {"mesh",
       "  topology: mesh\n  dims: [3, 3]\n  hosts_per_switch: 1\n"
       "  link: {rate: 100Gbps, delay: 1us}\n",
       9, 18, 21},
  };
  for (const Case& c : cases) {
    CAPTURE(c.kind);
    const auto sc = parse_scenario(cluster(c.body), "t.yaml");
    REQUIRE(sc.net);
    REQUIRE(sc.net->topology.kind == c.kind);
    REQUIRE(sc.net->topology.nics.size() == c.nics);
    REQUIRE(sc.net->topology.nodes.size() == c.nodes);
    REQUIRE(sc.net->topology.links.size() == c.links);
    REQUIRE(sc.net->flows.size() == c.nics * (c.nics - 1));
  }

  // Rail-optimized: 2 NICs per host = 2 rails, 2 groups of 2 hosts: 4 rail leaves, 2 spines.
  const auto rail = parse_scenario(
      "cluster:\n  topology: rail_optimized\n  hosts: 4\n  hosts_per_group: 2\n  spines: 2\n"
      "  uplink: {rate: 400Gbps, delay: 1us}\n"
      "  host: {gpus: 8, nics: 2, gpu_link: 450GBps, gpu_latency: 25ns}\n"
      "  nic_link: {rate: 400Gbps, delay: 500ns}\n" +
          kFlows,
      "t.yaml");
  const net::Topology& t = rail.net->topology;
  REQUIRE(t.nics.size() == 8);
  REQUIRE(t.nodes.size() == 14);
  REQUIRE(t.links.size() == 16);
  REQUIRE(t.hosts[0].gpus == 8);
  REQUIRE(t.hosts[0].gpu_link_rate == 3600 * net::kGbps);
  REQUIRE(t.hosts[0].gpu_link_latency == 25 * core::kNanosecond);
  REQUIRE(t.hosts[0].gpu_to_nic == std::vector<std::uint32_t>{0, 0, 0, 0, 1, 1, 1, 1});
  REQUIRE(t.links[0].rate == 400 * net::kGbps);
  REQUIRE(t.links[0].delay == 500 * core::kNanosecond);

  const auto custom = parse_scenario(
      "cluster:\n  topology: custom\n  host: {gpus: 0}\n"
      "  switches: [{name: s0}, {name: s1, tier: 1}]\n"
      "  hosts: [{name: a}, {name: b, nics: 2}]\n"
      "  links:\n"
      "    - {a: a.nic0, b: s0, rate: 100Gbps, delay: 1us}\n"
      "    - {a: b.nic0, b: s0, rate: 100Gbps, delay: 1us}\n"
      "    - {a: b.nic1, b: s1, rate: 100Gbps, delay: 1us}\n"
      "    - {a: s0, b: s1, rate: 400Gbps, delay: 2us}\n" +
          kFlows,
      "t.yaml");
  REQUIRE(custom.net->topology.kind == "custom");
  REQUIRE(custom.net->topology.nics.size() == 3);
  REQUIRE(custom.net->topology.nodes.size() == 5);
  REQUIRE(custom.net->topology.links.size() == 4);
  REQUIRE(custom.net->topology.nodes[3].tier == 0);
  REQUIRE(custom.net->topology.nodes[4].tier == 1);

  // Hosts that each say gpus: 0 need no intra-host fabric, whatever cluster.host defaults to.
  const auto no_gpus = parse_scenario(
      "cluster:\n  topology: custom\n  switches: [{name: s0}]\n"
      "  hosts: [{name: a, gpus: 0}, {name: b, gpus: 0}]\n"
      "  links:\n"
      "    - {a: a.nic0, b: s0, rate: 100Gbps, delay: 1us}\n"
      "    - {a: b.nic0, b: s0, rate: 100Gbps, delay: 1us}\n" +
          kFlows,
      "t.yaml");
  REQUIRE(no_gpus.net->topology.hosts[0].gpus == 0);
}

TEST_CASE("degraded links run at their given rate, both directions, every parallel link",
          "[scenario]") {
  // A 2-leaf fat tree with two uplinks per leaf to two spines: leaf0-spine1 is slowed to 25G.
  const std::string body =
      "  topology: fat_tree\n  leaves: 2\n  hosts_per_leaf: 2\n"
      "  uplink: {rate: 100Gbps, delay: 1us}\n"
      "  degraded_links: [{a: spine1, b: leaf0, rate: 25Gbps}]\n";
  const auto sc = parse_scenario(cluster(body), "t.yaml");
  const net::Topology& t = sc.net->topology;
  std::size_t slow = 0;
  for (const net::Link& l : t.links) {
    const std::string a = t.nodes[l.a].name, b = t.nodes[l.b].name;
    const bool degraded = (a == "leaf0" && b == "spine1") || (a == "spine1" && b == "leaf0");
    CAPTURE(a, b);
    REQUIRE(l.rate == (degraded ? 25 * net::kGbps : 100 * net::kGbps));
    slow += degraded;
  }
  REQUIRE(slow == 1);
}

TEST_CASE("network defaults are the C++ structs' and are echoed", "[scenario]") {
  const auto sc = parse_scenario(cluster("  topology: single\n  hosts: 4\n"), "t.yaml");
  REQUIRE(sc.net);
  const net::NetworkConfig def;
  const net::NetworkConfig& c = sc.net->network;
  REQUIRE(c.cc.kind == def.cc.kind);
  REQUIRE(c.cc.dcqcn.g == def.cc.dcqcn.g);
  REQUIRE(c.cc.dcqcn.rate_ai == def.cc.dcqcn.rate_ai);
  REQUIRE(c.cc.dcqcn.byte_counter == def.cc.dcqcn.byte_counter);
  REQUIRE(c.nic.mtu == def.nic.mtu);
  REQUIRE(c.nic.rto == def.nic.rto);
  REQUIRE(c.nic.nack_interval == def.nic.nack_interval);
  REQUIRE(c.nic.ack_every == def.nic.ack_every);
  REQUIRE(c.sw.buffer_bytes == def.sw.buffer_bytes);
  REQUIRE(c.sw.pfc == def.sw.pfc);
  REQUIRE(c.sw.pfc_alpha == def.sw.pfc_alpha);
  REQUIRE(c.sw.pfc_resume_offset == def.sw.pfc_resume_offset);
  REQUIRE(c.sw.pmax == def.sw.pmax);
  REQUIRE(c.sw.routing == def.sw.routing);
  // A network run goes until its flows finish; 0 LPs means eight per thread.
  REQUIRE(sc.simulation.end == core::kTimeMax);
  REQUIRE(sc.net->run.end == core::kTimeMax);
  REQUIRE(sc.net->run.lps == 8);
  REQUIRE(sc.net->run.threads == 1);

  const struct {
    const char* key;
    const char* value;
  } echoed[] = {{"network.cc", "dcqcn"},
                {"network.routing", "ecmp"},
                {"network.mtu", "4096B"},
                {"network.buffer", "32MB"},
                {"network.rto", "67108864ns"},
                {"network.nack_interval", "500us"},
                {"network.pfc_alpha", "0.125"},
                {"network.pfc_resume_offset", "3072B"},
                {"network.dcqcn.variant", "connectx"},
                {"network.dcqcn.g", "0.0048828125"},
                {"network.dcqcn.rate_hai", "50Mbps"},
                {"network.dcqcn.alpha_period", "1us"},
                {"network.dcqcn.rate_reduce_period", "4us"},
                {"network.dcqcn.clamp", "after_timer_increase"},
                {"network.pfc_pause_quanta", "65535"},
                {"network.pfc_refresh", "0us"},
                {"simulation.end", "inf"},
                {"cluster.host.gpus", "0"},
                {"cluster.nic_link.rate", "100Gbps"}};
  for (const auto& e : echoed) {
    CAPTURE(e.key);
    const tools::ResolvedKey* r = find(*sc.net, e.key);
    REQUIRE(r != nullptr);
    REQUIRE(r->value == e.value);
  }
  REQUIRE_FALSE(find(*sc.net, "network.mtu")->given);
  REQUIRE(find(*sc.net, "cluster.hosts")->given);
  // Parameters of an algorithm that is not selected are neither read nor echoed.
  REQUIRE(find(*sc.net, "network.hpcc.eta") == nullptr);
}

TEST_CASE("every network key reads its value with units", "[scenario]") {
  const auto sc = parse_scenario(R"(simulation: {seed: 3, end: 10ms, threads: 2, lps: 6}
cluster:
  topology: single
  hosts: 17
  host: {gpus: 8, nics: 1, gpu_link: 3600Gbps, gpu_latency: 25ns, intra: pcie,
         gpu_to_nic: [0, 0, 0, 0, 0, 0, 0, 0]}
  nic_link: {rate: 100Gbps, delay: 1us}
network:
  cc: timely
  routing: adaptive
  mtu: 9000B
  ack_every: 4
  rto: 1ms
  nack_interval: 100us
  buffer: 64MiB
  pfc: false
  pfc_xoff: 1MB
  pfc_alpha: 0.5
  pfc_resume_offset: 6KiB
  pfc_headroom_factor: 2
  egress_alpha: 2
  ecn: false
  ecn_kmin: 10KB
  ecn_kmax: 20KB
  ecn_pmax: 0.5
  timely: {t_low: 10us, t_high: 100us, min_rtt: 5us, delta: 20Mbps, beta: 0.5,
           ewma_alpha: 0.5, hai_after: 3, hai_factor: 2, segment_bytes: 0B, min_rate: 1Gbps}
workload:
  flows: {pattern: incast, size: 2MB, start: 5us, receiver: 16, senders: 16}
)",
                                 "t.yaml");
  const auto& n = *sc.net;
  REQUIRE(n.run.seed == 3);
  REQUIRE(n.run.threads == 2);
  REQUIRE(n.run.lps == 6);
  REQUIRE(n.run.end == 10 * core::kMillisecond);
  REQUIRE(n.topology.hosts[0].intra == net::IntraHost::kPcie);
  const net::NetworkConfig& c = n.network;
  REQUIRE(c.cc.kind == net::cc::Kind::kTimely);
  REQUIRE(c.sw.routing == net::Routing::kAdaptive);
  REQUIRE(c.nic.mtu == 9000);
  REQUIRE(c.nic.ack_every == 4);
  REQUIRE(c.nic.rto == core::kMillisecond);
  REQUIRE(c.nic.nack_interval == 100 * core::kMicrosecond);
  REQUIRE(c.sw.buffer_bytes == 64ULL << 20);
  REQUIRE_FALSE(c.sw.pfc);
  REQUIRE(c.sw.pfc_xoff_bytes == 1'000'000);
  REQUIRE(c.sw.pfc_alpha == 0.5);
  REQUIRE(c.sw.pfc_resume_offset == 6144);
  REQUIRE(c.sw.pfc_headroom_factor == 2);
  REQUIRE(c.sw.egress_alpha == 2);
  REQUIRE_FALSE(c.sw.ecn);
  REQUIRE(c.sw.kmin_bytes == 10'000);
  REQUIRE(c.sw.kmax_bytes == 20'000);
  REQUIRE(c.sw.pmax == 0.5);
  REQUIRE(c.cc.timely.t_low == 10 * core::kMicrosecond);
  REQUIRE(c.cc.timely.delta == 20'000'000);
  REQUIRE(c.cc.timely.segment_bytes == 0);
  REQUIRE(c.cc.timely.min_rate == net::kGbps);
  REQUIRE(n.flows.size() == 16);
  for (const net::FlowSpec& f : n.flows) {
    REQUIRE(f.dst_nic == 16);
    REQUIRE(f.bytes == 2'000'000);
    REQUIRE(f.start == 5 * core::kMicrosecond);
  }

  const auto hpcc = parse_scenario(cluster("  topology: single\n  hosts: 2\n") +
                                       "network: {cc: hpcc, hpcc: {eta: 0.9, max_stage: 0}}\n",
                                   "t.yaml");
  REQUIRE(hpcc.net->network.cc.hpcc.eta == 0.9);
  REQUIRE(hpcc.net->network.cc.hpcc.max_stage == 0);
  REQUIRE_FALSE(hpcc.net->network.cc.hpcc.global_base_rtt);
  const auto global = parse_scenario(cluster("  topology: single\n  hosts: 2\n") +
                                         "network: {cc: hpcc, hpcc: {base_rtt: global}}\n",
                                     "t.yaml");
  REQUIRE(global.net->network.cc.hpcc.global_base_rtt);
  const auto dctcp = parse_scenario(
      cluster("  topology: single\n  hosts: 2\n") + "network: {cc: dctcp, dctcp: {g: 0.5}}\n",
      "t.yaml");
  REQUIRE(dctcp.net->network.cc.dctcp.g == 0.5);
  const auto dcqcn = parse_scenario(
      cluster("  topology: single\n  hosts: 2\n") +
          "network:\n  dcqcn: {g: 0.5, alpha_init: 0.5, alpha_period: 1us, increase_period: 2us,"
          " byte_counter: 32KiB, fast_recovery_steps: 1, rate_ai: 5Mbps, rate_hai: 50Mbps,"
          " min_rate: 1Mbps, cnp_interval: 4us}\n",
      "t.yaml");
  const net::cc::DcqcnParams& d = dcqcn.net->network.cc.dcqcn;
  REQUIRE(d.g == 0.5);
  REQUIRE(d.increase_period == 2 * core::kMicrosecond);
  REQUIRE(d.byte_counter == 32768);
  REQUIRE(d.fast_recovery_steps == 1);
  REQUIRE(d.rate_hai == 50'000'000);
  REQUIRE(d.cnp_interval == 4 * core::kMicrosecond);
  // A variant sets every default; a key still overrides one.
  const auto paper = parse_scenario(cluster("  topology: single\n  hosts: 2\n") +
                                        "network:\n  dcqcn: {variant: paper, rate_ai: 20Mbps,"
                                        " clamp: never}\n",
                                    "t.yaml");
  const net::cc::DcqcnParams& pp = paper.net->network.cc.dcqcn;
  const net::cc::DcqcnParams published = net::cc::dcqcn_paper();
  REQUIRE(pp.variant == net::cc::DcqcnVariant::kPaper);
  REQUIRE(pp.g == published.g);
  REQUIRE(pp.rate_reduce_period == 0);
  REQUIRE(pp.alpha_update == net::cc::DcqcnAlpha::kOnCnp);
  REQUIRE(pp.cnp_interval == published.cnp_interval);
  REQUIRE(pp.rate_ai == 20'000'000);
  REQUIRE(pp.clamp == net::cc::DcqcnClamp::kNever);

  // TIMELY: the reference model's variant scales its step with the line rate (delta 0); the
  // paper's has a fixed one, and a key still overrides the variant's default.
  const std::string two = cluster("  topology: single\n  hosts: 2\n");
  const auto ns3 = parse_scenario(two + "network: {cc: timely}\n", "t.yaml");
  REQUIRE(ns3.net->network.cc.timely.variant == net::cc::TimelyVariant::kHpccNs3);
  REQUIRE(ns3.net->network.cc.timely.delta == 0);
  REQUIRE(ns3.net->network.cc.timely.hai == net::cc::TimelyHai::kAnyIncrease);
  const auto tp = parse_scenario(
      two + "network: {cc: timely, timely: {variant: paper, update: per_rtt}}\n", "t.yaml");
  const net::cc::TimelyParams& t = tp.net->network.cc.timely;
  REQUIRE(t.variant == net::cc::TimelyVariant::kPaper);
  REQUIRE(t.delta == net::cc::timely_paper().delta);
  REQUIRE(t.hai == net::cc::TimelyHai::kGradient);
  REQUIRE(t.per_rtt);
  const auto th = parse_scenario(
      two + "network: {cc: timely, timely: {hai: gradient, delta: 1Gbps}}\n", "t.yaml");
  REQUIRE(th.net->network.cc.timely.hai == net::cc::TimelyHai::kGradient);
  REQUIRE(th.net->network.cc.timely.delta == net::kGbps);
}

TEST_CASE("flow patterns: permutation and explicit lists", "[scenario]") {
  const std::string base = "cluster:\n  topology: single\n  hosts: 8\n" + kHost;
  const auto perm =
      parse_scenario(base + "workload:\n  flows: {pattern: permutation, size: 64KiB}\n", "t.yaml");
  REQUIRE(perm.net->flows.size() == 8);
  for (const net::FlowSpec& f : perm.net->flows) REQUIRE(f.src_nic != f.dst_nic);
  const auto list = parse_scenario(base +
                                       "workload:\n  flows:\n    pattern: list\n    list:\n"
                                       "      - {src: 0, dst: 1, size: 1MB, start: 0us}\n"
                                       "      - {src: 7, dst: 2, size: 1500B}\n",
                                   "t.yaml");
  REQUIRE(list.net->flows.size() == 2);
  REQUIRE(list.net->flows[1].src_nic == 7);
  REQUIRE(list.net->flows[1].bytes == 1500);
  REQUIRE(list.net->flows[1].start == 0);
}

TEST_CASE("overrides from the command line reach every kind of network key", "[scenario]") {
  const std::string text = cluster("  topology: single\n  hosts: 4\n");
  const auto sc = parse_scenario(
      text, "t.yaml",
      {"cluster.hosts=8", "cluster.nic_link.rate=400Gbps", "network.cc=hpcc",
       "network.hpcc.eta=0.9", "network.mtu=9000B", "workload.flows.pattern=incast",
       "workload.flows.receiver=0", "workload.flows.senders=7", "simulation.end=1ms"});
  REQUIRE(sc.net->topology.nics.size() == 8);
  REQUIRE(sc.net->topology.links[0].rate == 400 * net::kGbps);
  REQUIRE(sc.net->network.cc.kind == net::cc::Kind::kHpcc);
  REQUIRE(sc.net->network.cc.hpcc.eta == 0.9);
  REQUIRE(sc.net->network.nic.mtu == 9000);
  REQUIRE(sc.net->flows.size() == 7);
  REQUIRE(sc.net->run.end == core::kMillisecond);
  // network.ack_every takes a count or the word 'message'.
  const auto coalesced = parse_scenario(text, "t.yaml", {"network.ack_every=message"});
  REQUIRE(coalesced.net->network.nic.ack_every == net::NicConfig::kAckMessageEnds);

  // List items are addressed by index; whole sections can be replaced.
  const std::string listed = "cluster:\n  topology: single\n  hosts: 4\n" + kHost +
                             "workload:\n  flows:\n    pattern: list\n"
                             "    list: [{src: 0, dst: 1, size: 1MB}]\n";
  const auto item = parse_scenario(listed, "t.yaml",
                                   {"workload.flows.list.0.size=2MB", "cluster.host={gpus: 0}"});
  REQUIRE(item.net->flows[0].bytes == 2'000'000);

  // Errors in a --set value quote the --set, not a line of the file.
  REQUIRE_THROWS_WITH(parse_scenario(text, "t.yaml", {"network.mtu=0B"}),
                      Catch::Contains("t.yaml: --set network.mtu=0B: 'network.mtu' must be"));
  REQUIRE_THROWS_WITH(parse_scenario(text, "t.yaml", {"network.mut=9000B"}),
                      Catch::Contains("--set network.mut=9000B: unknown key 'mut'") &&
                          Catch::Contains("did you mean 'mtu'"));
  REQUIRE_THROWS_WITH(parse_scenario(text, "t.yaml", {"cluster.hosts.x=1"}),
                      Catch::Contains("'cluster.hosts' is a single value"));
  REQUIRE_THROWS_WITH(parse_scenario(listed, "t.yaml", {"workload.flows.list.5.size=1MB"}),
                      Catch::Contains("is a list of 1"));
  REQUIRE_THROWS_WITH(parse_scenario(text, "t.yaml", {"network..mtu=1B"}),
                      Catch::Contains("empty key in path"));
}

TEST_CASE("describe summarises a network scenario and a PHOLD one", "[scenario]") {
  const auto sc = parse_scenario(cluster("  topology: single\n  hosts: 4\n"), "t.yaml");
  const std::string d = tools::describe(sc);
  CAPTURE(d);
  REQUIRE_THAT(d, Catch::Contains("cluster: single, 4 hosts, 4 NICs, 1 switch, 4 links"));
  REQUIRE_THAT(d, Catch::Contains("cc dcqcn, routing ecmp"));
  REQUIRE_THAT(d, Catch::Contains("12 all_to_all flows, 12MB in total"));
  REQUIRE_THAT(d, Catch::Contains("when the traffic ends"));
  const auto ph = parse_scenario("workload: {phold: {nodes: 64}}\n", "p.yaml");
  REQUIRE_THAT(tools::describe(ph), Catch::Contains("phold: 64 nodes"));
}

TEST_CASE("the example scenarios load", "[scenario]") {
  const auto sc = tools::load_scenario("scenarios/examples/incast_dcqcn.yaml");
  REQUIRE(sc.net);
  REQUIRE(sc.net->topology.kind == "single");
  REQUIRE(sc.net->topology.nics.size() == 17);
  REQUIRE(sc.net->flows.size() == 16);
  REQUIRE(sc.net->network.cc.kind == net::cc::Kind::kDcqcn);
  REQUIRE(tools::load_scenario("scenarios/examples/phold.yaml").phold);
  REQUIRE(tools::load_scenario("scenarios/examples/incast_hpcc.yaml").net);
}

TEST_CASE("every scenario shipped in scenarios/ parses", "[scenario]") {
  namespace fs = std::filesystem;
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator("scenarios")) {
    // The validation manifest lists datasets, it is not a scenario.
    if (e.path().extension() != ".yaml" || e.path().filename() == "manifest.yaml") continue;
    CAPTURE(e.path().string());
    const auto sc = tools::load_scenario(e.path().string());
    REQUIRE((sc.net.has_value() || sc.phold.has_value()));
    ++n;
  }
  REQUIRE(n >= 3);
}

// Each file in tests/data/bad_scenarios starts with "# error: TEXT" (and may add
// "# set: key=value" lines, given as --set); loading it must throw a ScenarioError containing
// TEXT.
TEST_CASE("the corpus of bad scenarios is refused with the expected messages", "[scenario]") {
  namespace fs = std::filesystem;
  const fs::path dir = "tests/data/bad_scenarios";
  REQUIRE(fs::is_directory(dir));
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    const std::string path = entry.path().generic_string();
    CAPTURE(path);
    std::ifstream in(path);
    std::string line, expected;
    std::vector<std::string> sets;
    while (std::getline(in, line) && line.rfind("# ", 0) == 0) {
      if (line.rfind("# error: ", 0) == 0) expected = line.substr(9);
      if (line.rfind("# set: ", 0) == 0) sets.push_back(line.substr(7));
    }
    REQUIRE_FALSE(expected.empty());
    std::string message;
    try {
      tools::load_scenario(path, sets);
    } catch (const tools::ScenarioError& e) {
      message = e.what();
    }
    CAPTURE(message);
    CHECK_THAT(message, Catch::Contains(expected));
  }
  REQUIRE(files >= 150);
}
