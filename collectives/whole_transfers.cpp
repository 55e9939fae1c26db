#include "collectives/whole_transfers.hpp"

#include <cstdint>
#include <unordered_map>
#include <utility>

#include "collectives/topology_order.hpp"
#include "collectives/tuning.hpp"

namespace fabricsim::collectives {

Plan whole_transfers(Plan plan, const RankLayout& layout) {
  plan.merged_latency_us = 0;
  if (plan.algo != Algo::P2P) {
    // The latency the call takes, not what the transport reports to NCCL's tuner.
    const TuningInput in{plan.op,      plan.bytes,
                         plan.n_ranks, static_cast<int>(group_hosts(layout).ranks.size()),
                         layout.hw,    false};
    for (const AlgoTime& t : algo_times(in)) {
      if (t.algo == plan.algo && t.proto == plan.proto) plan.merged_latency_us = t.latency_us;
    }
  }
  // One step per (direction, peer, channel), where its first step was.
  std::unordered_map<std::uint64_t, std::size_t> index;
  for (std::vector<Step>& steps : plan.steps) {
    index.clear();
    std::vector<Step> merged;
    for (const Step& s : steps) {
      const std::uint64_t key = static_cast<std::uint64_t>(s.dir == Dir::Send) << 63 |
                                static_cast<std::uint64_t>(static_cast<std::uint32_t>(s.peer))
                                    << 24 |
                                static_cast<std::uint64_t>(static_cast<std::uint32_t>(s.channel));
      const auto [it, fresh] = index.try_emplace(key, merged.size());
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
