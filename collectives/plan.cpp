#include "collectives/plan.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "collectives/alltoall.hpp"
#include "collectives/builder.hpp"
#include "collectives/collnet.hpp"
#include "collectives/nvls.hpp"
#include "collectives/pat.hpp"
#include "collectives/protocol.hpp"
#include "collectives/ring.hpp"
#include "collectives/tree.hpp"
#include "collectives/tuning.hpp"

namespace fabricsim::collectives {
namespace {

[[noreturn]] void fail(const Call& call, const std::string& why) {
  throw PlanError(std::string(name(call.op)) + " (algo " + std::string(name(call.algo)) +
                  ", proto " + std::string(name(call.proto)) + "): " + why);
}

TuningInput tuning_input(const Call& call, const RankLayout& layout, const Hosts& hosts) {
  TuningInput in{call.op, call.bytes, static_cast<int>(layout.ranks.size()),
                 static_cast<int>(hosts.ranks.size()), layout.hw};
  in.average = call.average;
  in.same_per_host = same_per_host(hosts);
  in.direct_rails = in.same_per_host && collnet_direct_same_rails(hosts, layout);
  return in;
}

void check_call(const Call& call, const RankLayout& layout, const Hosts& hosts) {
  const int n = static_cast<int>(layout.ranks.size());
  if (n == 0) fail(call, "the rank group is empty");
  std::set<std::pair<int, int>> seen;
  for (const RankInfo& r : layout.ranks) {
    if (!seen.insert({r.host, r.local}).second) {
      fail(call, "two ranks on host " + std::to_string(r.host) + " GPU " + std::to_string(r.local));
    }
  }
  if (layout.hw.max_channels < 1 || layout.hw.max_channels > kMaxChannels) {
    fail(call, "Hardware::max_channels must be in [1, " + std::to_string(kMaxChannels) + "]");
  }
  if (call.channels < 0 || call.channels > kMaxChannels) {
    fail(call, "channels must be in [0, " + std::to_string(kMaxChannels) + "]");
  }
  const bool rooted = call.op == Op::Broadcast || call.op == Op::Reduce || call.op == Op::SendRecv;
  if (rooted && (call.root < 0 || call.root >= n)) fail(call, "root outside the group");
  if (call.op == Op::SendRecv && call.peer == Call::kShift && n < 2) {
    fail(call, "send/recv needs two ranks");
  }
  if (call.op == Op::SendRecv && call.peer != Call::kShift &&
      (call.peer < 0 || call.peer >= n || call.peer == call.root)) {
    fail(call, "send/recv needs a peer in the group other than the sender");
  }
  const bool blocked =
      call.op == Op::AllGather || call.op == Op::ReduceScatter || call.op == Op::AllToAll;
  if (blocked && call.bytes % static_cast<std::uint64_t>(n) != 0) {
    fail(call, "bytes must be a multiple of the rank count (one block per rank)");
  }
  const bool p2p = call.op == Op::AllToAll || call.op == Op::SendRecv;
  if (p2p) {
    if (call.algo != Algo::Auto && call.algo != Algo::P2P) fail(call, "only P2P runs this op");
    if (call.proto != Proto::Auto && call.proto != Proto::Simple) {
      fail(call, "P2P ops are modeled with the Simple protocol only");
    }
    return;
  }
  if (call.algo == Algo::P2P) fail(call, "P2P runs only all-to-all and send/recv");
  if (call.algo == Algo::Tree && call.op != Op::AllReduce) {
    fail(call, "the double binary tree runs all-reduce only (as NCCL's model)");
  }
  if (call.algo == Algo::NvlsTree) {
    if (call.op != Op::AllReduce) fail(call, "NVLSTree is modeled for all-reduce only");
    if (!layout.hw.nvls) fail(call, "the hardware has no NVLink SHARP (Hardware::nvls)");
    if (hosts.ranks.size() < 2) fail(call, "NVLSTree needs ranks on two hosts or more");
    if (!same_per_host(hosts) || hosts.ranks.front().size() < 2) {
      fail(call, "NVLSTree needs the same GPU count, at least 2, on every host");
    }
    if (call.proto != Proto::Auto && call.proto != Proto::Simple) {
      fail(call, "NVLSTree supports the Simple protocol only");
    }
    if (call.channels == 1) fail(call, "NVLSTree needs at least 2 channels");
  }
  if (call.algo == Algo::CollNetDirect) {
    if (layout.hw.intra != IntraLink::NVLink)
      fail(call, "NCCL runs CollNetDirect on NVSwitch hosts only");
    if (!collnet_direct_same_rails(hosts, layout)) {
      fail(call, "CollNetDirect needs the same NIC rails on every host");
    }
  }
  if (call.algo == Algo::CollNetChain || call.algo == Algo::CollNetDirect) {
    if (call.op != Op::AllReduce) fail(call, "CollNet is modeled for all-reduce only");
    if (!layout.hw.collnet) {
      fail(call, "CollNet needs switches that reduce (cluster.sharp) and collectives.collnet");
    }
    if (hosts.ranks.size() < 2) fail(call, "CollNet needs ranks on two hosts or more");
    if (!same_per_host(hosts)) fail(call, "CollNet needs the same GPU count on every host");
    if (hosts.ranks.front().size() > 8)
      fail(call, "NCCL runs CollNet with at most 8 GPUs per host");
    if (call.proto != Proto::Auto && call.proto != Proto::Simple) {
      fail(call, "CollNet supports the Simple protocol only");
    }
  }
  if (call.algo == Algo::Pat) {
    if (call.op != Op::AllGather && call.op != Op::ReduceScatter) {
      fail(call, "PAT runs all-gather and reduce-scatter only");
    }
    if (static_cast<int>(hosts.ranks.size()) != n) {
      fail(call, "PAT needs one GPU per host (NCCL enables it only when nodes = ranks)");
    }
    if (layout.hw.nccl_version < 22300) fail(call, "PAT needs NCCL 2.23 or later");
    if (call.op == Op::ReduceScatter && call.average) {
      fail(call, "NCCL's PAT reduce-scatter does not take the average (ncclAvg)");
    }
    if (call.proto != Proto::Auto && call.proto != Proto::Simple) {
      fail(call, "PAT supports the Simple protocol only");
    }
  }
  if (call.algo == Algo::Nvls) {
    if (call.op != Op::AllReduce) fail(call, "NVLS is modeled for all-reduce only");
    if (!layout.hw.nvls) fail(call, "the hardware has no NVLink SHARP (Hardware::nvls)");
    if (hosts.ranks.size() > 1 && !layout.hw.collnet) {
      fail(call,
           "NVLS across hosts reduces in the network's switches: it needs CollNet "
           "(cluster.sharp and collectives.collnet); else use NVLSTree");
    }
    if (hosts.ranks.size() > 1 && (!same_per_host(hosts) || hosts.ranks.front().size() < 2)) {
      fail(call, "NVLS across hosts needs the same GPU count, at least 2, on every host");
    }
    if (call.proto != Proto::Auto && call.proto != Proto::Simple) {
      fail(call, "NVLS supports the Simple protocol only");
    }
    if (call.channels == 1) fail(call, "NVLS needs at least 2 channels");
  }
}

// Refuses a plan of more than about max_steps steps before any is built. Every piece a rank
// sends is one send and one receive step; the bytes all ranks send are the bus traffic:
// 2(n-1) x bytes for all-reduce, (n-1) x bytes for the others (send/recv: bytes).
void check_size(const Call& call, const Plan& plan, std::uint64_t piece, std::uint64_t max_steps) {
  const double n = plan.n_ranks;
  const double sent = double(call.bytes) * (plan.op == Op::AllReduce  ? 2 * (n - 1)
                                            : plan.op == Op::SendRecv ? 1
                                                                      : n - 1);
  // A rank's share on a channel may be smaller than a piece (then it is the piece): the
  // estimate stays below the count, never above it.
  const std::uint64_t share = call.bytes / std::uint64_t(plan.n_ranks * std::max(plan.channels, 1));
  const double steps = 2 * sent / double(std::max<std::uint64_t>({std::min(piece, share), 1}));
  if (steps <= double(max_steps)) return;
  throw PlanError("this " + std::string(name(plan.op)) + " of " + std::to_string(call.bytes) +
                  " bytes on " + std::to_string(plan.n_ranks) + " ranks (" +
                  std::string(name(plan.algo)) + "/" + std::string(name(plan.proto)) +
                  ") is about " + std::to_string(std::uint64_t(steps)) +
                  " steps, more than fit in the memory limit (" + std::to_string(max_steps) +
                  " steps; --max-memory): choose a smaller size");
}

}  // namespace

Choice model_time(const Call& call, const RankLayout& layout) {
  const Hosts hosts = group_hosts(layout);
  check_call(call, layout, hosts);
  if (call.op == Op::AllToAll || call.op == Op::SendRecv) {
    throw PlanError("the analytical fidelity times what NCCL's tuning model times; it has no " +
                    std::string(name(call.op)) +
                    " (point-to-point): use simulation.fidelity: packet");
  }
  const int n = static_cast<int>(layout.ranks.size());
  const TuningInput in = tuning_input(call, layout, hosts);
  Choice c = choose(in, call.algo, call.proto);
  if (call.channels > 0) c.channels = call.channels;
  if (n == 1 || call.bytes == 0) c.time_us = 0;
  return c;
}

Plan make_plan(const Call& call, const RankLayout& layout, unsigned threads,
               std::uint64_t max_steps, bool whole, const std::vector<bool>* held) {
  const Hosts hosts = group_hosts(layout);
  check_call(call, layout, hosts);
  const int n = static_cast<int>(layout.ranks.size());
  const bool p2p = call.op == Op::AllToAll || call.op == Op::SendRecv;

  Plan plan;
  plan.op = call.op;
  plan.n_ranks = n;
  plan.bytes = call.bytes;
  if (p2p) {
    plan.algo = Algo::P2P;
    plan.proto = Proto::Simple;
    // UNVERIFIED: NCCL spreads a peer's traffic over NCCL_NCHANNELS_PER_NET_PEER (2) channels.
    plan.channels = call.channels > 0 ? call.channels : 2;
  } else {
    const TuningInput in = tuning_input(call, layout, hosts);
    const Choice choice = choose(in, call.algo, call.proto);
    plan.algo = choice.algo;
    plan.proto = choice.proto;
    plan.channels = call.channels > 0 ? call.channels : choice.channels;
    plan.channel_gbps = channel_gbps(in, plan.algo, plan.proto, false, plan.channels);
    plan.channel_net_gbps = channel_gbps(in, plan.algo, plan.proto, true, plan.channels);
  }
  plan.credits = credits(plan.op, plan.algo, plan.proto);
  plan.steps.resize(static_cast<std::size_t>(n));
  if (plan.algo == Algo::Nvls || plan.algo == Algo::NvlsTree) {
    for (const std::vector<int>& h : hosts.ranks) {
      plan.switch_host.push_back(layout.ranks[h.front()].host);
    }
    plan.steps.resize(static_cast<std::size_t>(n) + plan.switch_host.size());
  }
  if (plan.algo == Algo::CollNetChain) {
    for (int c = 0; c < plan.channels; ++c) plan.sharp_rails.push_back(channel_rail(hosts, c));
  }
  if (plan.algo == Algo::CollNetDirect) {
    // One aggregation agent per channel and head, on the head's rail.
    for (int c = 0; c < plan.channels; ++c) {
      for (const int head : collnet_direct_heads(hosts, layout, 0)) {
        plan.sharp_rails.push_back(layout.ranks[head].nic);
      }
    }
  }
  if (plan.algo == Algo::Nvls && hosts.ranks.size() > 1) {
    // One aggregation agent per channel and head, on the head's rail.
    for (int c = 0; c < plan.channels; ++c) {
      for (const int head : hosts.ranks.front()) plan.sharp_rails.push_back(layout.ranks[head].nic);
    }
  }
  plan.steps.resize(plan.steps.size() + plan.sharp_rails.size());
  if (held && !whole) {
    if (held->size() != static_cast<std::size_t>(n)) {
      throw std::invalid_argument("make_plan: `held` needs one entry per rank");
    }
    plan.held = *held;
    plan.held.resize(plan.steps.size(), true);  // the switch and aggregation agents
    plan.briefs.resize(plan.steps.size());
  }
  if (n == 1 || call.bytes == 0) return plan;  // nothing moves

  PlanBuilder b(plan, hosts, whole);
  const auto chunk = [&](bool nvlink) {
    if (call.chunk_bytes > 0) return call.chunk_bytes;
    std::uint64_t size = chunk_payload(plan.op, plan.algo, plan.proto, nvlink, layout.hw.buffsize);
    if (plan.algo == Algo::Tree && plan.proto == Proto::LL128) {
      size = tree_ll128_chunk(size, call.bytes, plan.channels, n,
                              static_cast<int>(hosts.ranks.size()));
    }
    return size;
  };
  const auto tree_chunk = [&]() -> std::uint64_t {
    if (call.chunk_bytes > 0) return call.chunk_bytes;
    const int ppn = static_cast<int>(hosts.ranks.front().size());
    const int nodes = static_cast<int>(hosts.ranks.size());
    return nvls_tree_chunk(call.bytes, plan.channels, ppn, nvls_setup(layout.hw, nodes, ppn));
  };
  const auto nvls_sharp_chunk = [&]() -> std::uint64_t {
    if (call.chunk_bytes > 0) return call.chunk_bytes;
    const int ppn = static_cast<int>(hosts.ranks.front().size());
    const TuningInput in = tuning_input(call, layout, hosts);
    double nvls_gbps = 0;
    for (const AlgoTime& t : algo_times(in)) {
      if (t.algo == Algo::Nvls && t.proto == Proto::Simple) nvls_gbps = t.algbw_gbps;
    }
    return nvls_multinode_chunk(call.bytes, plan.channels, ppn,
                                nvls_setup(layout.hw, static_cast<int>(hosts.ranks.size()), ppn),
                                nvls_gbps);
  };
  const auto direct_chunk = [&]() -> std::uint64_t {
    if (call.chunk_bytes > 0) return call.chunk_bytes;
    const int ppn = static_cast<int>(hosts.ranks.front().size());
    return collnet_direct_chunk(call.bytes, plan.channels,
                                static_cast<int>(collnet_direct_heads(hosts, layout, 0).size()),
                                ppn, layout.hw.buffsize);
  };
  const auto pat = [&]() -> std::uint64_t {
    if (call.chunk_bytes > 0) return call.chunk_bytes;
    return pat_chunk(plan.op, call.bytes, plan.channels, layout.hw.buffsize);
  };
  const auto collnet_chunk = [&]() -> std::uint64_t {
    if (call.chunk_bytes > 0) return call.chunk_bytes;
    return collnet_chain_chunk(call.bytes, plan.channels,
                               static_cast<int>(hosts.ranks.front().size()), layout.hw.buffsize);
  };
  // The smallest piece one step moves: ring chunks are cut into slices; NVLSTree and CollNet
  // have their own.
  const auto piece = [&]() -> std::uint64_t {
    if (plan.algo == Algo::NvlsTree) return tree_chunk();
    if (plan.algo == Algo::CollNetChain) return collnet_chunk();
    if (plan.algo == Algo::Pat) return pat();
    if (plan.algo == Algo::CollNetDirect) return direct_chunk();
    if (plan.algo == Algo::Nvls && hosts.ranks.size() > 1) return nvls_sharp_chunk();
    if (plan.algo == Algo::Ring && plan.op != Op::Broadcast && plan.op != Op::Reduce) {
      return chunk(true) / static_cast<std::uint64_t>(chunk_steps(plan.op, plan.algo, plan.proto) /
                                                      slice_steps(plan.op, plan.algo, plan.proto));
    }
    return chunk(true);
  };
  if (!whole) check_size(call, plan, piece(), max_steps);
  switch (plan.algo) {
    case Algo::Ring:
      if (plan.op == Op::Broadcast || plan.op == Op::Reduce) {
        build_ring_chain(b, plan, layout, hosts, call.root, chunk(true));
      } else {
        build_ring_collective(b, plan, layout, hosts, chunk(true),
                              chunk_steps(plan.op, plan.algo, plan.proto) /
                                  slice_steps(plan.op, plan.algo, plan.proto),
                              threads);
      }
      break;
    case Algo::Tree:
      build_tree_allreduce(b, plan, layout, hosts, chunk(true));
      break;
    case Algo::Nvls:
      if (hosts.ranks.size() > 1) {
        build_nvls_sharp_allreduce(b, plan, hosts, nvls_sharp_chunk());
      } else {
        build_nvls_allreduce(b, plan, hosts, chunk(true));
      }
      break;
    case Algo::NvlsTree:
      build_nvls_tree_allreduce(b, plan, layout, hosts, tree_chunk());
      break;
    case Algo::Pat:
      plan.extra_latency_us = kPatRankLatencyUs * n;
      build_pat(b, plan, pat());
      break;
    case Algo::CollNetChain:
      build_collnet_chain_allreduce(b, plan, layout, hosts, collnet_chunk());
      break;
    case Algo::CollNetDirect:
      build_collnet_direct_allreduce(b, plan, layout, hosts, direct_chunk());
      break;
    case Algo::P2P:
      if (plan.op == Op::AllToAll) {
        build_alltoall(b, plan, layout, hosts, chunk(true), chunk(false));
      } else {
        build_sendrecv(b, plan, layout, hosts, call.root, call.peer, chunk(true), chunk(false));
      }
      break;
    case Algo::Auto:
      break;  // resolved above
  }
  return plan;
}

}  // namespace fabricsim::collectives
