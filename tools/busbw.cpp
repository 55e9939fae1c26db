#include "tools/busbw.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "collectives/busbw.hpp"
#include "collectives/plan.hpp"
#include "core/time.hpp"
#include "workload/collective_exec.hpp"

namespace fabricsim::tools {

using collectives::Op;

namespace {

bool split_over_ranks(Op op) {
  return op == Op::AllGather || op == Op::ReduceScatter || op == Op::AllToAll;
}

// The redop column: nccl-tests prints the operator for the reductions and for sendrecv (which
// runs through its operator loop, src/sendrecv.cu), "none" for all-gather, broadcast and
// all-to-all.
bool has_redop(Op op) {
  return op == Op::AllReduce || op == Op::ReduceScatter || op == Op::Reduce || op == Op::SendRecv;
}

bool has_root(Op op) {
  return op == Op::Broadcast || op == Op::Reduce;
}

// A number in a column of `width` as nccl-tests prints it (getFloatStr in src/util.cu): two
// decimals while they fit, then one, then none, then an exponent (one decimal from width 7).
std::string fit(double v, int width) {
  for (const int decimals : {2, 1, 0}) {
    std::string s = fmt::format("{:{}.{}f}", v, width, decimals);
    if (static_cast<int>(s.size()) <= width) return s;
  }
  return fmt::format("{:{}.{}e}", v, width, width >= 7 ? 1 : 0);
}

// The time nccl-tests reports for a collective that takes `time_us` on the GPUs: its
// iterations run back to back, so when one thread's enqueues of the call on its GPUs take
// longer than the collective, they set the pace (nccl-tests src/common.cu, BenchTime).
double iteration_us(const CollectiveSection& c, double time_us) {
  const double host_us = c.gpus_per_thread * static_cast<double>(c.launch_cost) /
                         static_cast<double>(core::kMicrosecond);
  return std::max(time_us, host_us);
}

BusbwRow busbw_row(const NetScenario& ns, std::uint64_t bytes, double gpu_time_us) {
  const CollectiveSection& c = *ns.collectives;
  const double time_us = iteration_us(c, gpu_time_us);
  const double seconds = time_us * 1e-6;
  BusbwRow row;
  row.bytes = bytes;
  // nccl-tests' count column is its paramcount: per rank for the ops whose buffers are split
  // by rank (all-gather's send, reduce-scatter's receive, all-to-all's per-peer block).
  const bool per_rank = c.op == collectives::Op::AllGather ||
                        c.op == collectives::Op::ReduceScatter || c.op == collectives::Op::AllToAll;
  row.count = bytes / c.type_size /
              (per_rank ? static_cast<std::uint64_t>(collective_ranks(ns)) : std::uint64_t{1});
  row.time_us = time_us;
  row.algbw_gbps = collectives::algbw_gbps(bytes, seconds);
  row.busbw_gbps = collectives::busbw_gbps(c.op, collective_ranks(ns), bytes, seconds);
  return row;
}

// The analytical fidelity: NCCL's model's time; per-rail groups are alike and do not meet.
BusbwRow model_busbw(const NetScenario& ns, const collectives::Call& call,
                     const collectives::RankLayout& layout) {
  collectives::RankLayout group = layout;
  if (ns.collectives->per_rail) {
    group.ranks.clear();
    for (const collectives::RankInfo& r : layout.ranks) {
      if (r.local == 0) group.ranks.push_back(r);
    }
  }
  const collectives::Choice m = collectives::model_time(call, group);
  BusbwRow row = busbw_row(ns, call.bytes, m.time_us);
  row.algo = m.algo;
  row.proto = m.proto;
  row.channels = m.channels;
  return row;
}

}  // namespace

int gpu_count(const net::Topology& topo) {
  int n = 0;
  for (const net::Host& h : topo.hosts) n += static_cast<int>(h.gpus);
  return n;
}

std::vector<std::uint64_t> busbw_sizes(const CollectiveSection& c, int ranks) {
  const std::uint64_t unit =
      std::uint64_t{c.type_size} * (split_over_ranks(c.op) ? std::uint64_t(ranks) : 1);
  std::vector<std::uint64_t> out;
  for (std::uint64_t size = c.min_bytes; size <= c.max_bytes;) {
    const std::uint64_t aligned = size / unit * unit;
    if (aligned > 0 && (out.empty() || out.back() != aligned)) out.push_back(aligned);
    if (c.step_factor == 1) {
      if (size > c.max_bytes - c.step_bytes) break;  // the next step would pass max
      size += c.step_bytes;
    } else {
      if (size > c.max_bytes / c.step_factor) break;  // the next step would overflow or pass max
      size *= c.step_factor;
    }
  }
  return out;
}

int collective_ranks(const NetScenario& ns) {
  return ns.collectives->per_rail ? static_cast<int>(ns.topology.gpu_hosts())
                                  : gpu_count(ns.topology);
}

BusbwRow run_busbw(const NetScenario& ns, std::uint64_t bytes, const net::RunOptions& run) {
  const CollectiveSection& c = *ns.collectives;
  const collectives::RankLayout layout = workload::rank_layout(ns.topology, c.hw);
  collectives::Call call;
  call.op = c.op;
  call.bytes = bytes;
  call.root = c.root;
  call.peer = c.peer;
  call.algo = c.algo;
  call.proto = c.proto;
  call.channels = c.channels;
  call.average = c.redop == "avg";
  if (c.analytical) return model_busbw(ns, call, layout);
  collectives::Plan plan;
  if (c.per_rail) {
    // One collective per local GPU index, all at once.
    const int per_host = static_cast<int>(ns.topology.hosts.front().gpus);
    std::vector<collectives::Plan> plans;
    std::vector<std::vector<int>> groups;
    for (int g = 0; g < per_host; ++g) {
      collectives::RankLayout sub;
      sub.hw = layout.hw;
      groups.emplace_back();
      for (std::size_t r = 0; r < layout.ranks.size(); ++r) {
        if (layout.ranks[r].local != g) continue;
        sub.ranks.push_back(layout.ranks[r]);
        groups.back().push_back(static_cast<int>(r));
      }
      plans.push_back(workload::build_plan(call, sub, c.exec, run.threads));
    }
    plan = workload::merge_plans(plans, groups, static_cast<int>(layout.ranks.size()));
  } else {
    // Over MPI ranks each process builds the steps of its own hosts' ranks only.
    const std::vector<bool> held = workload::held_ranks(ns.topology, ns.network, layout, run);
    plan = workload::build_plan(call, layout, c.exec, run.threads, &held);
  }
  const workload::CollectiveResult r =
      workload::run_collective(ns.topology, ns.network, std::move(plan), layout, c.exec, run);
  BusbwRow row =
      busbw_row(ns, bytes, static_cast<double>(r.time) / static_cast<double>(core::kMicrosecond));
  row.algo = plan.algo;
  row.proto = plan.proto;
  row.channels = plan.channels;
  row.events = r.net.kernel.events;
  row.wall_s = r.net.kernel.wall_s;
  row.ranks = r.net.kernel.ranks;
  row.windows = r.net.kernel.windows;
  row.steps = r.steps;
  row.held_steps = r.held_steps;
  row.exchanged_bytes = r.net.kernel.exchanged_bytes;
  row.mpi_s = r.net.kernel.mpi_s;
  return row;
}

std::string busbw_header(const NetScenario& ns) {
  const CollectiveSection& c = *ns.collectives;
  std::string out =
      fmt::format("# {} on {} GPUs, {} hosts{}\n", collectives::name(c.op), gpu_count(ns.topology),
                  ns.topology.gpu_hosts(),
                  c.per_rail ? fmt::format(": {} concurrent groups of {} (one per "
                                           "local GPU index)",
                                           ns.topology.hosts.front().gpus, collective_ranks(ns))
                             : "");
  if (c.gpus_per_thread > 1) {
    out += fmt::format(
        "# one thread drives {0} GPUs (nccl-tests -g {0}): a size takes at least {0} x {1} "
        "(collectives.gpus_per_thread, launch_cost)\n",
        c.gpus_per_thread, core::format_time(c.launch_cost));
  }
  // nccl-tests' own columns, so its parsers read these tables (the plan follows the table). The
  // simulation has no in-place/out-of-place difference: both groups show the same run, and
  // #wrong is N/A (no data is checked).
  out +=
      "#                                                              out-of-place                "
      "       in-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
      "(us)  (GB/s)  (GB/s)\n";
  return out;
}

std::string busbw_line(const CollectiveSection& c, const BusbwRow& row) {
  // Nothing crosses a link (one rank): no time, so no rate to show.
  const std::string algbw = row.time_us > 0 ? fit(row.algbw_gbps, 6) : fmt::format("{:>6}", "N/A");
  const std::string result =
      fmt::format("{}  {}  {}  {:>5}", fit(row.time_us, 7), algbw, fit(row.busbw_gbps, 6), "N/A");
  return fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}  {}  {}\n", row.bytes, row.count, c.dtype,
                     has_redop(c.op) ? c.redop : "none", has_root(c.op) ? c.root : -1, result,
                     result);
}

std::string busbw_footer(const std::vector<BusbwRow>& rows, unsigned at_once, double elapsed_s) {
  double sum = 0;
  for (const BusbwRow& r : rows) sum += r.busbw_gbps;
  const double avg = rows.empty() ? 0 : sum / static_cast<double>(rows.size());
  std::uint64_t events = 0;
  double wall = 0;
  for (const BusbwRow& r : rows) events += r.events, wall += r.wall_s;
  std::string out =
      fmt::format("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : {:.4f} \n#\n", avg);
  out +=
      "# the plan of each size (NCCL's algorithm, protocol and channels):\n"
      "#       size      algo   proto  ch\n";
  for (const BusbwRow& r : rows) {
    out += fmt::format("# {:>10}  {:>8}  {:>6}  {:>2}\n", r.bytes, collectives::name(r.algo),
                       collectives::name(r.proto), r.channels);
  }
  if (events > 0) {
    out += fmt::format("# simulated with {} events in {:.2f} s ({:.2f} M events/s)", events, wall,
                       wall > 0 ? static_cast<double>(events) / wall / 1e6 : 0.0);
    out += at_once > 1 ? fmt::format(", {} sizes at once: {:.2f} s\n", at_once, elapsed_s) : "\n";
    if (rows.front().ranks > 1) {
      std::uint64_t windows = 0, bytes = 0;
      double mpi = 0, held = 0;
      for (const BusbwRow& r : rows) {
        windows += r.windows, bytes += r.exchanged_bytes, mpi += r.mpi_s;
        if (r.steps > 0) held = std::max(held, double(r.held_steps) / double(r.steps));
      }
      out += fmt::format(
          "# MPI: {} ranks exchanged {:.3g} MB, {:.0f} bytes per window; {:.1f}% of their wall "
          "time in MPI; a rank held at most {:.0f}% of a size's plan steps\n",
          rows.front().ranks, double(bytes) / 1e6, windows ? double(bytes) / double(windows) : 0.0,
          wall > 0 ? 100.0 * mpi / (wall * rows.front().ranks) : 0.0, 100.0 * held);
    }
  } else {
    out += "# analytical: NCCL's tuning model, no network run\n";
  }
  return out;
}

std::string busbw_csv_header() {
  return "size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,algo,proto,channels\n";
}

std::string busbw_csv_line(const CollectiveSection& c, const BusbwRow& row) {
  return fmt::format("{},{},{},{},{},{:.3f},{},{:.4f},{},{},{}\n", row.bytes, row.count, c.dtype,
                     has_redop(c.op) ? c.redop : "none", has_root(c.op) ? c.root : -1, row.time_us,
                     row.time_us > 0 ? fmt::format("{:.4f}", row.algbw_gbps) : std::string(),
                     row.busbw_gbps, collectives::name(row.algo), collectives::name(row.proto),
                     row.channels);
}

std::string nccl_tests_json(const NetScenario& ns, const std::vector<BusbwRow>& rows,
                            const std::vector<std::string>& args) {
  using Json = nlohmann::ordered_json;
  const CollectiveSection& c = *ns.collectives;
  // nccl-tests writes its booleans as the strings "true" and "false".
  const auto flag = [](bool v) { return v ? "true" : "false"; };
  Json doc;
  doc["version"] = 3;
  // argv[0] names the collective, as nccl-tests' binaries do (all_reduce_perf, ...); in the
  // order of collectives::Op.
  static constexpr const char* kBinaries[] = {
      "all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "broadcast_perf",
      "reduce_perf",     "alltoall_perf",   "sendrecv_perf"};
  doc["args"] = Json::array({kBinaries[static_cast<int>(c.op)]});
  for (const std::string& a : args) doc["args"].push_back(a);
  doc["env"] = Json::array();
  doc["nccl_version"] = c.hw.nccl_version;
  Json config;
  config["nthreads"] = 1;
  config["ngpus"] = c.gpus_per_thread;
  config["minimum_bytes"] = c.min_bytes;
  config["maximum_bytes"] = c.max_bytes;
  if (c.step_factor == 1) {
    config["step_bytes"] = c.step_bytes;
  } else {
    config["step_factor"] = c.step_factor;
  }
  config["warmup_iters"] = 0;
  config["iterations"] = 1;
  config["aggregated_iterations"] = 1;
  config["validation"] = 0;
  config["graph"] = 0;
  config["blocking_collectives"] = flag(false);
  config["per_iter_timing"] = flag(false);
  config["per_iter_skip"] = 0;
  config["parallel_init"] = flag(false);
  Json devices = Json::array();
  int rank = 0;
  for (const net::Host& h : ns.topology.hosts) {
    if (c.per_rail && h.gpus > 0) {
      // One collective per rail: the table is rail 0's, one rank per host.
      devices.push_back({{"rank", rank++},
                         {"group", 0},
                         {"pid", 0},
                         {"hostname", h.name},
                         {"device", 0},
                         {"device_hex", ""},
                         {"device_info", h.gpu}});
      continue;
    }
    for (std::uint32_t g = 0; g < h.gpus; ++g) {
      devices.push_back({{"rank", rank++},
                         {"group", 0},
                         {"pid", 0},
                         {"hostname", h.name},
                         {"device", g},
                         {"device_hex", ""},
                         {"device_info", h.gpu}});
    }
  }
  config["devices"] = std::move(devices);
  doc["config"] = std::move(config);
  Json results = Json::array();
  double sum = 0;
  for (const BusbwRow& r : rows) {
    const Json body{{"time", r.time_us},
                    {"alg_bw", r.algbw_gbps},
                    {"bus_bw", r.busbw_gbps},
                    {"nwrong", nullptr}};
    results.push_back({{"size", r.bytes},
                       {"count", r.count},
                       {"type", c.dtype},
                       {"redop", has_redop(c.op) ? c.redop : "none"},
                       {"root", std::to_string(has_root(c.op) ? c.root : -1)},
                       {"out_of_place", body},
                       {"in_place", body},
                       {"actual_iterations", 1},
                       {"experiment_name", ""}});
    sum += r.busbw_gbps;
  }
  doc["results"] = std::move(results);
  doc["out_of_bounds"] = {{"count", 0}, {"okay", flag(true)}};
  doc["average_bus_bandwidth"] = {
      {"bandwidth", rows.empty() ? 0.0 : sum / static_cast<double>(rows.size())},
      {"okay", "unchecked"}};
  doc["errors"] = Json::array();
  return doc.dump(1) + "\n";
}

}  // namespace fabricsim::tools
