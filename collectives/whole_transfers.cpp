#include "collectives/whole_transfers.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>

#include "collectives/collnet.hpp"
#include "collectives/topology_order.hpp"
#include "collectives/tuning.hpp"

namespace fabricsim::collectives {

namespace {

// One participant's whole steps inside its host (see the header): those alike fold into the
// first of them, which takes the lowest channel, so the peer, folding its own, finds the same
// connection.
void merge_alike_channels(std::vector<Step>& steps) {
  struct Alike {  // (a receive's combine plays no part in the timing: not compared)
    bool send;
    int peer;
    std::uint64_t bytes, wire_bytes;
    bool operator==(const Alike&) const = default;
  };
  struct Hash {
    std::size_t operator()(const Alike& a) const {
      return std::hash<std::uint64_t>()(a.bytes * 0x9e3779b97f4a7c15ULL ^
                                        static_cast<std::uint64_t>(a.peer) << 2 ^
                                        static_cast<std::uint64_t>(a.send));
    }
  };
  std::unordered_map<Alike, std::size_t, Hash> first;
  std::vector<Step> kept;
  kept.reserve(steps.size());
  for (Step& s : steps) {
    if (s.rail != kNoRail) {
      kept.push_back(std::move(s));
      continue;
    }
    const Alike key{s.dir == Dir::Send, s.peer, s.bytes, s.wire_bytes};
    const auto [it, fresh] = first.try_emplace(key, kept.size());
    if (fresh) {
      kept.push_back(std::move(s));
      continue;
    }
    Step& k = kept[it->second];
    ++k.copies;
    k.channel = std::min(k.channel, s.channel);
  }
  steps = std::move(kept);
}

}  // namespace

Plan whole_transfers(Plan plan, const RankLayout& layout) {
  plan.merged_latency_us = 0;
  if (plan.algo != Algo::P2P) {
    // The latency the call takes, not what the transport reports to NCCL's tuner.
    const Hosts hosts = group_hosts(layout);
    // At NCCL's latest calibration, as the executor charges steps (workload/plan_runner.cpp).
    Hardware hw = layout.hw;
    hw.nccl_version = kNcclVersionModelled;
    TuningInput in{plan.op, plan.bytes, plan.n_ranks, static_cast<int>(hosts.ranks.size()),
                   hw,      false};
    in.same_per_host = same_per_host(hosts);
    in.direct_rails = in.same_per_host && collnet_direct_same_rails(hosts, layout);
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
    merge_alike_channels(steps);
  }
  return plan;
}

}  // namespace fabricsim::collectives
