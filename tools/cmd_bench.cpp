#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <chrono>
#include "tools/commands.hpp"

#include "core/phold.hpp"
#include "core/ranks.hpp"
#include "net/flows.hpp"
#include "net/topology/build.hpp"
#include "tools/memory.hpp"
#include "tools/net_report.hpp"
#include "tools/queue_bench.hpp"
#include "tools/scenario.hpp"
#include "tools/units.hpp"

namespace po = boost::program_options;

namespace fabricsim::tools {

namespace {

// The network benchmark of issue 3: a 2-tier fat tree, 16 hosts per leaf and as many uplinks
// (non-blocking), every NIC in one random permutation.
int bench_fattree(const std::vector<std::string>& args) {
  po::options_description opts("fabricsim bench fattree [options]");
  std::uint32_t hosts = 128, gbps = 100, mib = 64, lps = 0, threads = 1;
  std::uint64_t seed = 1;
  std::string cc = "dcqcn", delay = "1us";
  opts.add_options()("help,h", "show this help")("hosts", po::value(&hosts)->default_value(hosts),
                                                 "hosts (a multiple of 16)")(
      "gbps", po::value(&gbps)->default_value(gbps), "NIC and fabric link rate, Gb/s")(
      "delay", po::value(&delay)->default_value(delay), "link propagation delay")(
      "mib", po::value(&mib)->default_value(mib), "flow size, MiB")(
      "cc", po::value(&cc)->default_value(cc), "none, dcqcn, hpcc, dctcp or timely")(
      "threads", po::value(&threads)->default_value(threads), "worker threads")(
      "lps", po::value(&lps)->default_value(0), "logical processes (0: all groups)")(
      "seed", po::value(&seed)->default_value(seed), "permutation and simulation seed");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (hosts == 0 || hosts % 16 != 0) {
    std::cerr << "fabricsim bench fattree: --hosts must be a positive multiple of 16\n";
    return 2;
  }
  net::FatTreeParams ft;
  ft.leaves = hosts / 16;
  ft.hosts_per_leaf = 16;
  ft.host.gpus = 0;
  ft.nic = {gbps * net::kGbps, parse_time(delay)};
  ft.uplink = ft.nic;
  const net::Topology topo = net::fat_tree(ft);
  net::NetworkConfig cfg;
  cfg.cc.kind = net::cc::parse_kind(cc);
  const auto flows = net::permutation(hosts, std::uint64_t(mib) << 20, 0, seed);
  const auto t0 = std::chrono::steady_clock::now();
  net::Network network(topo, cfg, flows);
  const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  net::RunOptions run{lps ? lps : static_cast<std::uint32_t>(topo.nodes.size()), threads, seed};
  run.ranks = &core::Ranks::world();  // under mpirun: this rank's block of the LPs
  const net::NetworkResult r = network.run(run);
  std::printf("fat tree: %u hosts, %u leaves, %u Gb/s, permutation of %u MiB flows, cc %s\n", hosts,
              ft.leaves, gbps, mib, cc.c_str());
  std::printf("set-up            %.3f s\n", setup);
  std::printf("%s", network_summary(topo, flows, r).c_str());
  std::printf("peak memory       %.1f MiB\n", double(peak_rss_bytes()) / (1 << 20));
  return 0;
}

}  // namespace

int cmd_bench(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "fattree") {
    return bench_fattree(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  po::options_description opts("fabricsim bench phold|fattree [options]");
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
      "seed", po::value(&p.seed)->default_value(p.seed), "random seed")(
      "trace-hash", po::bool_switch(&p.trace_hash),
      "print a hash of every node's sequence of events (the same for any threads, LPs and MPI "
      "ranks)");
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
    std::cerr << "fabricsim bench: unknown benchmark '" << what
              << "' (available: phold, fattree)\n";
    return 2;
  }
  p.end = tools::parse_time(end);
  p.lookahead = tools::parse_time(lookahead);
  p.mean_delay = tools::parse_time(mean);
  if (p.threads == 0) p.threads = 1;
  if (p.lps == 0) p.lps = std::min<std::uint32_t>(p.nodes, 16 * p.threads);
  // The limits of the scenario keys phold.nodes and phold.events_per_node.
  std::string problem;
  if (p.nodes < 1 || p.nodes > 16777216) {
    problem = "--nodes must be between 1 and 16777216";
  } else if (p.events_per_node < 1 || p.events_per_node > 65536) {
    problem = "--events-per-node must be between 1 and 65536";
  } else if (p.lps > p.nodes) {
    problem = fmt::format("--lps {} exceeds the {} nodes", p.lps, p.nodes);
  } else if (p.lookahead <= 0) {
    problem = "--lookahead must be positive (it is the kernel's lookahead)";
  } else {
    const PholdMemory m = phold_memory(p);
    if (m.events + m.pairs > net::memory_limit()) {
      problem =
          phold_memory_problem(p, m.pairs > m.events ? "--lps" : "--nodes or --events-per-node");
    }
  }
  if (!problem.empty()) {
    std::cerr << "fabricsim bench phold: " << problem << '\n';
    return 2;
  }
  // Under mpirun every rank runs its block of the LPs; rank 0 prints the job's figures.
  p.ranks = &core::Ranks::world();
  const core::PholdResult r = core::run_phold(p);
  if (p.ranks->rank() != 0) return 0;
  print_phold(p, r);
  // Where the time goes: process (event list + handlers), mailbox merge and barrier wait are
  // measured per thread (above). Next to them, what the bare event list manages alone at the
  // mean queue size per LP: the ceiling for any model on this machine.
  const std::size_t per_lp = std::size_t(p.nodes) * p.events_per_node / p.lps;
  const auto q = bench_event_queue(per_lp, 2'000'000);
  std::printf(
      "bare event list   %.3g holds/s at %zu events (%.1f ns/hold); this run %.1f ns per "
      "event per thread\n",
      q.holds_per_second, per_lp, q.ns_per_hold,
      1e9 * (r.stats.process_s + r.stats.merge_s + r.stats.wait_s) /
          double(std::max<std::uint64_t>(1, r.stats.events)));
  return 0;
}

}  // namespace fabricsim::tools
