// fabricsim topo: what a scenario's cluster looks like, without running it.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "net/topology/graphviz.hpp"
#include "net/topology/partition.hpp"
#include "net/topology/routing.hpp"
#include "tools/cli_args.hpp"
#include "tools/commands.hpp"
#include "tools/net_report.hpp"
#include "tools/scenario.hpp"

namespace po = boost::program_options;

namespace fabricsim::tools {

int cmd_topo(const std::vector<std::string>& args) {
  po::options_description opts("fabricsim topo SCENARIO.yaml [options]");
  std::string scenario, dot;
  std::vector<std::string> sets;
  opts.add_options()("help,h", "show this help")("set", po::value(&sets)->composing(),
                                                 "override a scenario key")(
      "dot", po::value(&dot), "write the topology as a Graphviz file");
  if (const auto done = parse_scenario_args(args, opts, scenario,
                                            "fabricsim topo scenarios/examples/incast_hpcc.yaml"))
    return *done;
  const Scenario sc = load_scenario(scenario, sets);
  if (!sc.net) {
    std::cerr << "fabricsim topo: " << scenario << " has no cluster (a PHOLD scenario)\n";
    return 2;
  }
  const net::Topology& t = sc.net->topology;
  std::size_t ports = 0, switches = 0, gpus = 0;
  std::map<std::string, std::size_t> rates;  // "100Gbps 1us" -> links
  for (const net::Node& n : t.nodes) {
    ports += n.ports.size();
    switches += n.kind == net::NodeKind::kSwitch;
  }
  for (const net::Host& h : t.hosts) gpus += h.gpus;
  for (const net::Link& l : t.links) {
    ++rates[net::format_rate(l.rate) + " " + core::format_time(l.delay)];
  }
  const net::Routes routes = net::Routes::build(t);
  const std::uint32_t lps = sc.net->run.lps;
  const auto lp_of = net::partition(t, lps);
  std::uint32_t used = 0;
  for (core::LpId lp : lp_of) used = std::max(used, lp + 1);
  std::printf("topology          %s\n", t.kind.c_str());
  std::printf("hosts             %zu (%zu GPUs)\n", static_cast<std::size_t>(t.gpu_hosts()), gpus);
  if (t.aggregators > 0) std::printf("SHARP aggregators %u\n", t.aggregators);
  std::printf("nodes             %zu: %zu NICs, %zu switches\n", t.nodes.size(), t.nics.size(),
              switches);
  std::printf("links             %zu (%zu ports)\n", t.links.size(), ports);
  for (const auto& [what, count] : rates) std::printf("  %-16s%zu links\n", what.c_str(), count);
  std::printf("routing tables    %.1f KiB\n", double(routes.memory_bytes()) / 1024);
  std::printf("partition         %u LPs (of %u possible), lookahead %s\n", used,
              net::partition_groups(t), core::format_time(net::min_cross_delay(t, lp_of)).c_str());
  if (!dot.empty()) {
    const auto slash = dot.find_last_of('/');
    write_atomically(slash == std::string::npos ? "." : dot.substr(0, slash),
                     slash == std::string::npos ? dot : dot.substr(slash + 1), net::to_dot(t));
    std::printf("wrote %s\n", dot.c_str());
  }
  return 0;
}

}  // namespace fabricsim::tools
