#include "workload/comm_cost.hpp"

#include <algorithm>
#include <stdexcept>

#include "collectives/plan.hpp"

namespace fabricsim::workload {

CommCost::CommCost(const net::Topology& topo, const net::NetworkConfig& cfg,
                   collectives::RankLayout layout, const ExecParams& params,
                   const net::RunOptions& run)
    : topo_(topo), cfg_(cfg), layout_(std::move(layout)), params_(params), run_(run) {}

core::Time CommCost::time(const Comm& comm, const std::vector<int>& group) {
  collectives::RankLayout sub;
  sub.hw = layout_.hw;
  std::vector<std::int64_t> key{static_cast<std::int64_t>(comm.op),
                                static_cast<std::int64_t>(comm.bytes)};
  std::vector<int> hosts;  // first-appearance numbering
  for (const int r : group) {
    if (r < 0 || static_cast<std::size_t>(r) >= layout_.ranks.size()) {
      throw std::invalid_argument("communication group names rank " + std::to_string(r) +
                                  " but the cluster has " + std::to_string(layout_.ranks.size()) +
                                  " GPUs");
    }
    const collectives::RankInfo& info = layout_.ranks[r];
    sub.ranks.push_back(info);
    const auto it = std::find(hosts.begin(), hosts.end(), info.host);
    key.push_back(it - hosts.begin());
    if (it == hosts.end()) hosts.push_back(info.host);
    key.push_back(info.local);
    key.push_back(info.nic);
  }
  const auto hit = cache_.find(key);
  if (hit != cache_.end()) return hit->second;
  collectives::Call call;
  call.op = comm.op;
  call.bytes = comm.bytes;
  call.root = 0;
  call.peer = 1;
  const collectives::Plan plan = collectives::make_plan(call, sub);
  const CollectiveResult r = run_collective(topo_, cfg_, plan, sub, params_, run_);
  events_ += r.net.kernel.events;
  cache_.emplace(std::move(key), r.time);
  return r.time;
}

}  // namespace fabricsim::workload
