#include "workload/comm_cost.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

#include "collectives/plan.hpp"
#include "core/parallel.hpp"

namespace fabricsim::workload {
namespace {

struct Shape {
  const Comm* comm = nullptr;
  collectives::RankLayout members;
  double weight = 0;  // a guess at its cost, to start the largest first
  core::Time time = 0;
  std::uint64_t events = 0;
};

void run_shape(Shape& s, const net::Topology& topo, const net::NetworkConfig& cfg,
               const ExecParams& params, const net::RunOptions& run) {
  // Over MPI ranks each process builds the steps of its own hosts' ranks only.
  const std::vector<bool> held = held_ranks(topo, cfg, s.members, run);
  const CollectiveResult r = run_collective(
      topo, cfg, build_plan(comm_call(*s.comm), s.members, params, run.threads, &held), s.members,
      params, run);
  s.time = r.time;
  s.events = r.net.kernel.events;
}

// Where DAG rank r sits; throws std::invalid_argument for a rank the cluster does not have.
const collectives::RankInfo& place_of(const collectives::RankLayout& layout, int r) {
  if (r < 0 || static_cast<std::size_t>(r) >= layout.ranks.size()) {
    throw std::invalid_argument("communication group names rank " + std::to_string(r) +
                                " but the cluster has " + std::to_string(layout.ranks.size()) +
                                " GPUs");
  }
  return layout.ranks[static_cast<std::size_t>(r)];
}

}  // namespace

collectives::Call comm_call(const Comm& comm) {
  collectives::Call call;
  call.op = comm.op;
  call.bytes = comm.bytes;
  call.root = 0;
  call.peer = 1;
  return call;
}

collectives::RankLayout comm_members(const Dag& dag, std::size_t comm,
                                     const collectives::RankLayout& layout) {
  collectives::RankLayout members;
  members.hw = layout.hw;
  for (const int r : dag.groups[dag.comms[comm].group]) {
    members.ranks.push_back(place_of(layout, r));
  }
  return members;
}

std::vector<std::vector<collectives::RankInfo>> group_members(
    const Dag& dag, const collectives::RankLayout& layout) {
  std::vector<std::vector<collectives::RankInfo>> out(dag.groups.size());
  for (std::size_t g = 0; g < dag.groups.size(); ++g) {
    for (const int r : dag.groups[g]) out[g].push_back(place_of(layout, r));
  }
  return out;
}

CommShapes comm_shapes(const Dag& dag, const collectives::RankLayout& layout) {
  // Per group, where its members sit (hosts numbered in order of appearance) and on how many
  // hosts: a communication's shape is its operation and size and that, so each (operation,
  // size, group) is looked up once, not each of the million communications of a large DAG.
  const std::vector<std::vector<collectives::RankInfo>> members = group_members(dag, layout);
  std::vector<std::vector<std::int64_t>> where(dag.groups.size());
  std::vector<std::size_t> hosts_of(dag.groups.size());
  for (std::size_t g = 0; g < members.size(); ++g) {
    std::vector<int> hosts;
    for (const collectives::RankInfo& info : members[g]) {
      const auto it = std::find(hosts.begin(), hosts.end(), info.host);
      where[g].push_back(it - hosts.begin());
      if (it == hosts.end()) hosts.push_back(info.host);
      where[g].push_back(info.local);
      where[g].push_back(info.nic);
    }
    hosts_of[g] = hosts.size();
  }
  CommShapes out;
  out.shape_of.resize(dag.comms.size());
  std::map<std::vector<std::int64_t>, std::size_t> index;
  std::map<std::tuple<int, std::uint64_t, std::uint32_t>, std::size_t> seen;
  for (std::size_t i = 0; i < dag.comms.size(); ++i) {
    const Comm& comm = dag.comms[i];
    const auto [at, fresh_comm] =
        seen.try_emplace({static_cast<int>(comm.op), comm.bytes, comm.group}, 0);
    if (fresh_comm) {
      std::vector<std::int64_t> key{static_cast<std::int64_t>(comm.op),
                                    static_cast<std::int64_t>(comm.bytes)};
      key.insert(key.end(), where[comm.group].begin(), where[comm.group].end());
      const auto [it, fresh] = index.try_emplace(std::move(key), out.first.size());
      if (fresh) {
        out.first.push_back(i);
        out.weight.push_back(static_cast<double>(comm.bytes) *
                             static_cast<double>(hosts_of[comm.group]));
      }
      at->second = it->second;
    }
    out.shape_of[i] = at->second;
  }
  return out;
}

CommTimes time_communications(const Dag& dag, const net::Topology& topo,
                              const net::NetworkConfig& cfg, const collectives::RankLayout& layout,
                              const ExecParams& params, const net::RunOptions& run,
                              CommProgressFn progress, void* progress_ctx) {
  const CommShapes cs = comm_shapes(dag, layout);
  std::vector<Shape> shapes(cs.first.size());
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    shapes[k].comm = &dag.comms[cs.first[k]];
    shapes[k].members = comm_members(dag, cs.first[k], layout);
    shapes[k].weight = cs.weight[k];
  }

  // Whole runs side by side scale perfectly while the work splits evenly over the threads:
  // when no shape outweighs a thread's share. Otherwise the largest would run alone on one
  // thread, so each runs on all of them in turn.
  double total = 0, largest = 0;
  for (const Shape& s : shapes) {
    total += s.weight;
    largest = std::max(largest, s.weight);
  }
  // Over MPI ranks each shape runs over all of them in turn, in the same order on every rank
  // (side by side on threads, the ranks' runs would not pair up).
  const bool over_ranks = run.ranks && run.ranks->size() > 1;
  const bool side_by_side =
      !over_ranks && run.threads > 1 && shapes.size() > 1 && largest * run.threads <= total;
  if (side_by_side) {
    std::vector<std::size_t> order(shapes.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return shapes[a].weight > shapes[b].weight;
    });
    net::RunOptions one = run;
    one.threads = 1;
    one.lps = 1;
    one.progress = nullptr;
    // Threads take the next shape, heaviest first: each run writes only its own Shape.
    std::size_t done = 0;
    std::mutex report;  // progress is told in order, from one thread at a time
    core::parallel_for(run.threads, order.size(), [&](std::size_t k) {
      run_shape(shapes[order[k]], topo, cfg, params, one);
      const std::lock_guard<std::mutex> lock(report);
      ++done;
      if (progress) progress(progress_ctx, done, shapes.size());
    });
  } else {
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      run_shape(shapes[k], topo, cfg, params, run);
      if (progress) progress(progress_ctx, k + 1, shapes.size());
    }
  }

  CommTimes out;
  out.shapes = shapes.size();
  out.side_by_side = side_by_side;
  out.time.reserve(dag.comms.size());
  for (const std::size_t s : cs.shape_of) out.time.push_back(shapes[s].time);
  for (const Shape& s : shapes) out.events += s.events;
  return out;
}

}  // namespace fabricsim::workload
