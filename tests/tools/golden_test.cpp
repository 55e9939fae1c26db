// Golden results: exact simulated times and event counts of small versions of SimAI's cases and
// of the incast examples. An optimization must leave them bit-identical; a change that moves
// them is a model change: say so in its commit, show its effect on `fabricsim validate`, and
// update the figures here.
#include <catch2/catch.hpp>
#include <cmath>

#include "net/network.hpp"
#include "tools/busbw.hpp"
#include "tools/scenario.hpp"

using namespace fabricsim;
using namespace fabricsim::tools;

namespace {

struct Golden {
  const char* scenario;
  std::vector<std::string> sets;
  std::uint64_t bytes;
  std::int64_t time_ps;
  std::uint64_t events;
};

}  // namespace

TEST_CASE("golden: SimAI cases S1, S2 and a small S4", "[golden]") {
  const Golden cases[] = {
      {"scenarios/bench/simai_s1.yaml", {}, 16ULL << 20, 139867112, 939},
      {"scenarios/bench/simai_s2.yaml", {}, 16ULL << 20, 327508400, 92209},
      {"scenarios/bench/simai_s4.yaml",
       {"cluster.hosts=4", "cluster.hosts_per_group=4"},
       4ULL << 20,
       518470400,
       170372},
  };
  for (const Golden& g : cases) {
    CAPTURE(g.scenario);
    const Scenario sc = load_scenario(g.scenario, g.sets);
    for (unsigned threads : {1u, 2u}) {
      net::RunOptions run = sc.net->run;
      run.threads = threads;
      run.lps = 4 * threads;
      const BusbwRow row = run_busbw(*sc.net, g.bytes, run);
      CHECK(std::llround(row.time_us * 1e6) == g.time_ps);
      CHECK(row.events == g.events);
    }
  }
}

TEST_CASE("golden: the incast examples", "[golden]") {
  for (const auto& [path, end_ps, events] :
       {std::tuple<const char*, core::Time, std::uint64_t>{"scenarios/examples/incast_hpcc.yaml",
                                                           2923946616, 85638},
        std::tuple<const char*, core::Time, std::uint64_t>{"scenarios/examples/incast_dcqcn.yaml",
                                                           3029596444, 76465}}) {
    CAPTURE(path);
    const Scenario sc = load_scenario(path);
    net::Network network(sc.net->topology, sc.net->network, sc.net->flows);
    const net::NetworkResult r = network.run(sc.net->run);
    CHECK(r.end == end_ps);
    CHECK(r.kernel.events == events);
  }
}
