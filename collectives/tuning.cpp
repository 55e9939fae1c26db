#include "collectives/tuning.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "collectives/graph.hpp"
#include "collectives/protocol.hpp"
#include "collectives/transport.hpp"
#include "collectives/tuner_constants.hpp"

namespace fabricsim::collectives {
namespace {

int arch_index(Arch a) {
  return static_cast<int>(a);
}
int nodes_index(int nodes) {
  return nodes <= 1 ? 0 : nodes == 2 ? 1 : 2;
}
const TunerConstants& constants(const TuningInput& in) {
  return tuner_constants(in.hw.nccl_version);
}

// LL's bus-bandwidth cap (tuning.cc llMaxBws; nccl-facts.md §4, table "Caps"). On one node
// NCCL reads the row of the GPU (Volta..Blackwell); across nodes the row of the CPU: AMD (or a
// mix) row 1, every other CPU row 0 ("LL: for single node, we look at GPU type; for
// multi-node, we look at CPU type"). The multi-node figures are the host's: LL's send buffer
// to the network sits in host memory and the proxy thread checks every line's flags before it
// posts the send (src/transport/net.cc sendProxyProgress), so the CPU sets the pace. Rows 2-3's
// multi-node entries are never read.
double ll_max_bw(const TuningInput& in, int nodes, const TunerConstants& c) {
  const int row = nodes <= 1 ? arch_index(in.hw.arch) : in.hw.cpu == Cpu::Amd ? 1 : 0;
  return c.ll_max_bw[row][nodes_index(nodes)];
}
double per_ch_ring_ll128(const TuningInput& in, int nodes, const TunerConstants& c) {
  return c.ring_ll128[arch_index(in.hw.arch)][nodes_index(nodes)];
}
double per_ch_tree_ll128(const TuningInput& in, int nodes, const TunerConstants& c) {
  return c.tree_ll128[arch_index(in.hw.arch)][nodes_index(nodes)];
}
double per_ch_tree(const TuningInput& in, int nodes, const TunerConstants& c) {
  return c.tree[arch_index(in.hw.arch)][nodes_index(nodes)];
}
double per_ch_nvls_tree(const TuningInput& in, int nodes, const TunerConstants& c) {
  return c.nvls_tree[arch_index(in.hw.arch)][nodes_index(nodes)];
}
double base_latency(const TuningInput& in, Algo a, Proto p) {
  return base_latency_us(a, p, in.hw.nccl_version);
}
double hw_latency(const TuningInput& in, Algo a, Proto p, Hop h) {
  return hw_latency_us(a, p, h, in.hw.nccl_version);
}
// An intra-node hop in the model's latency: 2.17 took LL's x 1.8 across nodes.
double intra_latency(const TuningInput& in, Algo a, Proto p, Hop h) {
  const double lat = hw_latency(in, a, p, h);
  return in.n_nodes > 1 && p == Proto::LL && constants(in).ll_intra_x18 ? lat * 1.8 : lat;
}
// Whose network figure a hop between hosts takes: from 2.23, with one GPU per node, the tree's
// (latencies are fully exposed there); the algorithm's own before.
Algo one_ppn_net(const TuningInput& in, int ppn, Algo a) {
  return ppn == 1 && constants(in).one_ppn_tree_net ? Algo::Tree : a;
}
int compute_capability(Arch a) {
  switch (a) {
    case Arch::Volta:
      return 70;
    case Arch::Ampere:
      return 80;
    case Arch::Hopper:
      return 90;
    default:
      return 100;
  }
}
// NCCL 2.17 caps every algorithm's bus bandwidth on Ampere and Hopper before its refinements.
double capped_bus(const TuningInput& in, double bus) {
  const TunerConstants& c = constants(in);
  if (in.hw.arch == Arch::Ampere && c.ampere_bus_cap > 0) return std::min(bus, c.ampere_bus_cap);
  // Blackwell ran as Hopper then (its compute capability index stopped at Hopper's).
  if ((in.hw.arch == Arch::Hopper || in.hw.arch == Arch::Blackwell) && c.hopper_bus_cap > 0) {
    return std::min(bus, c.hopper_bus_cap);
  }
  return bus;
}
// Tree all-reduce bandwidth correction by log2(bytes / 64) (nccl-facts.md §4).
// `entries`: how many of the 24 NCCL applies (tuning.cc: tree "logSize < 23", NVLSTree
// "logSize < 24"); past them the factor is 1.
double tree_correction(Proto p, std::uint64_t bytes, int entries) {
  static constexpr std::array<std::array<double, 24>, 3> k{{
      {1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1, 1, 1},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
       .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
  }};
  if (bytes < 64) return 1.0;
  const int log = std::bit_width(bytes >> 6) - 1;
  if (log >= entries) return 1.0;
  const int row = p == Proto::LL ? 0 : p == Proto::LL128 ? 1 : 2;
  return k[row][log];
}

// A hop between hosts in the model's latency (TuningInput::reported_latency).
double net_latency(const TuningInput& in, Algo a, Proto p) {
  return in.reported_latency ? tuned_net_latency_us(in.hw.transport, a, p, in.hw.nccl_version)
                             : net_hop_latency_us(in.hw.transport, a, p, in.hw.nccl_version);
}

int log2i(int x) {
  return x <= 1 ? 0 : std::bit_width(static_cast<unsigned>(x)) - 1;
}

// The channels a communicator runs, and the rings x bandwidth its model counts: across hosts
// NCCL's network graph (graph.hpp) when the NICs are known; else the hardware's figures.
// NCCL's model reads a graph's bwIntra up to two nodes and its bwInter beyond; only the tree
// graph's two differ (graph.hpp).
struct Channels {
  int run = 1;
  int rings = 1;
  double ring_gbps = 0;
  double tree_gbps = 0;
};
Channels channels_of(const TuningInput& in) {
  if (in.n_nodes > 1 && in.hw.nic_gbps > 0) {
    const NetGraph g = net_graph(in.hw, std::max(1, in.n_ranks / in.n_nodes));
    return {g.channels, g.rings, g.ring_gbps, in.n_nodes <= 2 ? g.tree_intra_gbps : g.ring_gbps};
  }
  const double bw = in.n_nodes <= 2 ? in.hw.bw_intra_gbps : in.hw.bw_inter_gbps;
  return {in.hw.max_channels, in.hw.max_channels, bw, bw};
}

AlgoTime ring_time(const TuningInput& in, Proto p) {
  const int n = in.n_ranks, nodes = in.n_nodes;
  const Channels ch = channels_of(in);
  AlgoTime t{Algo::Ring, p, true, ch.run};
  const bool ar = in.op == Op::AllReduce;
  const bool chain = in.op == Op::Broadcast || in.op == Op::Reduce;
  const int nsteps = ar ? 2 * (n - 1) : chain ? n : n - 1;
  const Hop intra_hop = in.hw.intra == IntraLink::NVLink ? Hop::NVLink : Hop::PCI;
  double lat = base_latency(in, Algo::Ring, p);
  if (chain) {
    // Broadcast / reduce: one hop latency when both use the same channels (assumed); NCCL adds
    // no transport latency here (tuning.cc reads hwLatencies alone).
    lat += hw_latency(in, Algo::Ring, p, nodes == 1 ? intra_hop : Hop::Net);
  } else {
    const int ppn = n / std::max(nodes, 1);
    double intra = intra_latency(in, Algo::Ring, p, intra_hop);
    const double inter = net_latency(in, one_ppn_net(in, ppn, Algo::Ring), p);
    if (nodes > 1 && constants(in).net_overhead_floor) {
      intra = std::max(intra, net_overhead_us(in.hw.cpu) * (p == Proto::Simple ? 3 : 1));
    }
    // Before 2.23 NCCL counted 2 nodes network steps for a ring all-reduce.
    const int inter_steps = nodes == 1                              ? 0
                            : ar && constants(in).ring_ar_all_nodes ? 2 * nodes
                            : ar                                    ? 2 * (nodes - 1)
                                                                    : nodes - 1;
    lat += (nsteps - inter_steps) * intra + inter_steps * inter;
    // Multi-node ring Simple all-reduce plateau (x1.4 Ampere+, x1.9 before).
    if (ar && nodes > 1 && p == Proto::Simple &&
        in.bytes / static_cast<std::uint64_t>(ch.run * n) >= 64) {
      const TunerConstants& k = constants(in);
      const int cc = compute_capability(in.hw.arch);
      lat *= cc < k.ring_plateau_below ? 1.9 : cc >= 90 ? k.ring_plateau_hopper : 1.4;
    }
  }
  // One node over NVLink: NCCL's ring graph there (graph.hpp), not the channels the kernels run.
  int rings = ch.rings;
  double ring_gbps = ch.ring_gbps;
  if (nodes == 1 && in.hw.intra == IntraLink::NVLink) {
    const RingGraph g = one_node_ring_graph(in.hw);
    rings = g.rings;
    ring_gbps = g.gbps;
  }
  double bus = capped_bus(in, rings * ring_gbps);
  const TunerConstants& c = constants(in);
  // LL: half the bus bandwidth from 2.21; a quarter before (a third for one node's gathers).
  const double ll = !c.ring_ll_quarter                       ? 0.5
                    : nodes > 1 || ar || in.op == Op::Reduce ? 0.25
                                                             : 1.0 / 3.0;
  if (p == Proto::LL) bus = std::min(ll_max_bw(in, nodes, c), ll * bus);
  const int ppn_ring = n / std::max(nodes, 1);
  const double ll128 = c.ring_ll128_one_ppn_07 && ppn_ring < 2 ? 0.7 : 0.92;
  if (p == Proto::LL128) bus = std::min(ll128 * bus, rings * per_ch_ring_ll128(in, nodes, c));
  t.latency_us = lat;
  t.algbw_gbps = bus * n / std::max(nsteps, 1);
  return t;
}

AlgoTime tree_time(const TuningInput& in, Proto p) {
  const int n = in.n_ranks, nodes = in.n_nodes;
  const Channels ch = channels_of(in);
  const int nch = ch.rings;
  AlgoTime t{Algo::Tree, p, in.op == Op::AllReduce, ch.run};
  const Hop intra_hop = in.hw.intra == IntraLink::NVLink ? Hop::NVLink : Hop::PCI;
  const int ppn = n / std::max(nodes, 1);
  t.latency_us = base_latency(in, Algo::Tree, p) +
                 2 * ((ppn - 1) * intra_latency(in, Algo::Tree, p, intra_hop) +
                      log2i(nodes) * net_latency(in, Algo::Tree, p));
  const double bus = capped_bus(in, nch * ch.tree_gbps);
  double tree = 0;
  if (p == Proto::Simple) tree = std::min(0.92 * bus, nch * per_ch_tree(in, nodes, constants(in)));
  if (p == Proto::LL) tree = std::min(bus / 3.8, ll_max_bw(in, nodes, constants(in)));
  if (p == Proto::LL128) {
    tree = std::min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                    nch * per_ch_tree_ll128(in, nodes, constants(in)));
  }
  // With one GPU per node the tree graph's pattern is NCCL_TOPO_PATTERN_TREE (search.cc: "if
  // (ngpus == 1 && pattern != RING) pattern = TREE"; every NIC's traffic through that GPU), and
  // the model takes 15% off such trees (tuning.cc, maxTreePattern).
  if (ppn == 1 && constants(in).tree_pattern_085) tree *= 0.85;
  t.algbw_gbps = 0.5 * tree * tree_correction(p, in.bytes, 23);
  return t;
}

// NVLS's intra-host bandwidth as the executor runs it: every GPU moves (1 + 1/ppn) x the buffer
// each way through the switch at nvlsEfficiency of its usable NVLink, over nch - 1 of nch
// channels' worth (NCCL's (nChannels - 1) / nChannels).
double nvls_intra_gbps(const TuningInput& in, int ppn, int nch) {
  const double usable = gpu_nvlink_gbps(in.hw);
  return usable * nvls_efficiency(in.hw.arch) * (nch - 1) / nch / (1.0 + 1.0 / ppn);
}

// NVLS heads of a host across hosts: one per NIC with a GPU next to it, at most one per GPU
// (search.cc, the NVLS pattern's heads); the hardware's figures when the NICs are unknown.
int nvls_heads(const TuningInput& in, int ppn) {
  return in.hw.nics_per_host > 0 ? std::min(ppn, in.hw.nics_per_host) : ppn;
}
// A head's NIC as NCCL's network graph sees it: its rings' speed after duplication, or with
// `path` the search's speed for the GPU-NIC path; the hardware's figures when the NICs are
// unknown.
double head_nic_gbps(const TuningInput& in, int ppn, int heads, bool path = false) {
  if (in.hw.nic_gbps <= 0) return in.hw.bw_inter_gbps * in.hw.max_channels / heads;
  const NetGraph g = net_graph(in.hw, ppn);
  return path ? g.path_gbps : g.ring_gbps;
}

// NCCL's NVLS bandwidth on one node, from its NVLS graph (graph.hpp), by release (tuning.cc):
// from 2.28.3 each head carries min(bwIntra x nvlsEfficiency x (heads - 1) / heads x 2,
// bwInter) of bus bandwidth, turned into algorithm bandwidth as a ring's, n / (2 (n - 1));
// 2.18-2.27 bwIntra per head (their min with bwInter, which the search keeps above it) at
// 5/6; 2.17 the ring graph's channels at 3/4. Zero when the search finds no NVLS graph.
double nvls_one_node_algbw(const TuningInput& in) {
  const TunerConstants& c = constants(in);
  const int n = in.n_ranks;
  if (c.nvls_formula == NvlsFormula::RingGraph) {
    const RingGraph g = one_node_ring_graph(in.hw);
    return g.rings * g.gbps * 0.75;
  }
  const NvlsGraph g = nvls_graph(in.hw, n);
  if (g.heads < 2) return 0;  // "NVLS/NVLStree needs at least 2 channels"
  if (c.nvls_formula == NvlsFormula::Heads) return g.heads * g.bw_intra * 5.0 / 6.0;
  const double per_head = std::min(
      g.bw_intra * nvls_efficiency(in.hw.arch) * (g.heads - 1) / g.heads * 2.0, g.bw_inter);
  return g.heads * per_head * n / (2.0 * (n - 1));
}

AlgoTime nvls_time(const TuningInput& in, Proto p) {
  const int n = in.n_ranks, nodes = in.n_nodes;
  const int ppn = n / std::max(nodes, 1);
  // Across hosts NVLS runs no more channels than the communicator has (enqueue.cc).
  int nch = nvls_setup(in.hw, nodes, ppn).channels;
  if (nodes > 1) nch = std::min(nch, channels_of(in).run);
  // NVLS: Simple only, all-reduce only here, at least two channels; across hosts only with
  // CollNet (NVLS inside the hosts, the heads' sums reduced in the network's switches).
  const bool across = nodes > 1;
  AlgoTime t{Algo::Nvls, p,
             in.hw.nvls && p == Proto::Simple && in.op == Op::AllReduce && nch >= 2 && n > 1 &&
                 (!across || (in.hw.collnet && ppn > 1 && n % nodes == 0 && in.same_per_host)),
             nch};
  t.latency_us = base_latency(in, Algo::Nvls, Proto::Simple) +
                 hw_latency(in, Algo::Nvls, Proto::Simple, Hop::NVLink);
  if (across) t.latency_us += net_latency(in, Algo::Nvls, p);
  if (!across) {
    t.algbw_gbps = nvls_one_node_algbw(in);
    t.enabled = t.enabled && t.algbw_gbps > 0;
    return t;
  }
  // Across hosts NCCL's NVLS graph comes from a search over the NICs too, which is not
  // modelled: the executor's NVLS cost stands in for it, bounded by the network graph's
  // bwInter as NCCL bounds it: heads x their NIC's speed, as a bus bandwidth.
  t.algbw_gbps = nvls_intra_gbps(in, ppn, nch);
  if (t.enabled) {
    const int heads = nvls_heads(in, ppn);
    t.algbw_gbps =
        std::min(t.algbw_gbps, heads * head_nic_gbps(in, ppn, heads) * n / (2.0 * (n - 1)));
  }
  return t;
}

// NVLSTree: NVLS inside the hosts, a tree between them. NCCL's busBw is heads x min(NVLS's
// intra-host figure, the NIC ring speed (x2 on two nodes: both trees' halves cross each NIC
// once per direction), perChMaxNVLSTreeBw); the intra-host part is the executor's NVLS cost
// for the reason nvls_time gives. Latency: intraLat + 2 log2(nodes) x interLat.
AlgoTime nvls_tree_time(const TuningInput& in, Proto p) {
  const int n = in.n_ranks, nodes = in.n_nodes;
  const int ppn = n / std::max(nodes, 1);
  const int nch = nvls_setup(in.hw, nodes, ppn).channels;
  AlgoTime t{Algo::NvlsTree, p,
             in.hw.nvls && constants(in).has_nvls_tree && p == Proto::Simple &&
                 in.op == Op::AllReduce && nodes > 1 && nch >= 2 && ppn > 1 && n % nodes == 0 &&
                 in.same_per_host,
             nch};
  // 2.18 charged 2 (nodes - 1) network hops, later releases 2 log2(nodes).
  const int net_hops = constants(in).nvls_tree_linear ? 2 * (nodes - 1) : 2 * log2i(nodes);
  t.latency_us = base_latency(in, Algo::NvlsTree, p) +
                 hw_latency(in, Algo::NvlsTree, p, Hop::NVLink) +
                 net_hops * net_latency(in, Algo::NvlsTree, p);
  if (!t.enabled) return t;
  const int heads = nvls_heads(in, ppn);
  const double nic = head_nic_gbps(in, ppn, heads);  // a head's NIC: the network graph's ring speed
  const double intra = nvls_intra_gbps(in, ppn, nch);
  const double per_head =
      std::min(nic * (nodes <= 2 ? 2 : 1), per_ch_nvls_tree(in, nodes, constants(in)));
  const double inter = heads * per_head * n / (2.0 * (n - 1));
  t.algbw_gbps = std::min(intra, inter);
  // Blackwell on x86 hosts: NVLSTree takes the tree correction too (tuning.cc, NCCL 2.30).
  if (in.hw.arch == Arch::Blackwell && in.hw.cpu != Cpu::Arm &&
      constants(in).blackwell_nvls_tree_correction) {
    t.algbw_gbps *= tree_correction(p, in.bytes, 24);
  }
  return t;
}

// CollNetChain (tuning.cc, the same from 2.18 to 2.30): its graph is a tree-pattern search with
// the ring graph's channel count (init.cc collNetChainGraph), whose bwIntra the model reads at
// any node count; busBw = channels x bwIntra, algbw half of it, as for trees. Latency:
// 2 (ppn - 1) intra-host hops plus one network leg, the whole in-network reduction (the tree's
// network figure with one GPU per node). NCCL offers it for all-reduce with CollNet enabled,
// more than one node, and at most 8 GPUs per node (enqueue.cc, NCCL_MAX_DIRECT_ARITY + 1).
AlgoTime collnet_chain_time(const TuningInput& in, Proto p) {
  const int n = in.n_ranks, nodes = in.n_nodes;
  const int ppn = n / std::max(nodes, 1);
  const Channels ch = channels_of(in);
  AlgoTime t{Algo::CollNetChain, p,
             in.hw.collnet && p == Proto::Simple && in.op == Op::AllReduce && nodes > 1 &&
                 ppn <= 8 && n % nodes == 0 && in.same_per_host,
             ch.run};
  const Hop intra_hop = in.hw.intra == IntraLink::NVLink ? Hop::NVLink : Hop::PCI;
  t.latency_us = base_latency(in, Algo::CollNetChain, p) +
                 2 * (ppn - 1) * hw_latency(in, Algo::CollNetChain, p, intra_hop) +
                 net_latency(in, one_ppn_net(in, ppn, Algo::CollNetChain), p);
  const double bw_intra = in.n_nodes > 1 && in.hw.nic_gbps > 0
                              ? net_graph(in.hw, std::max(1, ppn)).tree_intra_gbps
                              : in.hw.bw_intra_gbps;
  t.algbw_gbps = 0.5 * ch.rings * bw_intra;
  return t;
}

// CollNetDirect (tuning.cc, 2.30): its graph (search.cc, the COLLNET_DIRECT pattern) has one
// channel per head, a GPU next to a NIC, at most 8 (and at most the node's GPUs); each runs at
// the speed the head's NIC path carries, as NVLink leaves room for it: a GPU carries twice its
// channel's speed over NVLink (its own head's part in and out, an eighth of every other head's
// each way), far below NVLink. ncclTopoDupChannels then doubles the channels as for rings, up
// to that maximum, dividing their speed. busBw = channels x speed, divided by NCCL's GPU-per-
// channel factor and x 0.85 on Hopper and later, algbw half of it. Latency: 2 (min(1, ppn - 1)
// x 3.7 us + (ppn - 1) x 0.4 us of arity) + the network's reduction, 31 us. NVSwitch hosts only, at
// most 8 GPUs each.
int collnet_heads(const TuningInput& in, int ppn) {
  return std::min({ppn, in.hw.nics_per_host > 0 ? in.hw.nics_per_host : ppn, 8});
}

AlgoTime collnet_direct_time(const TuningInput& in, Proto p) {
  const int n = in.n_ranks, nodes = in.n_nodes;
  const int ppn = n / std::max(nodes, 1);
  const Channels ch = channels_of(in);
  AlgoTime t{Algo::CollNetDirect, p,
             in.hw.collnet && p == Proto::Simple && in.op == Op::AllReduce && nodes > 1 &&
                 ppn <= 8 && n % nodes == 0 && in.same_per_host && in.direct_rails &&
                 in.hw.intra == IntraLink::NVLink,
             ch.run};
  const Hop intra_hop = in.hw.intra == IntraLink::NVLink ? Hop::NVLink : Hop::PCI;
  t.latency_us = base_latency(in, Algo::CollNetDirect, p) +
                 2 * (std::min(1, ppn - 1) * hw_latency(in, Algo::CollNetDirect, p, intra_hop) +
                      (ppn - 1) * constants(in).collnet_direct_arity_us) +
                 net_latency(in, one_ppn_net(in, ppn, Algo::CollNetDirect), p);
  if (!t.enabled) return t;
  const int heads = collnet_heads(in, ppn);
  double speed = head_nic_gbps(in, ppn, heads, true);
  int channels = heads;
  const bool sm90 = in.hw.arch == Arch::Hopper || in.hw.arch == Arch::Blackwell;
  if (speed >= 25.0 && !(sm90 && speed < 50.0 && channels > 4)) {
    const int dup = std::min(2 * channels, std::min(ppn, 8));
    speed /= (dup + channels - 1) / channels;
    channels = dup;
  }
  double bus = channels * speed;
  double factor = static_cast<double>(ppn) / channels;  // GPUs per channel
  factor -= (factor - 1) / 2;
  bus /= factor;
  if (in.hw.arch == Arch::Hopper || in.hw.arch == Arch::Blackwell) bus *= 0.85;
  t.algbw_gbps = 0.5 * bus;
  return t;
}

// PAT (NCCL 2.23+): all-gather and reduce-scatter (not with ncclAvg, enqueue.cc), Simple only,
// only when every rank is on a node of its own (ncclPatEnable; NCCL_PAT_ENABLE unset). Its graph is
// the tree's, so busBw = channels x the tree graph's speed (bwIntra up to two nodes, bwInter
// beyond), x 0.85 in 2.23 and x 0.75 from 2.24, with no conversion to algbw for these ops. Latency:
// baseLat 8 + log2(nodes) x interLat / 3.5 (the tree's network figure at one GPU per node) + 2.8 us
// per rank.
AlgoTime pat_time(const TuningInput& in, Proto p) {
  const int n = in.n_ranks, nodes = in.n_nodes;
  const Channels ch = channels_of(in);
  AlgoTime t{Algo::Pat, p,
             p == Proto::Simple &&
                 (in.op == Op::AllGather || (in.op == Op::ReduceScatter && !in.average)) &&
                 in.hw.nccl_version >= 22300 && n == nodes && n > 1,
             ch.run};
  t.latency_us = base_latency(in, Algo::Pat, p) +
                 log2i(nodes) * net_latency(in, Algo::Tree, p) / 3.5 + n * kPatRankLatencyUs;
  t.algbw_gbps = ch.rings * ch.tree_gbps * (in.hw.nccl_version < 22400 ? 0.85 : 0.75);
  return t;
}

}  // namespace

double nvls_efficiency(Arch a) {
  return a == Arch::Blackwell ? 0.74 : 0.85;
}

bool ll128_by_default(const TuningInput& in) {
  if (in.hw.intra != IntraLink::NVLink && in.n_ranks > in.n_nodes) return false;
  // Before 2.25 NCCL's per-architecture switch had no case for sm100: LL128 off on Blackwell.
  if (in.hw.arch == Arch::Blackwell && !constants(in).blackwell_rows) return false;
  if (in.n_nodes <= 1) return true;
  switch (in.hw.nic_path) {
    case NicPath::PcieSwitch:
      return true;
    case NicPath::Cpu:
      return false;
    case NicPath::C2c:
      return in.hw.nccl_version >= 22700;
  }
  return false;
}

double net_overhead_us(Cpu cpu) {
  return cpu == Cpu::Amd ? 2.0 : 1.0;
}

std::vector<AlgoTime> algo_times(const TuningInput& in) {
  std::vector<AlgoTime> out;
  for (Proto p : {Proto::LL, Proto::LL128, Proto::Simple}) {
    AlgoTime ring = ring_time(in, p);
    ring.enabled = in.op != Op::AllToAll && in.op != Op::SendRecv;
    out.push_back(ring);
    out.push_back(tree_time(in, p));
    out.push_back(nvls_time(in, p));
    out.push_back(nvls_tree_time(in, p));
    out.push_back(collnet_chain_time(in, p));
    out.push_back(collnet_direct_time(in, p));
    out.push_back(pat_time(in, p));
  }
  for (AlgoTime& t : out) {
    t.time_us = t.latency_us + static_cast<double>(in.bytes) / (1000.0 * t.algbw_gbps);
    if (!(t.algbw_gbps > 0)) t.enabled = false;
  }
  return out;
}

int tuned_channels(const TuningInput& in, Algo algo, Proto proto, int channels) {
  if (algo == Algo::CollNetDirect) {
    // enqueue.cc's CollNet channel tuning: from 16 channels down, every channel's heads need
    // 640 threads x 512 bytes; the threshold halves each time the count passes 1.5 x a power
    // of two on the way.
    const int heads = collnet_heads(in, in.n_ranks / std::max(in.n_nodes, 1));
    std::uint64_t threshold = 512;
    bool short_of = true;
    for (int sw = 16; sw >= 1 && short_of; sw /= 2) {
      while ((short_of = in.bytes < static_cast<std::uint64_t>(channels) * 640 *
                                        static_cast<std::uint64_t>(heads) * threshold) &&
             channels > sw) {
        if (channels == sw + sw / 2) threshold /= 2;
        --channels;
      }
    }
    return channels;
  }
  if (algo != Algo::Ring && algo != Algo::Tree && algo != Algo::CollNetChain) return channels;
  // maxThreads per (algo, proto) and bytes-per-thread thresholds (nccl-facts.md §1, §4). Tree
  // shrinks with the same maxThreads as ring (LL 512, LL128 640, Simple 512:
  // ncclTopoTuneModel); it runs all 640 threads only after the shrink (enqueue.cc). CollNet
  // has NVLS's 640 threads (NCCL_MAX_NTHREADS) and a threshold of 512 bytes per thread.
  int threads = proto == Proto::LL ? 512 : proto == Proto::LL128 ? 640 : 512;
  if (algo == Algo::Ring && proto == Proto::Simple && in.hw.bw_intra_gbps * channels <= 12.0) {
    threads = 256;
  }
  std::uint64_t threshold = proto == Proto::Simple ? 64 : 8;
  if (algo == Algo::CollNetChain) threads = 640, threshold = 512;
  if (algo == Algo::Ring && proto == Proto::LL) threshold *= static_cast<std::uint64_t>(in.n_ranks);
  while (channels > 1 && in.bytes < static_cast<std::uint64_t>(channels) * threads * threshold) {
    --channels;
  }
  return channels;
}

double channel_gbps(const TuningInput& in, Algo algo, Proto proto, bool net, int running) {
  const Channels ch = channels_of(in);
  const int nodes = in.n_nodes;
  // The executor's pace: NCCL's latest calibration, whatever release the tuner modelled.
  const TunerConstants& caps = tuner_constants(kNcclVersionModelled);
  // LL's cap (llMaxBw) bounds the bus bandwidth of all the channels a call runs together, not
  // of each: a call that runs fewer channels (small messages, tuned_channels) shares it among
  // those, each still no faster than LL moves data over its channel (8 payload bytes per
  // 16-byte line: half the channel's graph bandwidth, the model's ring LL factor).
  const auto ll_share = [&](double channel_bus_gbps) {
    const double ll = ll_max_bw(in, net ? nodes : 1, caps);
    return std::min(channel_bus_gbps, ll / std::clamp(running, 1, ch.run));
  };
  double total = 0;
  if (algo == Algo::Ring) {
    if (proto == Proto::LL && nodes == 1 && in.hw.intra == IntraLink::NVLink) {
      // One node: a channel moves LL at NCCL's model's LL figure for one search ring, half the
      // ring's speed within llMaxBw's share (graph.hpp); connect runs twice as many channels as
      // rings, so a channel's NVLink share is not its pace.
      Hardware latest = in.hw;
      latest.nccl_version = kNcclVersionModelled;
      const RingGraph g = one_node_ring_graph(latest);
      return ll_share(std::min(0.5 * g.gbps, ll_max_bw(in, 1, caps) / g.rings));
    }
    if (proto == Proto::LL) return ll_share(0.5 * ch.rings * ch.ring_gbps / ch.run);
    if (proto == Proto::LL128) total = ch.rings * per_ch_ring_ll128(in, net ? nodes : 1, caps);
    // Simple to another host: NCCL's ring bandwidth (graph rings x their speed, tuning.cc) over
    // the channels that share it, at most a ring's speed each (a call on fewer channels than
    // rings); the thread block writes a step into the proxy's buffer at that pace before the
    // proxy can post it. Inside a host the links alone bound a Simple ring.
    if (proto == Proto::Simple && net && nodes > 1) {
      return ch.rings * ch.ring_gbps / std::max({running, ch.rings, 1});
    }
  } else if (algo == Algo::NvlsTree) {
    // perChMaxNVLSTreeBw is bus bandwidth per head; every byte crosses one head's network leg,
    // so each (channel, head) connection carries algbw / (heads x channels).
    if (!net || in.n_ranks < 2) return 0;
    return per_ch_nvls_tree(in, nodes, caps) * in.n_ranks / (2.0 * (in.n_ranks - 1)) /
           nvls_setup(in.hw, nodes, in.n_ranks / std::max(nodes, 1)).channels;
  } else if (algo == Algo::Tree) {
    if (proto == Proto::LL) return ll_share(0.5 * ch.rings * ch.tree_gbps / ch.run);
    if (proto == Proto::LL128) total = ch.rings * per_ch_tree_ll128(in, nodes, caps);
    if (proto == Proto::Simple) total = ch.rings * per_ch_tree(in, nodes, caps);
  }
  return total / ch.run;
}

Choice choose(const TuningInput& in, Algo algo, Proto proto) {
  // NCCL_PROTO=simple as the transport's plugin sets it (collectives/transport.cpp).
  if (proto == Proto::Auto && transport_facts(in.hw.transport).simple_only) proto = Proto::Simple;
  const AlgoTime* best = nullptr;
  const std::vector<AlgoTime> times = algo_times(in);
  for (const AlgoTime& t : times) {
    if (!t.enabled || (algo != Algo::Auto && t.algo != algo)) continue;
    if (proto != Proto::Auto && t.proto != proto) continue;
    if (proto == Proto::Auto && t.proto == Proto::LL128 && !ll128_by_default(in)) continue;
    if (best == nullptr || t.time_us < best->time_us) best = &t;
  }
  if (best == nullptr) {
    throw PlanError("tuning: no enabled algorithm/protocol for " + std::string(name(in.op)) +
                    " with algo " + std::string(name(algo)) + " and proto " +
                    std::string(name(proto)));
  }
  return Choice{best->algo, best->proto,
                tuned_channels(in, best->algo, best->proto, best->channels), best->time_us};
}

}  // namespace fabricsim::collectives
