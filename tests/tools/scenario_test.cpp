#include <catch2/catch.hpp>

#include "tools/scenario.hpp"

using namespace fabricsim;
using tools::parse_scenario;

namespace {
const char* kGood = R"(simulation:
  seed: 7
  end: 50us
  threads: 2
workload:
  phold:
    nodes: 64
    lookahead: 2us
)";
}

TEST_CASE("a PHOLD scenario parses with defaults filled in", "[scenario]") {
  const auto sc = parse_scenario(kGood, "good.yaml");
  REQUIRE(sc.simulation.seed == 7);
  REQUIRE(sc.simulation.end == 50 * core::kMicrosecond);
  REQUIRE(sc.phold);
  REQUIRE(sc.phold->nodes == 64);
  REQUIRE(sc.phold->lookahead == 2 * core::kMicrosecond);
  REQUIRE(sc.phold->mean_delay == core::kMicrosecond);
  REQUIRE(sc.phold->threads == 2);
  REQUIRE(sc.phold->lps == 32);
}

TEST_CASE("simulation.end: inf reads back what results.json echoes for 'until the end'",
          "[scenario]") {
  const std::string flows =
      "cluster: {topology: single, hosts: 2, host: {gpus: 0}, nic_link: {rate: 100Gbps, delay: "
      "1us}}\nworkload:\n  flows: {pattern: all_to_all, size: 1MB}\n";
  const auto sc = parse_scenario(flows, "good.yaml", {"simulation.end=inf"});
  REQUIRE(sc.simulation.end == core::kTimeMax);
  // PHOLD's events never run out: it needs an end.
  REQUIRE_THROWS_WITH(parse_scenario(kGood, "good.yaml", {"simulation.end=inf"}),
                      Catch::Contains("must be finite for PHOLD"));
}

TEST_CASE("command-line overrides beat file values and are validated like them", "[scenario]") {
  const auto sc =
      parse_scenario(kGood, "good.yaml", {"simulation.seed=9", "workload.phold.nodes=8"});
  REQUIRE(sc.simulation.seed == 9);
  REQUIRE(sc.phold->nodes == 8);
  REQUIRE_THROWS_WITH(
      parse_scenario(kGood, "good.yaml", {"simulation.sed=9"}),
      Catch::Contains("unknown key 'sed'") && Catch::Contains("did you mean 'seed'"));
  REQUIRE_THROWS_WITH(parse_scenario(kGood, "good.yaml", {"simulation.seed"}),
                      Catch::Contains("expected key.path=value"));
}

TEST_CASE("bad scenarios name the file, line, column and key", "[scenario]") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"simulation:\n  treads: 2\nworkload: {phold: {}}\n",
       "bad.yaml:2:3: unknown key 'treads' in 'simulation' (did you mean 'threads'?)"},
      {"simulation:\n  end: 100\nworkload: {phold: {}}\n",
       "bad.yaml:2:8: 'simulation.end' '100' has no unit"},
      {"simulation:\n  threads: 0\nworkload: {phold: {}}\n",
       "'simulation.threads' must be between 1 and 1024, got 0"},
      {"simulation:\n  threads: two\nworkload: {phold: {}}\n", "must be a whole number, got 'two'"},
      {"workload:\n  phold:\n    lookahead: 0ns\n",
       "'workload.phold.lookahead' must be at least 1ps"},
      {"simulation: {lps: 100}\nworkload:\n  phold: {nodes: 10}\n",
       "lps = 100 exceeds the 10 PHOLD nodes"},
      {"simulation: {end: 1us}\n", "needs a workload"},
      {"simulation: [1, 2]\nworkload: {phold: {}}\n", "'simulation' must be a mapping"},
      {"simulation:\n  seed: [1\n", "bad.yaml:3:1: not valid YAML"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    REQUIRE_THROWS_WITH(parse_scenario(c.text, "bad.yaml"), Catch::Contains(c.message));
  }
  REQUIRE_THROWS_WITH(tools::load_scenario("no/such/file.yaml"),
                      Catch::Contains("cannot open the scenario file"));
  // A device or a directory is not read forever nor taken for an empty file.
  REQUIRE_THROWS_WITH(tools::load_scenario("/dev/zero"),
                      Catch::Contains("/dev/zero: cannot open the scenario file: it is not a "
                                      "regular file"));
  REQUIRE_THROWS_WITH(
      tools::load_scenario("scenarios"),
      Catch::Contains("scenarios: cannot open the scenario file: it is a directory"));
}

TEST_CASE("collectives.nccl_version: 2.Y is that minor release's latest", "[scenario]") {
  // Every rule changes at a minor release's first patch (2.18.1, 2.20.3, ...): "2.18" read as
  // 2.18.0 fell before 2.18.1's channel rule.
  const std::string base =
      "cluster: {topology: single, hosts: 2, host: {gpus: 8, gpu: H100, gpu_latency: 0ns}, "
      "nic_link: {rate: 400Gbps, delay: 1us}}\ncollectives: {op: allreduce}\n";
  const auto version = [&](const std::string& v) {
    return parse_scenario(base, "v.yaml", {"collectives.nccl_version=" + v})
        .net->collectives->hw.nccl_version;
  };
  CHECK(version("2.18") == 21899);
  CHECK(version("2.18.1") == 21801);
  CHECK(version("2.23.4-1") == 22304);
  CHECK(version("2.30") == 23007);  // the newest modelled
  CHECK_THROWS_WITH(version("2.31"), Catch::Contains("newer than NCCL 2.30.7"));
}
