#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>
#include "tools/cli_args.hpp"
#include "tools/commands.hpp"

#include "core/phold.hpp"
#include "core/ranks.hpp"
#include "net/flows.hpp"
#include "net/network.hpp"
#include "tools/net_report.hpp"
#include "tools/progress.hpp"
#include "tools/results_json.hpp"
#include "tools/scenario.hpp"
#include "tools/training_report.hpp"

namespace po = boost::program_options;

namespace fabricsim::tools {

void print_phold(const core::PholdParams& p, const core::PholdResult& r) {
  std::printf("PHOLD: %u nodes, %u initial events per node, lookahead %s, mean extra delay %s\n",
              p.nodes, p.events_per_node, core::format_time(p.lookahead).c_str(),
              core::format_time(p.mean_delay).c_str());
  std::printf("%s", r.stats.summary().c_str());
  if (p.trace_hash) {
    std::printf("trace hash        %016llx\n", static_cast<unsigned long long>(r.trace_hash));
  }
}

int cmd_run(const std::vector<std::string>& args) {
  po::options_description opts("fabricsim run SCENARIO.yaml [options]");
  std::string scenario, out_dir;
  std::vector<std::string> sets;
  std::string threads;
  bool quiet = false;
  opts.add_options()("help,h", "show this help")(
      "quiet,q", po::bool_switch(&quiet), "no progress line (it only shows on a terminal anyway)")(
      "set", po::value(&sets)->composing(), "override a scenario key: --set simulation.seed=7")(
      "threads", po::value(&threads), "worker threads (overrides simulation.threads)")(
      "out", po::value(&out_dir),
      "write flows.csv, ports.csv and results.json (collectives: busbw.csv; training: trace.json, "
      "ops.csv) "
      "into this folder");
  if (const auto done =
          parse_scenario_args(args, opts, scenario, "fabricsim run scenarios/quickstart.yaml"))
    return *done;
  // Checked as the scenario key is: 0, -1 or "two" get its message.
  if (!threads.empty()) sets.push_back("simulation.threads=" + threads);
  const Scenario sc = load_scenario(scenario, sets);
  if (!out_dir.empty()) check_writable_dir(out_dir);
  spdlog::info("loaded {}", sc.path);
  // On stdout with the summary, so that sweep workers (which run such files) keep stderr for
  // real problems.
  if (sc.has_sweep) {
    std::printf(
        "note: run ignores the sweep: section and runs the base values; "
        "'fabricsim sweep %s' runs every point\n",
        scenario.c_str());
  }
  const core::Ranks& ranks = core::Ranks::world();
  if (sc.phold) {
    core::PholdParams p = *sc.phold;
    p.trace_hash = true;
    p.ranks = &ranks;
    if (progress_wanted(quiet)) p.progress = show_progress;
    const core::PholdResult r = core::run_phold(p);
    clear_progress();
    print_phold(p, r);
    return 0;
  }
  const NetScenario& ns = *sc.net;
  if (ns.training) return print_training(sc, out_dir, quiet);
  if (ns.collectives) {
    return print_busbw(sc, out_dir.empty() ? "" : out_dir + "/busbw.csv",
                       out_dir.empty() ? "" : out_dir + "/results.json", quiet);
  }
  std::printf("%s", describe(sc).c_str());
  net::Network network(ns.topology, ns.network, ns.flows);
  net::RunOptions run = ns.run;
  if (progress_wanted(quiet)) run.progress = show_progress;
  const net::NetworkResult r = network.run(run);
  clear_progress();
  std::printf("%s", network_summary(ns.topology, ns.flows, r).c_str());
  if (!out_dir.empty()) {
    write_atomically(out_dir, "flows.csv", flows_csv(ns.topology, ns.flows, r));
    // With an incast mix, every port also counts the background's and the incasts' bytes.
    const bool mixed = std::any_of(ns.flows.begin(), ns.flows.end(),
                                   [](const net::FlowSpec& f) { return f.tag == net::kIncastTag; });
    write_atomically(
        out_dir, "ports.csv",
        mixed ? ports_csv(ns.topology, r, {"background", "incast"}) : ports_csv(ns.topology, r));
    write_atomically(out_dir, "fct_slowdown.csv", fct_slowdown_csv(ns.flows, r));
    write_atomically(out_dir, "results.json", results_json(sc, r));
    std::printf("wrote %s/{flows.csv,ports.csv,fct_slowdown.csv,results.json}\n", out_dir.c_str());
  }
  return 0;
}

}  // namespace fabricsim::tools
