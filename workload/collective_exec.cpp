#include "workload/collective_exec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "collectives/tuning.hpp"
#include "collectives/whole_transfers.hpp"
#include "core/ranks.hpp"
#include "workload/plan_runner.hpp"

namespace fabricsim::workload {

using collectives::Plan;
using collectives::Step;

std::uint64_t plan_step_budget() {
  return net::memory_limit() / (2 * sizeof(collectives::Step));
}

collectives::RankLayout rank_layout(const net::Topology& topo, const collectives::Hardware& hw) {
  collectives::RankLayout layout;
  layout.hw = hw;
  for (std::size_t h = 0; h < topo.hosts.size(); ++h) {
    const net::Host& host = topo.hosts[h];
    for (std::uint32_t g = 0; g < host.gpus; ++g) {
      layout.ranks.push_back({static_cast<int>(h), static_cast<int>(g),
                              static_cast<int>(host.gpu_to_nic.empty() ? 0 : host.gpu_to_nic[g]),
                              static_cast<int>(host.nics.size())});
    }
  }
  return layout;
}

collectives::Plan build_plan(const collectives::Call& call, const collectives::RankLayout& layout,
                             const ExecParams& params, unsigned threads,
                             const std::vector<bool>* held) {
  if (!params.whole_transfers) {
    return collectives::make_plan(call, layout, threads, plan_step_budget(), false,
                                  held && !held->empty() ? held : nullptr);
  }
  return collectives::whole_transfers(
      collectives::make_plan(call, layout, threads, plan_step_budget(), true), layout);
}

std::vector<bool> held_ranks(const net::Topology& topo, const net::NetworkConfig& cfg,
                             const collectives::RankLayout& layout, const net::RunOptions& run) {
  if (!run.ranks || run.ranks->size() == 1 || cfg.fidelity == net::Fidelity::kFlow) return {};
  const std::vector<core::LpId> lp = net::lp_of_nodes(topo, topo.hosts.size(), false, run);
  const auto lps = *std::max_element(lp.begin(), lp.end()) + 1;
  const auto here = [&](core::LpId l) {
    return core::rank_of_lp(l, lps, *run.ranks) == run.ranks->rank();
  };
  std::vector<bool> host_here(topo.hosts.size());
  for (std::size_t h = 0; h < topo.hosts.size(); ++h) {
    bool any = here(lp[topo.nodes.size() + h]);  // its agent
    for (const net::NodeId nic : topo.hosts[h].nics) any = any || here(lp[nic]);
    host_here[h] = any;
  }
  std::vector<bool> held(layout.ranks.size());
  for (std::size_t r = 0; r < held.size(); ++r) {
    held[r] = host_here[static_cast<std::size_t>(layout.ranks[r].host)];
  }
  return held;
}

collectives::Plan merge_plans(const std::vector<collectives::Plan>& plans,
                              const std::vector<std::vector<int>>& groups, int n_ranks) {
  if (plans.empty() || plans.size() != groups.size()) {
    throw std::invalid_argument("merge_plans: one group per plan");
  }
  Plan out;
  out.op = plans.front().op;
  out.algo = plans.front().algo;
  out.proto = plans.front().proto;
  out.channels = plans.front().channels;
  out.credits = plans.front().credits;
  out.channel_gbps = plans.front().channel_gbps;
  out.channel_net_gbps = plans.front().channel_net_gbps;
  out.slice_bytes = plans.front().slice_bytes;
  out.merged_latency_us = plans.front().merged_latency_us;
  out.extra_latency_us = plans.front().extra_latency_us;
  out.n_ranks = n_ranks;
  out.steps.resize(static_cast<std::size_t>(n_ranks));
  std::vector<char> used(static_cast<std::size_t>(n_ranks), 0);
  for (std::size_t g = 0; g < plans.size(); ++g) {
    const Plan& p = plans[g];
    const std::vector<int>& map = groups[g];
    if (!p.switch_host.empty() || !p.sharp_rails.empty()) {
      throw std::invalid_argument(
          "merge_plans: plans with switch agents (NVLS, CollNet) cannot merge");
    }
    if (p.credits != out.credits || p.algo != out.algo || p.proto != out.proto) {
      throw std::invalid_argument("merge_plans: the groups' plans differ in algorithm or protocol");
    }
    if (map.size() != static_cast<std::size_t>(p.n_ranks)) {
      throw std::invalid_argument("merge_plans: a group's size differs from its plan's ranks");
    }
    for (int r = 0; r < p.n_ranks; ++r) {
      const int global = map[static_cast<std::size_t>(r)];
      if (global < 0 || global >= n_ranks || used[static_cast<std::size_t>(global)]++) {
        throw std::invalid_argument(
            fmt::format("merge_plans: rank {} is in no or two groups", global));
      }
      std::vector<Step>& dst = out.steps[static_cast<std::size_t>(global)];
      dst = p.steps[static_cast<std::size_t>(r)];
      for (Step& s : dst) s.peer = map[static_cast<std::size_t>(s.peer)];
    }
  }
  return out;
}

namespace {

// One plan, every participant from the start: the host agents of a collective run alone.
class OneCollective final : public net::HostApp {
  using Ctx = core::Context<net::Network>;

 public:
  OneCollective(PlanRunner& runner, std::uint32_t ranks) : runner_(runner), ranks_(ranks) {}

  void on_start(Ctx& ctx, std::uint32_t host) override {
    for (std::uint32_t r = 0; r < ranks_; ++r) {
      if (static_cast<std::uint32_t>(runner_.host_of(0, r)) == host)
        runner_.start(ctx, 0, r, ctx.now());
    }
    runner_.flush(ctx, host);
  }
  void on_message(Ctx& ctx, std::uint32_t host, const net::AppMsg& m) override {
    runner_.on_message(ctx, host, m);
  }
  void on_delivered(Ctx& ctx, std::uint32_t host, std::uint32_t flow,
                    std::uint32_t messages) override {
    runner_.on_delivered(ctx, host, flow, messages);
  }

 private:
  PlanRunner& runner_;
  std::uint32_t ranks_;
};

}  // namespace

CollectiveResult run_collective(const net::Topology& topo, const net::NetworkConfig& cfg, Plan plan,
                                const collectives::RankLayout& layout, const ExecParams& params,
                                const net::RunOptions& run) {
  PlanRunner runner(topo, params, layout.hw);
  const auto ranks = static_cast<std::uint32_t>(plan.n_ranks);
  runner.add_instance(runner.add_shape(std::move(plan), layout.ranks), layout.ranks);
  OneCollective app(runner, ranks);
  net::Network network(topo, cfg, runner.take_flows());
  network.set_app(&app, params.host_delay);
  runner.add_channels(network);
  runner.attach(&network);
  net::NetworkResult nr = network.run(run);
  if (run.ranks && run.ranks->size() > 1) runner.take_owners(*run.ranks, network);
  const PlanRunner::InstanceResult ir = runner.result(0);
  if (!ir.complete && nr.kernel.cut_off) {
    throw std::runtime_error(fmt::format(
        "the collective did not finish by the run's end (simulation.end = {}): participant {} "
        "had completed {} of its {} steps",
        core::format_time(run.end), ir.stalled, ir.stalled_done, ir.stalled_total));
  }
  if (!ir.complete) {
    throw std::runtime_error(
        fmt::format("the collective stalled: participant {} completed {} of its {} steps",
                    ir.stalled, ir.stalled_done, ir.stalled_total));
  }
  CollectiveResult r;
  r.time = ir.end;
  r.steps = ir.steps;
  r.held_steps = runner.held_steps();
  if (run.ranks) r.held_steps = run.ranks->max(r.held_steps);
  r.net_bytes = runner.net_bytes();
  r.nvlink_bytes = runner.nvlink_bytes();
  r.queue_pairs = runner.queue_pairs();
  r.net = std::move(nr);
  return r;
}

}  // namespace fabricsim::workload
