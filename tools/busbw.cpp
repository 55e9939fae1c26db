#include "tools/busbw.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "collectives/busbw.hpp"
#include "collectives/plan.hpp"
#include "workload/collective_exec.hpp"

namespace fabricsim::tools {

using collectives::Op;

namespace {

bool split_over_ranks(Op op) {
  return op == Op::AllGather || op == Op::ReduceScatter || op == Op::AllToAll;
}

bool has_redop(Op op) {
  return op == Op::AllReduce || op == Op::ReduceScatter || op == Op::Reduce;
}

bool has_root(Op op) {
  return op == Op::Broadcast || op == Op::Reduce;
}

// nccl-tests prints times with two decimals while they fit its 7-character column.
std::string format_us(double us) {
  if (us < 10000) return fmt::format("{:7.2f}", us);
  if (us < 100000) return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.0f}", us);
}

BusbwRow busbw_row(const NetScenario& ns, std::uint64_t bytes, double time_us, double seconds) {
  const CollectiveSection& c = *ns.collectives;
  BusbwRow row;
  row.bytes = bytes;
  row.count = bytes / c.type_size;
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
  BusbwRow row = busbw_row(ns, call.bytes, m.time_us, m.time_us * 1e-6);
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
  for (std::uint64_t size = c.min_bytes; size <= c.max_bytes; size *= c.step_factor) {
    const std::uint64_t aligned = size / unit * unit;
    if (aligned > 0 && (out.empty() || out.back() != aligned)) out.push_back(aligned);
    if (size > c.max_bytes / c.step_factor) break;  // the next step would overflow or pass max
  }
  return out;
}

int collective_ranks(const NetScenario& ns) {
  return ns.collectives->per_rail ? static_cast<int>(ns.topology.hosts.size())
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
    plan = workload::build_plan(call, layout, c.exec, run.threads);
  }
  const workload::CollectiveResult r =
      workload::run_collective(ns.topology, ns.network, std::move(plan), layout, c.exec, run);
  BusbwRow row =
      busbw_row(ns, bytes, static_cast<double>(r.time) / static_cast<double>(core::kMicrosecond),
                static_cast<double>(r.time) * 1e-12);
  row.algo = plan.algo;
  row.proto = plan.proto;
  row.channels = plan.channels;
  row.events = r.net.kernel.events;
  row.wall_s = r.net.kernel.wall_s;
  return row;
}

std::string busbw_header(const NetScenario& ns) {
  const CollectiveSection& c = *ns.collectives;
  std::string out =
      fmt::format("# {} on {} GPUs, {} hosts{}\n", collectives::name(c.op), gpu_count(ns.topology),
                  ns.topology.hosts.size(),
                  c.per_rail ? fmt::format(": {} concurrent groups of {} (one per "
                                           "local GPU index)",
                                           ns.topology.hosts.front().gpus, collective_ranks(ns))
                             : "");
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
  const std::string algbw =
      row.time_us > 0 ? fmt::format("{:6.2f}", row.algbw_gbps) : fmt::format("{:>6}", "N/A");
  const std::string result =
      fmt::format("{}  {}  {:6.2f}  {:>5}", format_us(row.time_us), algbw, row.busbw_gbps, "N/A");
  return fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}  {}  {}\n", row.bytes, row.count, c.dtype,
                     has_redop(c.op) ? c.redop : "none", has_root(c.op) ? c.root : -1, result,
                     result);
}

std::string busbw_footer(const std::vector<BusbwRow>& rows) {
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
    out += fmt::format("# simulated with {} events in {:.2f} s ({:.2f} M events/s)\n", events, wall,
                       wall > 0 ? static_cast<double>(events) / wall / 1e6 : 0.0);
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

}  // namespace fabricsim::tools
