#include "tools/scenario.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>

#include "core/error.hpp"
#include "core/input_file.hpp"
#include "core/mailbox.hpp"
#include "core/phold.hpp"
#include "core/ranks.hpp"
#include "net/flows.hpp"
#include "net/memory.hpp"
#include "tools/scenario_parts.hpp"
#include "tools/units.hpp"

namespace fabricsim::tools {
namespace {

// A copy without positions: a value from --set is not at any line of the file, and errors
// about it must quote the --set instead (see Section::location). YAML aliases make a value a
// graph: a cyclic one never ends and a nested "billion laughs" one expands exponentially, so the
// copy stops at a depth and a node budget far beyond any real value.
constexpr int kMaxValueDepth = 64;
constexpr std::size_t kMaxValueNodes = 100'000;

YAML::Node unmarked(const YAML::Node& n, int depth, std::size_t& nodes) {
  if (depth > kMaxValueDepth || ++nodes > kMaxValueNodes) {
    throw std::length_error(fmt::format(
        "the value nests deeper than {} levels or expands to more than {} items (a cyclic or "
        "repeated YAML alias?)",
        kMaxValueDepth, kMaxValueNodes));
  }
  switch (n.Type()) {
    case YAML::NodeType::Scalar:
      return YAML::Node(n.Scalar());
    case YAML::NodeType::Sequence: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (const YAML::Node& item : n) out.push_back(unmarked(item, depth + 1, nodes));
      return out;
    }
    case YAML::NodeType::Map: {
      YAML::Node out(YAML::NodeType::Map);
      for (const auto& kv : n) out[kv.first.Scalar()] = unmarked(kv.second, depth + 1, nodes);
      return out;
    }
    default:
      return YAML::Node(YAML::NodeType::Null);
  }
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() < 9 && std::all_of(s.begin(), s.end(), ::isdigit);
}

void apply_override(YAML::Node& root, const std::string& assignment, ParseContext& ctx) {
  const auto bad = [&](const std::string& why) {
    return ScenarioError(fmt::format("{}: --set {}: {}", ctx.file, assignment, why));
  };
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw bad("expected key.path=value");
  // An empty value would read as null: a section set so falls back to every default unsaid.
  if (assignment.find_first_not_of(" \t", eq + 1) == std::string::npos) {
    throw bad("no value after '=' (to drop a key, edit the file)");
  }
  const std::string path = assignment.substr(0, eq);
  YAML::Node value;
  try {
    std::size_t nodes = 0;
    value = unmarked(YAML::Load(assignment.substr(eq + 1)), 0, nodes);
  } catch (const YAML::Exception& e) {
    throw bad(e.msg);
  } catch (const std::length_error& e) {
    throw bad(e.what());
  }
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string part; std::getline(ss, part, '.');) {
    if (part.empty()) throw bad("empty key in path");
    parts.push_back(part);
  }
  if (path.back() == '.') throw bad("empty key in path");
  // yaml-cpp nodes are handles: walking with operator[] on a copy descends in place. List items
  // are addressed by index ("workload.flows.list.0.size") and named as in messages ("list[0]").
  std::vector<YAML::Node> chain{root};
  std::string shown;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    YAML::Node& at = chain.back();
    const bool last = i + 1 == parts.size();
    if (at.IsSequence()) {
      if (!is_index(parts[i]) || std::stoul(parts[i]) >= at.size()) {
        throw bad(fmt::format("'{}' is a list of {}: address an item by index, e.g. {}.0", shown,
                              at.size(), shown));
      }
      const std::size_t idx = std::stoul(parts[i]);
      shown += "[" + parts[i] + "]";
      if (last) {
        at[idx] = value;
      } else {
        chain.push_back(at[idx]);
      }
      continue;
    }
    if (at.IsDefined() && !at.IsNull() && !at.IsMap()) {
      throw bad(fmt::format("'{}' is a single value, not a section", shown));
    }
    shown += (shown.empty() ? "" : ".") + parts[i];
    if (last) {
      at[parts[i]] = value;
    } else {
      chain.push_back(at[parts[i]]);
    }
  }
  ctx.overrides.emplace_back(shown, assignment);
}

// Whole transfers pay NCCL's modelled latency of a call; a fixed per-step latency (SimAI's) has
// no steps to go on.
void refuse_fixed_latency(const SimulationSection& sim, const workload::ExecParams& exec,
                          const Section& section) {
  if (sim.whole_transfers && exec.fixed_step_latency >= 0) {
    section.fail_key("step_latency",
                     "is a latency per step, and simulation.flow_transfers: whole has no steps "
                     "(each call pays NCCL's modelled latency once)");
  }
}

SimulationSection read_simulation(const Section& sim, core::Time default_end) {
  sim.only({"seed", "end", "threads", "lps", "fidelity", "flow_transfers"});
  SimulationSection s;
  s.seed = sim.uint("seed");
  // `inf`: until the traffic ends (how results.json echoes that default).
  s.end =
      sim.has("end") && sim.text("end") == "inf" ? core::kTimeMax : sim.time("end", default_end);
  s.threads = static_cast<unsigned>(sim.uint("threads"));
  s.lps = static_cast<std::uint32_t>(sim.uint("lps"));
  const std::string fidelity = sim.choice("fidelity");
  s.analytical = fidelity == "analytical";
  s.flow = fidelity == "flow";
  s.whole_transfers = sim.choice("flow_transfers") == "whole";
  if (s.whole_transfers && !s.flow) {
    sim.fail_key("flow_transfers",
                 "is whole, which applies at the flow level only (simulation.fidelity: flow)");
  }
  return s;
}

}  // namespace

PholdMemory phold_memory(const core::PholdParams& p) {
  // The events in flight (in its LP's event queue each has its slot, a 24-byte heap key and a
  // free-slot index, in vectors that may hold twice what they use: core/event_queue.hpp), per
  // node its counters and RNG, and per pair of LPs a mailbox, a link flag and an outbox index
  // (every LP may send to every other). A million nodes x 64 events: estimated 6.0 GB, measured
  // 6.3 GB peak.
  using Event = core::Event<core::Phold::Payload>;
  const std::uint64_t events = std::uint64_t{p.nodes} * p.events_per_node;
  const std::uint64_t pairs = std::uint64_t{p.lps} * p.lps;
  return {events * (sizeof(Event) + 2 * (24 + sizeof(std::uint32_t))) + std::uint64_t{p.nodes} * 64,
          pairs * (sizeof(core::Mailbox<Event>) + sizeof(char) + sizeof(std::int32_t))};
}

std::string phold_memory_problem(const core::PholdParams& p, const std::string& lower) {
  const PholdMemory m = phold_memory(p);
  return fmt::format(
      "PHOLD needs about {} ({} for {} events in flight, {} for the mailboxes of {} LP pairs), "
      "above the {} limit (--max-memory; default 75% of this machine's memory): lower {}",
      net::approx_bytes(m.events + m.pairs), net::approx_bytes(m.events),
      std::uint64_t{p.nodes} * p.events_per_node, net::approx_bytes(m.pairs),
      std::uint64_t{p.lps} * p.lps, net::approx_bytes(net::memory_limit()), lower);
}

namespace {

core::PholdParams read_phold(const Section& ph, const SimulationSection& sim, const Section& s) {
  ph.only({"nodes", "events_per_node", "lookahead", "mean_delay"});
  core::PholdParams p;
  p.nodes = static_cast<std::uint32_t>(ph.uint("nodes", p.nodes));
  p.events_per_node = static_cast<std::uint32_t>(ph.uint("events_per_node", p.events_per_node));
  p.lookahead = ph.time("lookahead", p.lookahead);
  p.mean_delay = ph.time("mean_delay", p.mean_delay);
  // Every PHOLD event sends another: without an end the run never stops.
  if (sim.end == core::kTimeMax) {
    s.fail_key("end", "must be finite for PHOLD (its events never run out)");
  }
  p.end = sim.end;
  p.seed = sim.seed;
  p.threads = sim.threads;
  p.lps = sim.lps ? sim.lps : std::min<std::uint32_t>(p.nodes, 16 * p.threads);
  if (p.lps > p.nodes) {
    s.fail_key("lps", fmt::format("lps = {} exceeds the {} PHOLD nodes", p.lps, p.nodes));
  }
  const PholdMemory m = phold_memory(p);
  if (m.events + m.pairs > net::memory_limit()) {
    const bool by_pairs = m.pairs > m.events;
    (by_pairs ? s : ph)
        .fail_key(
            by_pairs ? "lps" : "events_per_node",
            phold_memory_problem(p, by_pairs ? "simulation.lps" : "nodes or events_per_node"));
  }
  return p;
}

// Where the first two YAML documents of `text` start. Not YAML::LoadAll: yaml-cpp 0.7's never
// returns on some malformed streams (a stray ',' at the top level makes the parser report an
// empty document without consuming the token, again and again), so a file holding only ","
// hung the loader. Throws YAML::ParserException on a syntax error.
std::vector<YAML::Mark> document_starts(const std::string& text) {
  struct Starts : YAML::EventHandler {
    std::vector<YAML::Mark> marks;
    void OnDocumentStart(const YAML::Mark& mark) override { marks.push_back(mark); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
  } starts;
  std::istringstream in(text);
  YAML::Parser parser(in);
  while (starts.marks.size() < 2 && parser.HandleNextDocument(starts)) {
  }
  return starts.marks;
}

Scenario parse(const std::string& text, ParseContext& ctx,
               const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    const std::vector<YAML::Mark> docs = document_starts(text);
    if (docs.size() > 1 && docs[1].pos == docs[0].pos) {
      throw ScenarioError(fmt::format(
          "{}:{}:{}: not valid YAML: a token that belongs to no document (a stray ','?)", ctx.file,
          docs[1].line + 1, docs[1].column + 1));
    }
    if (docs.size() > 1) {
      // Anything after a second '---' would be silently ignored.
      throw ScenarioError(fmt::format(
          "{}:{}: a second YAML document; a scenario is one document (remove the '---' line or "
          "split the file)",
          ctx.file, docs[1].line + 1));
    }
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(fmt::format("{}:{}:{}: not valid YAML: {}", ctx.file, e.mark.line + 1,
                                    e.mark.column + 1, e.msg));
  }
  if (!root || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  const Section check(root, ctx, "");  // before --set walks into it
  for (const std::string& o : overrides) apply_override(root, o, ctx);

  Scenario sc;
  sc.path = ctx.file;
  const Section top(root, ctx, "");
  // `sweep` belongs to `fabricsim sweep` (tools/sweep.hpp), which reads it on its own; a single
  // run uses the base values.
  top.only({"simulation", "cluster", "network", "workload", "collectives", "training", "sweep"});
  sc.has_sweep = top.has("sweep");
  const Section wl = top.sub("workload");
  wl.only({"phold", "flows"});
  const bool coll = top.has("collectives");
  const bool train = top.has("training");
  const int kinds = int(wl.has("phold")) + int(wl.has("flows")) + int(coll) + int(train);
  if (kinds != 1) {
    top.fail(wl.present() ? wl.node() : root,
             kinds > 1 ? "has more than one of workload.phold, workload.flows, collectives and "
                         "training: pick one"
                       : "needs a workload: 'workload.phold' (kernel benchmark), "
                         "'workload.flows' (a network run), 'collectives' (a bus bandwidth "
                         "sweep) or 'training' (a training iteration)");
  }
  const bool flows = wl.has("flows") || coll || train;
  // A network run ends when its last flow does, unless the scenario cuts it short.
  sc.simulation =
      read_simulation(top.sub("simulation"), flows ? core::kTimeMax : core::kMillisecond);

  if (sc.simulation.analytical && !coll && !train) {
    top.sub("simulation")
        .fail_key("fidelity",
                  "analytical applies to collectives and training (closed forms time their "
                  "communications); flows run at packet or flow level, PHOLD has no network");
  }
  if (sc.simulation.flow && !flows) {
    top.sub("simulation").fail_key("fidelity", "flow is a network's fidelity; PHOLD has none");
  }
  if (!flows) {
    for (const char* key : {"cluster", "network"}) {
      if (top.has(key)) top.fail_key(key, "is for workload.flows; workload.phold has no network");
    }
    sc.phold = read_phold(wl.sub("phold"), sc.simulation, top.sub("simulation"));
    return sc;
  }
  if (!top.has("cluster")) {
    top.fail_key("cluster", coll    ? "is required for collectives"
                            : train ? "is required for training"
                                    : "is required for a flows workload");
  }
  NetScenario net;
  net.topology = read_cluster(top.sub("cluster"));
  net.network = read_network(top.sub("network"));
  net.network.outages = read_failed_links(top.sub("cluster"), net.topology);
  if (sc.simulation.analytical && !net.network.outages.empty()) {
    top.sub("cluster").fail_key("failed_links",
                                "needs a network run; simulation.fidelity: analytical has none");
  }
  if (sc.simulation.flow) net.network.fidelity = net::Fidelity::kFlow;
  try {
    net::check_config(net.topology, net.network);
  } catch (const std::invalid_argument& e) {
    const Section n = top.sub("network");
    n.fail_checked(top.has("network") ? n.node() : top.node(), e.what());
  }
  if ((coll || train) && net.network.nic.out_of_order) {
    top.sub("network").fail_key("out_of_order",
                                "is not supported with collectives or training yet (their "
                                "messages are not MTU-aligned)");
  }
  if (coll) {
    net.collectives = read_collectives(top.sub("collectives"), net.topology);
    net.collectives->analytical = sc.simulation.analytical;
    net.collectives->exec.whole_transfers = sc.simulation.whole_transfers;
    refuse_fixed_latency(sc.simulation, net.collectives->exec, top.sub("collectives"));
    const collectives::Op op = net.collectives->op;
    if (sc.simulation.analytical &&
        (op == collectives::Op::AllToAll || op == collectives::Op::SendRecv)) {
      top.sub("simulation")
          .fail_key("fidelity", fmt::format("analytical has no {}: NCCL's tuning model does not "
                                            "time point-to-point operations",
                                            collectives::name(op)));
    }
  } else if (train) {
    net.training = read_training(top.sub("training"), net.topology);
    net.training->exec.whole_transfers = sc.simulation.whole_transfers;
    refuse_fixed_latency(sc.simulation, net.training->exec, top.sub("training"));
    if (sc.simulation.analytical) {
      const Section t = top.sub("training");
      if (t.has("jobs")) {
        t.fail_key("jobs",
                   "share one fabric, which the analytical fidelity does not simulate: "
                   "use simulation.fidelity packet or flow");
      }
      if (t.has("network") && net.training->comm == workload::CommMode::Packet) {
        t.fail_key("network",
                   "packet runs the iteration on the network; the analytical fidelity times each "
                   "communication by a closed form instead (leave training.network out, or use "
                   "simulation.fidelity: flow)");
      }
      net.training->comm = workload::CommMode::Analytical;
    }
    if (net.training->comm == workload::CommMode::Isolated && !net.network.outages.empty()) {
      top.sub("cluster").fail_key(
          "failed_links",
          "need training.network: packet (isolated times each communication "
          "alone on a fresh network, where a failure at a time of the run has "
          "no place)");
    }
  } else {
    // The aggregation nodes are hosts with a NIC: flow patterns and NIC indices would reach them.
    if (net.topology.aggregators > 0) {
      top.sub("cluster").fail_key("sharp",
                                  "adds the switches' SHARP aggregation nodes for collectives' "
                                  "CollNet; a flows run would take them for hosts: drop it");
    }
    net.flows = read_flows(wl.sub("flows"), net.topology, sc.simulation.seed);
  }
  net.run.seed = sc.simulation.seed;
  net.run.threads = sc.simulation.threads;
  net.run.end = sc.simulation.end;
  // Eight LPs per thread leave the scheduler room to balance uneven LPs (S3 at 2 threads: 0.56 s
  // with 4 per thread, 0.49 s with 8); the partitioner clamps to what the topology can use.
  net.run.lps = sc.simulation.lps ? sc.simulation.lps : 8 * sc.simulation.threads;
  // Under mpirun every network run spans the job's ranks (main() lets through the commands that
  // gather their results; core/ranks.hpp).
  net.run.ranks = &core::Ranks::world();
  sc.net = std::move(net);
  return sc;
}

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& name,
                        const std::vector<std::string>& overrides) {
  ParseContext ctx;
  ctx.file = name;
  Scenario sc;
  try {
    sc = parse(text, ctx, overrides);
  } catch (const YAML::Exception& e) {
    // Only reached on a yaml-cpp surprise: every expected problem is reported by a Section.
    throw ScenarioError(fmt::format("{}: {}", name, e.what()));
  } catch (const core::HorizonError& e) {
    // A time computed while loading (a serialization, a pause) that no run could count: the
    // scenario's scales are the problem, whichever check met it first.
    throw ScenarioError(fmt::format("{}: {}", name, e.what()));
  }
  sc.read = ctx.resolved;
  sc.allowed = std::move(ctx.allowed);
  sc.inputs = std::move(ctx.inputs);
  if (sc.net) sc.net->resolved = std::move(ctx.resolved);
  return sc;
}

std::ifstream open_input(const std::string& path, const char* what, std::uint64_t max_bytes) {
  try {
    core::check_input_file(path, what, max_bytes);
  } catch (const std::runtime_error& e) {
    throw ScenarioError(e.what());
  }
  std::ifstream in(path);
  if (!in) throw ScenarioError(path + ": cannot open the " + what);
  return in;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in = open_input(path, "scenario file", 16u << 20);
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_scenario(buf.str(), path, overrides);
}

std::string describe(const Scenario& sc) {
  if (sc.phold) {
    const core::PholdParams& p = *sc.phold;
    return fmt::format(
        "phold: {} nodes x {} events, lookahead {}, mean delay {}\nrun: seed {}, "
        "{} threads, {} LPs, end {}\n",
        p.nodes, p.events_per_node, core::format_time(p.lookahead), core::format_time(p.mean_delay),
        p.seed, p.threads, p.lps, core::format_time(p.end));
  }
  if (!sc.net) return "empty scenario\n";
  const NetScenario& n = *sc.net;
  const auto value = [&](std::string_view key) -> std::string {
    for (const ResolvedKey& r : n.resolved) {
      if (r.key == key) return r.value;
    }
    return "?";
  };
  const std::size_t switches = n.topology.nodes.size() - n.topology.nics.size();
  const std::uint64_t bytes =
      std::accumulate(n.flows.begin(), n.flows.end(), std::uint64_t{0},
                      [](std::uint64_t a, const net::FlowSpec& f) { return a + f.bytes; });
  const net::NetworkConfig& c = n.network;
  const auto incast = std::count_if(n.flows.begin(), n.flows.end(), [](const net::FlowSpec& f) {
    return f.tag == net::kIncastTag;
  });
  std::string work = fmt::format(
      "flows: {} {} flows{}, {} in total\n", n.flows.size(), value("workload.flows.pattern"),
      incast ? fmt::format(" ({} of them in incasts)", incast) : "", format_bytes(bytes));
  if (n.collectives) {
    std::uint32_t gpus = 0;
    for (const net::Host& h : n.topology.hosts) gpus += h.gpus;
    work =
        fmt::format("collectives: {} on {} GPUs ({}), {} to {}, algo {}, proto {}\n",
                    value("collectives.op"), gpus, value("cluster.host.gpu"),
                    format_bytes(n.collectives->min_bytes), format_bytes(n.collectives->max_bytes),
                    value("collectives.algo"), value("collectives.proto"));
  }
  if (n.training) {
    std::uint32_t gpus = 0;
    for (const net::Host& h : n.topology.hosts) gpus += h.gpus;
    work = fmt::format("training: {} on {} GPUs ({})\n", n.training->model.name, gpus,
                       n.training->gpu.name);
    if (!n.training->jobs.empty()) {
      std::string jobs;
      for (const workload::TrainingJob& j : n.training->jobs) {
        jobs += fmt::format("{}{} ({} on {} GPUs)", jobs.empty() ? "" : ", ", j.name, j.model.name,
                            j.gpus.size());
      }
      work = fmt::format("training: {} jobs on one fabric of {} GPUs ({}): {}\n",
                         n.training->jobs.size(), gpus, n.training->gpu.name, jobs);
    }
  }
  if (n.collectives && n.collectives->analytical) {
    return fmt::format(
        "cluster: {}, {} hosts, {} NICs\n{}"
        "run: analytical (NCCL's tuning model's time for each size; no network is simulated)\n",
        n.topology.kind, n.topology.hosts.size(), n.topology.nics.size(), work);
  }
  if (n.training && n.training->comm == workload::CommMode::Analytical) {
    return fmt::format(
        "cluster: {}, {} hosts, {} NICs\n{}"
        "run: analytical (closed forms for the communications; no network is simulated)\n",
        n.topology.kind, n.topology.hosts.size(), n.topology.nics.size(), work);
  }
  // At flow level the switch and NIC mechanisms are not simulated: say what is.
  const std::string network =
      c.fidelity == net::Fidelity::kFlow
          ? fmt::format(
                "network: fluid flows at max-min fair shares, routing {}, mtu {} (no "
                "congestion control, PFC, ECN or buffers at flow level)\n",
                value("network.routing"), format_bytes(c.nic.mtu))
          : fmt::format("network: cc {}, routing {}, mtu {}, {}, ECN {}\n",
                        net::cc::name(c.cc.kind), value("network.routing"), format_bytes(c.nic.mtu),
                        c.sw.pfc ? "lossless (PFC)" : "lossy", c.sw.ecn ? "on" : "off");
  return fmt::format(
      "cluster: {}, {} hosts, {} NICs, {} switch{}, {} links\n"
      "{}"
      "{}"
      "run: {}, end {}\n",
      n.topology.kind, n.topology.hosts.size(), n.topology.nics.size(), switches,
      switches == 1 ? "" : "es", n.topology.links.size(), network, work,
      c.fidelity == net::Fidelity::kFlow
          ? fmt::format("flow level{}, seed {}, one LP ({} threads for the set-up only)",
                        sc.simulation.whole_transfers ? " (whole transfers)" : "", n.run.seed,
                        n.run.threads)
          : fmt::format("seed {}, {} threads, up to {} LPs", n.run.seed, n.run.threads, n.run.lps),
      n.run.end == core::kTimeMax ? "when the traffic ends" : core::format_time(n.run.end));
}

}  // namespace fabricsim::tools
