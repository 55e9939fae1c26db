// fabricsim: the command line. Subcommands: run, sweep, topo, busbw, validate, info, bench.
#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>
#include <cctype>
#include <cstdio>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/ranks.hpp"
#include "net/network.hpp"
#include "tools/cli_args.hpp"
#include "tools/commands.hpp"
#include "tools/scenario.hpp"
#include "tools/units.hpp"
#include "tools/version.hpp"

namespace po = boost::program_options;
using namespace fabricsim;

namespace {

constexpr const char* kUsage =
    "fabricsim: a packet-level network simulator for LLM-training clusters\n"
    "\n"
    "usage: fabricsim [--help] [--version] [--log-level LEVEL] [--max-memory SIZE] <command> "
    "[args]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO.yaml [--set key=value ...] [--threads N]   run a scenario\n"
    "  sweep SCENARIO.yaml [-j N] [--out DIR] [--set k=v]      run its sweep: points\n"
    "  topo SCENARIO.yaml [--dot FILE]                        the cluster it builds\n"
    "  busbw SCENARIO.yaml [-b 8] [-e 128M] [--op allreduce]  nccl-tests table, simulated\n"
    "  validate [--csv FILE] [--dataset NAME] [--max-bytes N] simulated vs measured busbw\n"
    "  info [KEY-OR-SECTION] [--markdown]                    the scenario keys: type, default\n"
    "  bench phold [--nodes N] [--threads T] [--end TIME] ...  kernel benchmark\n"
    "  bench fattree [--hosts N] [--cc dcqcn] [--threads T]    network benchmark\n"
    "\n"
    "'fabricsim <command> --help' shows a command's options.\n";

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // A training run on the shared fabric allocates and frees millions of small step lists while
  // its DAG holds gigabytes: glibc would hand the heap's free top back to the kernel thousands
  // of times and fault it in again (a third of the 175B case's time went to clearing pages).
  // Keep freed memory for reuse, and large vectors on the heap too.
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
#endif
  // Under mpirun, MPI for the whole process (core/ranks.hpp); otherwise nothing happens.
  const core::MpiSession mpi(&argc, &argv);
  // Every rank meets the same errors of the command line and the scenario, and holds the whole
  // run's results after it: rank 0 says and prints them (a rank failing on its own during a run
  // says so itself, core::Ranks::abort).
  try {
    core::Ranks::world().quiet_followers();
    po::options_description global("global options");
    std::string level = "warn", command, max_memory;
    global.add_options()("help,h", "show help")("version", "print the version")(
        "log-level", po::value(&level)->default_value(level),
        "trace, debug, info, warn, error, critical or off")(
        "max-memory", po::value(&max_memory),
        "refuse networks estimated to need more than this, e.g. 8GiB (default: 75% of the "
        "machine's memory)");
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
    if (!max_memory.empty()) net::set_memory_limit(tools::parse_bytes(max_memory));
    // Everything after the command goes to the command's own parser.
    std::vector<std::string> rest =
        po::collect_unrecognized(parsed.options, po::include_positional);
    rest.erase(rest.begin());  // the command itself
    // No option takes a negative value; program_options would read "-1" into an unsigned count
    // as 4294967295.
    const auto negative = [](std::string_view v) {
      return v.size() >= 2 && v[0] == '-' &&
             (std::isdigit(static_cast<unsigned char>(v[1])) || (v[1] == '.' && v.size() > 2));
    };
    for (std::size_t i = 0; i < rest.size(); ++i) {
      const std::string_view v = rest[i];
      // The value as a word of its own (--nodes -1), after '=' (--nodes=-1), or stuck to a
      // short option (-j-1).
      const std::size_t eq = v.starts_with("--") ? v.find('=') : std::string_view::npos;
      const bool alone = i > 0 && negative(v);
      const bool joined = eq != std::string_view::npos && negative(v.substr(eq + 1));
      const bool stuck = v.size() > 2 && v[0] == '-' &&
                         std::isalpha(static_cast<unsigned char>(v[1])) && negative(v.substr(2));
      if (alone || joined || stuck) {
        std::cerr << "fabricsim: " << (alone ? rest[i - 1] + " " : "") << v
                  << ": option values are never negative (see --help)\n";
        return 2;
      }
    }
    // The global parser claims --help wherever it stands; after a command it means the command's.
    if (vm.count("help")) rest.push_back("--help");
    // Over MPI ranks the kernel exchanges what crosses them and the commands gather their
    // results back; topo and info run no simulation, so each rank does the same. A sweep's
    // points are processes of their own, which the ranks would each start.
    if (core::Ranks::world().size() > 1 && command == "sweep") {
      std::cerr << "fabricsim sweep: does not run under mpirun (its points are processes of their "
                   "own); 'fabricsim sweep --emit list|slurm' writes their commands for a "
                   "scheduler, and each point may run under mpirun\n";
      return 2;
    }
    if (command == "run") return tools::cmd_run(rest);
    if (command == "bench") return tools::cmd_bench(rest);
    if (command == "sweep") return tools::cmd_sweep(rest);
    if (command == "topo") return tools::cmd_topo(rest);
    if (command == "busbw") return tools::cmd_busbw(rest);
    if (command == "validate") return tools::cmd_validate(rest);
    if (command == "info") return tools::cmd_info(rest);
    std::cerr << "fabricsim: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
  } catch (const tools::UsageError& e) {
    std::cerr << "fabricsim: " << e.what() << '\n';
    return 2;
  } catch (const tools::ScenarioError& e) {
    std::cerr << "error: " << e.what() << '\n';
  } catch (const core::CausalityError& e) {
    std::cerr << "causality error: " << e.what() << '\n';
  } catch (const po::error& e) {
    // A command line fabricsim cannot read is a usage error, as the commands' own checks say.
    std::cerr << "fabricsim: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
  }
  return 1;
}
