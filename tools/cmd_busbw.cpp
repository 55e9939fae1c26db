// `fabricsim busbw`: nccl-tests' table for the scenario's cluster; flags named as nccl-tests'
// become --set overrides of the `collectives` section, so they are checked the same way.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/call.hpp"
#include "core/parallel.hpp"
#include "core/ranks.hpp"
#include "tools/busbw.hpp"
#include "tools/cli_args.hpp"
#include "tools/commands.hpp"
#include "tools/nccl_tests_log.hpp"
#include "tools/net_report.hpp"
#include "tools/progress.hpp"
#include "tools/results_json.hpp"

namespace po = boost::program_options;

namespace fabricsim::tools {

int print_busbw(const Scenario& sc, const std::string& csv, const std::string& json, bool quiet,
                const std::string& nccl_json, const std::vector<std::string>& args, unsigned jobs) {
  const NetScenario& ns = *sc.net;
  const CollectiveSection& c = *ns.collectives;
  std::printf("%s", describe(sc).c_str());
  const int ranks = collective_ranks(ns);
  const std::vector<std::uint64_t> sizes = busbw_sizes(c, ranks);
  if (sizes.empty()) {
    std::fprintf(stderr, "error: no size between min_bytes and max_bytes holds one %s per rank\n",
                 c.dtype.c_str());
    return 2;
  }
  std::printf("%s", busbw_header(ns).c_str());
  std::fflush(stdout);
  net::RunOptions run = ns.run;
  const auto begun = std::chrono::steady_clock::now();
  std::vector<BusbwRow> rows(sizes.size());
  std::string table = busbw_csv_header();
  const auto print_row = [&](std::size_t i) {
    clear_progress();
    std::printf("%s", busbw_line(c, rows[i]).c_str());
    std::fflush(stdout);
    table += busbw_csv_line(c, rows[i]);
  };
  if (jobs <= 1 || sizes.size() <= 1) {
    if (progress_wanted(quiet)) run.progress = show_progress;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      rows[i] = run_busbw(ns, sizes[i], run);
      print_row(i);
    }
  } else {
    // Each size is a run of its own: `jobs` at a time, the largest first, printed in order as
    // soon as every smaller one is (the table is the serial run's); no progress line. A size
    // that fails ends the table there, as it does run one by one.
    std::vector<std::exception_ptr> failed(sizes.size());
    std::vector<std::size_t> largest_first(sizes.size());
    for (std::size_t k = 0; k < sizes.size(); ++k) largest_first[k] = sizes.size() - 1 - k;
    bool stopped = false;
    core::parallel_in_order(
        jobs, sizes.size(),
        [&](std::size_t i) {
          try {
            rows[i] = run_busbw(ns, sizes[i], run);
          } catch (...) {
            failed[i] = std::current_exception();
          }
        },
        [&](std::size_t i) {
          stopped = stopped || failed[i];
          if (!stopped) print_row(i);
        },
        largest_first);
    for (const std::exception_ptr& e : failed) {
      if (e) std::rethrow_exception(e);
    }
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count();
  // What ran side by side: parallel_for runs no more than the machine's threads.
  const unsigned at_once = static_cast<unsigned>(
      std::min<std::size_t>({std::max(1u, jobs), sizes.size(), core::machine_threads()}));
  std::printf("%s", busbw_footer(rows, at_once, elapsed).c_str());
  if (!csv.empty()) {
    write_file_atomically(csv, table);
    std::printf("wrote %s\n", csv.c_str());
  }
  if (!json.empty()) {
    write_file_atomically(json, results_json(sc, rows));
    std::printf("wrote %s\n", json.c_str());
  }
  if (!nccl_json.empty()) {
    write_file_atomically(nccl_json, nccl_tests_json(ns, rows, args));
    std::printf("wrote %s\n", nccl_json.c_str());
  }
  return 0;
}

int cmd_busbw(const std::vector<std::string>& args) {
  po::options_description opts("fabricsim busbw SCENARIO.yaml [options]");
  std::string scenario, csv, op, collective, redop, algo, proto, dtype, min_bytes, max_bytes,
      step_bytes, nccl_json, root;
  std::string ngpus, ignored;
  std::vector<std::string> sets;
  constexpr unsigned kNoFactor = ~0u;
  unsigned factor = kNoFactor, channels = 0, jobs = 1;
  std::string threads;
  bool quiet = false;
  opts.add_options()("help,h", "show this help")(
      "collective", po::value(&collective),
      "the collective: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, "
      "sendrecv (nccl-tests' binary names; an _perf suffix and fabricsim's allreduce, ... "
      "are fine)")(
      "op,o", po::value(&op),
      "reduction operator sum|prod|min|max|avg (nccl-tests -o; labels the table, reduction "
      "compute is not modelled; avg keeps NCCL's PAT off reduce-scatter); a collective name "
      "here selects the collective, as --collective")(
      "iters,n", po::value(&ignored),
      "accepted for nccl-tests' command lines, no effect: a simulated size runs once, "
      "deterministically")("warmup_iters,w", po::value(&ignored), "accepted, no effect (as -n)")(
      "check,c", po::value(&ignored), "accepted, no effect: no data is checked (#wrong N/A)")(
      "average,a", po::value(&ignored), "accepted, no effect: one process")(
      "blocking,z", po::value(&ignored), "accepted, no effect")(
      "ngpus,g", po::value(&ngpus),
      "GPUs one thread drives (nccl-tests -g; collectives.gpus_per_thread): their launches "
      "take turns, a floor on each size's time. The GPUs themselves come from the scenario's "
      "cluster (cluster.hosts, cluster.host.gpus)")(
      "nthreads,t", po::value(&ignored),
      "accepted, no effect: threads launch their GPUs' calls side by side")(
      "minbytes,b", po::value(&min_bytes), "smallest size, e.g. 8 or 1MiB (nccl-tests -b)")(
      "maxbytes,e", po::value(&max_bytes), "largest size (nccl-tests -e)")(
      "stepfactor,f", po::value(&factor),
      "multiply the size by this (nccl-tests -f; 1: add the -i step)")(
      "stepbytes,i", po::value(&step_bytes),
      "add this to the size instead, a linear sweep (nccl-tests -i; plain numbers are bytes)")(
      "output_file,J", po::value(&nccl_json),
      "also write the table as nccl-tests' -J JSON output to this file (fabricsim validate "
      "--measured reads it back)")("datatype,d", po::value(&dtype),
                                   "float, half, bfloat16, double, int8, ... (nccl-tests -d)")(
      "root,r", po::value(&root),
      "the root rank of broadcast and reduce (nccl-tests -r; default 0); the other collectives "
      "have none")("algo", po::value(&algo),
                   "auto|ring|tree|nvls|nvlstree|collnetchain|collnetdirect|pat|p2p (NCCL_ALGO)")(
      "proto", po::value(&proto), "auto|ll|ll128|simple (NCCL_PROTO)")(
      "channels", po::value(&channels), "channels per collective (0: tuning model)")(
      "set", po::value(&sets)->composing(), "override a scenario key: --set network.cc=hpcc")(
      "threads", po::value(&threads), "worker threads (overrides simulation.threads)")(
      "jobs", po::value(&jobs),
      "sizes simulated at once, each a run of its own with the scenario's threads (default 1); "
      "the table is the same for any number")("csv", po::value(&csv),
                                              "also write the table as CSV to this file")(
      "quiet,q", po::bool_switch(&quiet), "no progress line");
  if (const auto done = parse_scenario_args(args, opts, scenario,
                                            "fabricsim busbw scenarios/quickstart.yaml -b 1MiB "
                                            "-e 64MiB --op allgather"))
    return *done;
  const auto with_unit = [](const std::string& v) {
    // nccl-tests (parsesize in src/common.cu) takes plain numbers as bytes and reads a K, M or G
    // in either case as a power of 1024, whatever follows it ("8GB" is 8 GiB there); "MiB" and
    // the other units of fabricsim's sizes keep their meaning.
    const std::size_t digits = v.find_first_not_of("0123456789");
    if (!v.empty() && digits == std::string::npos) return v + "B";
    if (digits == 0 || digits == std::string::npos) return v;
    const std::string suffix = v.substr(digits);
    const bool binary = std::string_view("kKmMgG").find(suffix[0]) != std::string_view::npos &&
                        (suffix.size() == 1 || suffix.substr(1) == "B" || suffix.substr(1) == "b");
    if (!binary) return v;
    return v.substr(0, digits) +
           static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0]))) + "iB";
  };
  // Range-checked as the scenario key (it must divide each host's GPUs).
  if (!ngpus.empty()) sets.push_back("collectives.gpus_per_thread=" + ngpus);
  static const char* const kRedops[] = {"sum", "prod", "min", "max", "avg"};
  if (std::find(std::begin(kRedops), std::end(kRedops), op) != std::end(kRedops)) {
    redop = op;
  } else if (!op.empty()) {
    // Not a reduction operator: a collective, as --op has always taken.
    if (!collective.empty()) {
      std::fprintf(stderr, "error: --op %s and --collective %s: name the collective once\n",
                   op.c_str(), collective.c_str());
      return 2;
    }
    collective = op;
  }
  const std::string flag = op.empty() || op == redop ? "--collective" : "--op";
  if (!collective.empty()) {
    const std::string name = fabricsim_collective(collective);
    if (!is_collective(name)) {
      std::fprintf(stderr,
                   "error: %s %s: expected a collective (all_reduce, all_gather, reduce_scatter, "
                   "broadcast, reduce, alltoall, sendrecv)%s\n",
                   flag.c_str(), collective.c_str(),
                   flag == "--op" ? " or a reduction operator (sum, prod, min, max, avg)" : "");
      return 2;
    }
    sets.push_back("collectives.op=" + name);
  }
  if (!redop.empty()) sets.push_back("collectives.redop=" + redop);
  if (!min_bytes.empty()) sets.push_back("collectives.min_bytes=" + with_unit(min_bytes));
  if (!max_bytes.empty()) sets.push_back("collectives.max_bytes=" + with_unit(max_bytes));
  // As nccl-tests: -f > 1 multiplies, -f 1 adds -i (1 MiB unless given).
  if (factor == 0) {
    std::fprintf(stderr, "error: -f 0: the step factor is 1 (add -i) or more (multiply)\n");
    return 2;
  }
  if (factor != kNoFactor && factor > 1 && !step_bytes.empty()) {
    std::fprintf(stderr,
                 "error: -f and -i: a sweep multiplies (-f > 1) or adds (-f 1 -i); give one\n");
    return 2;
  }
  if (factor != kNoFactor) sets.push_back("collectives.step_factor=" + std::to_string(factor));
  if (!step_bytes.empty()) {
    sets.push_back("collectives.step_factor=1");
    sets.push_back("collectives.step_bytes=" + with_unit(step_bytes));
  }
  if (!dtype.empty()) sets.push_back("collectives.dtype=" + dtype);
  // Range-checked as the scenario key (0 to ranks - 1).
  if (!root.empty()) sets.push_back("collectives.root=" + root);
  if (!algo.empty()) sets.push_back("collectives.algo=" + algo);
  if (!proto.empty()) sets.push_back("collectives.proto=" + proto);
  if (channels) sets.push_back("collectives.channels=" + std::to_string(channels));
  // Checked as the scenario key is: 0, -1 or "two" get its message.
  if (!threads.empty()) sets.push_back("simulation.threads=" + threads);
  // A flows or training scenario: the flags above would add a second kind of run to it, and
  // its loading would say so in words that leave busbw out.
  try {
    const Scenario own = load_scenario(scenario, {});
    if (own.net && !own.net->collectives) {
      std::fprintf(stderr,
                   "error: %s runs %s, not collectives: busbw times collectives on a scenario's "
                   "cluster; give it one with the same cluster: and a collectives: section (e.g. "
                   "'collectives: {op: allreduce}')\n",
                   scenario.c_str(), own.net->training ? "training" : "flows");
      return 1;  // a scenario refused, as validate --scenario refuses it
    }
  } catch (const ScenarioError&) {
    // Left to the load below, which names the problem with the flags applied.
  }
  const Scenario sc = load_scenario(scenario, sets);
  if (!sc.net || !sc.net->collectives) {
    std::fprintf(stderr,
                 "error: %s has no collectives: section; add e.g. 'collectives: {op: "
                 "allreduce}' (and cluster.host.gpu)\n",
                 scenario.c_str());
    return 1;
  }
  if (jobs == 0) {
    std::fprintf(stderr, "error: --jobs 0: run at least one size at once\n");
    return 2;
  }
  if (jobs > 1 && core::Ranks::world().size() > 1) {
    std::fprintf(stderr,
                 "error: --jobs %u runs sizes side by side in one process; under mpirun every "
                 "size spans the ranks: leave --jobs at 1\n",
                 jobs);
    return 2;
  }
  for (const std::string& out : {csv, nccl_json}) {
    if (out.empty()) continue;
    const std::filesystem::path parent = std::filesystem::path(out).parent_path();
    check_writable_dir(parent.empty() ? "." : parent.string());
  }
  return print_busbw(sc, csv, "", quiet, nccl_json, args, jobs);
}

}  // namespace fabricsim::tools
