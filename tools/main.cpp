// fabricsim: the command line. Subcommands: run, bench.
#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/phold.hpp"
#include "tools/queue_bench.hpp"
#include "tools/scenario.hpp"
#include "tools/units.hpp"
#include "tools/version.hpp"

namespace po = boost::program_options;
using namespace fabricsim;

namespace {

constexpr const char* kUsage =
    "fabricsim: a packet-level network simulator for LLM-training clusters\n"
    "\n"
    "usage: fabricsim [--help] [--version] [--log-level LEVEL] <command> [args]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO.yaml [--set key=value ...] [--threads N]   run a scenario\n"
    "  bench phold [--nodes N] [--threads T] [--end TIME] ...  kernel benchmark\n"
    "\n"
    "'fabricsim <command> --help' shows a command's options.\n";

void print_phold(const core::PholdParams& p, const core::PholdResult& r) {
  std::printf("PHOLD: %u nodes, %u initial events per node, lookahead %s, mean extra delay %s\n",
              p.nodes, p.events_per_node, core::format_time(p.lookahead).c_str(),
              core::format_time(p.mean_delay).c_str());
  std::printf("%s", r.stats.summary().c_str());
  std::printf("trace hash        %016llx\n", static_cast<unsigned long long>(r.trace_hash));
}

int cmd_run(const std::vector<std::string>& args) {
  po::options_description opts("fabricsim run SCENARIO.yaml [options]");
  std::string scenario;
  std::vector<std::string> sets;
  unsigned threads = 0;
  opts.add_options()("help,h", "show this help")(
      "set", po::value(&sets)->composing(), "override a scenario key: --set simulation.seed=7")(
      "threads", po::value(&threads), "worker threads (overrides simulation.threads)");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value(&scenario));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (scenario.empty()) {
    std::cerr << "fabricsim run: which scenario? e.g. fabricsim run scenarios/quickstart.yaml\n";
    return 2;
  }
  if (threads) sets.push_back("simulation.threads=" + std::to_string(threads));
  const tools::Scenario sc = tools::load_scenario(scenario, sets);
  spdlog::info("loaded {}", sc.path);
  core::PholdParams p = *sc.phold;
  p.trace_hash = true;
  print_phold(p, core::run_phold(p));
  return 0;
}

int cmd_bench(const std::vector<std::string>& args) {
  po::options_description opts("fabricsim bench phold [options]");
  std::string what, end = "100us", lookahead = "1us", mean = "1us";
  core::PholdParams p;
  opts.add_options()("help,h", "show this help")(
      "nodes", po::value(&p.nodes)->default_value(p.nodes), "PHOLD nodes")(
      "events-per-node", po::value(&p.events_per_node)->default_value(p.events_per_node),
      "initial events per node")("threads", po::value(&p.threads)->default_value(1),
                                 "worker threads")("lps", po::value(&p.lps)->default_value(0),
                                                   "logical processes (0: 16 per thread)")(
      "end", po::value(&end)->default_value(end), "simulated end time")(
      "lookahead", po::value(&lookahead)->default_value(lookahead), "fixed delay = lookahead")(
      "mean-delay", po::value(&mean)->default_value(mean), "mean exponential extra delay")(
      "seed", po::value(&p.seed)->default_value(p.seed), "random seed");
  po::options_description hidden;
  hidden.add_options()("what", po::value(&what));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("what", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help") || what.empty()) {
    std::cout << opts;
    return what.empty() && !vm.count("help") ? 2 : 0;
  }
  if (what != "phold") {
    std::cerr << "fabricsim bench: unknown benchmark '" << what << "' (available: phold)\n";
    return 2;
  }
  p.end = tools::parse_time(end);
  p.lookahead = tools::parse_time(lookahead);
  p.mean_delay = tools::parse_time(mean);
  if (p.threads == 0) p.threads = 1;
  if (p.lps == 0) p.lps = std::min<std::uint32_t>(p.nodes, 16 * p.threads);
  const core::PholdResult r = core::run_phold(p);
  print_phold(p, r);
  // Where the time goes: the event list's share estimated from the bare hold benchmark at the
  // mean queue size per LP; the mailbox merge and barrier shares are measured.
  const std::size_t per_lp = std::size_t(p.nodes) * p.events_per_node / p.lps;
  const auto q = tools::bench_event_queue(per_lp, 2'000'000);
  const double total = r.stats.process_s + r.stats.merge_s + r.stats.wait_s;
  const double heap_s = double(r.stats.events) * q.ns_per_hold * 1e-9;
  std::printf("bare event list   %.3g holds/s at %zu events (%.1f ns/hold)\n", q.holds_per_second,
              per_lp, q.ns_per_hold);
  if (total > 0) {
    std::printf(
        "time breakdown    event list ~%.1f%%  model ~%.1f%%  mailbox merge %.1f%%  "
        "barrier %.1f%%\n",
        100 * heap_s / total, 100 * std::max(0.0, r.stats.process_s - heap_s) / total,
        100 * r.stats.merge_s / total, 100 * r.stats.wait_s / total);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    po::options_description global("global options");
    std::string level = "warn", command;
    global.add_options()("help,h", "show help")("version", "print the version")(
        "log-level", po::value(&level)->default_value(level),
        "trace, debug, info, warn, error, critical or off");
    po::options_description hidden;
    hidden.add_options()("command", po::value(&command))("args",
                                                         po::value<std::vector<std::string>>());
    po::options_description all;
    all.add(global).add(hidden);
    po::positional_options_description pos;
    pos.add("command", 1).add("args", -1);
    po::variables_map vm;
    po::parsed_options parsed =
        po::command_line_parser(argc, argv).options(all).positional(pos).allow_unregistered().run();
    po::store(parsed, vm);
    po::notify(vm);
    if (vm.count("version")) {
      std::printf("fabricsim %s\n", tools::kVersion);
      return 0;
    }
    if (command.empty()) {
      std::cout << kUsage << '\n' << global;
      return vm.count("help") ? 0 : 2;
    }
    const auto lvl = spdlog::level::from_str(level);
    if (lvl == spdlog::level::off && level != "off") {
      std::cerr << "fabricsim: unknown --log-level '" << level << "'\n";
      return 2;
    }
    spdlog::set_level(lvl);
    // Everything after the command goes to the command's own parser.
    std::vector<std::string> rest =
        po::collect_unrecognized(parsed.options, po::include_positional);
    rest.erase(rest.begin());  // the command itself
    if (command == "run") return cmd_run(rest);
    if (command == "bench") return cmd_bench(rest);
    std::cerr << "fabricsim: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
  } catch (const tools::ScenarioError& e) {
    std::cerr << "error: " << e.what() << '\n';
  } catch (const core::CausalityError& e) {
    std::cerr << "causality error: " << e.what() << '\n';
  } catch (const po::error& e) {
    std::cerr << "fabricsim: " << e.what() << " (see --help)\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
  }
  return 1;
}
