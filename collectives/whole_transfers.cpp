#include "collectives/whole_transfers.hpp"

#include <map>
#include <tuple>
#include <utility>

#include "collectives/topology_order.hpp"
#include "collectives/tuning.hpp"

namespace fabricsim::collectives {

Plan whole_transfers(Plan plan, const RankLayout& layout) {
  plan.merged_latency_us = 0;
  if (plan.algo != Algo::P2P) {
    const TuningInput in{plan.op, plan.bytes, plan.n_ranks,
                         static_cast<int>(group_hosts(layout).ranks.size()), layout.hw};
    for (const AlgoTime& t : algo_times(in)) {
      if (t.algo == plan.algo && t.proto == plan.proto) plan.merged_latency_us = t.latency_us;
    }
  }
  for (std::vector<Step>& steps : plan.steps) {
    // One step per (direction, peer, channel), where its first step was.
    std::map<std::tuple<Dir, int, int>, std::size_t> index;
    std::vector<Step> merged;
    for (const Step& s : steps) {
      const auto [it, fresh] = index.try_emplace({s.dir, s.peer, s.channel}, merged.size());
      if (fresh) {
        Step m = s;
        m.deps = Deps();
        m.seq = 0;
        m.slice = 0;
        merged.push_back(std::move(m));
      } else {
        merged[it->second].bytes += s.bytes;
        merged[it->second].wire_bytes += s.wire_bytes;
      }
    }
    steps = std::move(merged);
  }
  return plan;
}

}  // namespace fabricsim::collectives
