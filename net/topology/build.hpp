#pragma once
// Builders: a plain parameter struct in, a net::Topology out. No YAML here (tools/ reads the
// scenario). Rates and delays have no defaults: callers pass them, so every number in a run
// comes from the scenario or from a documented default in tools/.
//
// Conventions shared by every builder:
// - hosts are "host<n>" and their NICs "host<n>.nic<i>"; NIC nodes are created first, in host
//   order, so a NIC's node id equals its index in Topology::nics (Topology::nics is still the
//   map to use);
// - a NIC's Node::group is its index inside the host (its rail);
// - builders check their own parameters (counts, divisibility) and throw TopologyError; they do
//   not call validate().
#include <cstdint>
#include <string>
#include <vector>

#include "net/topology/topology.hpp"

namespace fabricsim::net {

struct HostParams {
  // 8 GPUs per host: NVIDIA DGX H100 datasheet ("8x NVIDIA H100 Tensor Core GPUs"); HGX A100
  // and HGX H100 baseboards carry 8 as well.
  std::uint32_t gpus = 8;
  std::string gpu;  // GPU model (compute/gpu.hpp), e.g. "H100"; empty for network-only runs
  // The host CPU's maker ("intel", "amd", "arm"): NCCL's tuning reads it (collectives::Cpu).
  std::string cpu = "intel";
  // The GPU-to-NIC route ("pcie_switch", "cpu", "c2c"): NCCL's tuning reads it
  // (collectives::NicPath).
  std::string nic_path = "pcie_switch";
  // The transport NCCL runs between hosts ("ib", "efa-p5", ...): its latencies enter the
  // collectives' model (collectives::Transport).
  std::string transport = "ib";
  std::uint32_t nics = 1;  // NICs per host; in rail_optimized, one per rail
  // GPU -> NIC; when empty, GPU g uses NIC g * nics / gpus: one NIC per GPU when nics == gpus,
  // one per two GPUs when nics == gpus / 2.
  std::vector<std::uint32_t> gpu_to_nic;
  IntraHost intra = IntraHost::kNvSwitch;
  Bps gpu_link_rate = 0;  // per GPU, one direction; required when gpus > 0
  Time gpu_link_latency = 0;
};

struct LinkParams {
  Bps rate = 0;
  Time delay = 0;
};

// SHARP (`sharp` in the builders that support it): every switch at the top of the builder's tree
// reduces in the network, as InfiniBand switches with SHARP do (NVIDIA SHARP docs: the
// aggregation node is part of the switch ASIC and reduces streams at the ports' line rate). It
// is a host "sharp<k>" without GPUs whose one NIC sits on an internal port of switch k, as fast
// as that switch's other ports together and as long as a NIC link (Topology::aggregators).

// H hosts, every NIC on one switch "switch" (with `sharp`, the switch reduces).
struct SingleParams {
  std::uint32_t hosts = 0;
  HostParams host;
  LinkParams nic;  // NIC - switch
  bool sharp = false;
};
Topology single(const SingleParams& p);

// 2-tier leaf/spine Clos: leaves "leaf<l>" (tier 0), spines "spine<s>" (tier 1).
struct FatTreeParams {
  std::uint32_t leaves = 0;
  std::uint32_t hosts_per_leaf = 0;  // every NIC of a host goes to the host's leaf
  // Host-facing : spine-facing bandwidth at a leaf; 1 = non-blocking, 3 = 3:1. Sets the number
  // of uplinks per leaf (see uplinks_per_leaf).
  double oversubscription = 1.0;
  // 0: one spine per uplink. Otherwise each leaf has uplinks / spines parallel links to every
  // spine, and uplinks must be a multiple of spines (so that every leaf pair is 4 hops apart).
  std::uint32_t spines = 0;
  HostParams host;
  LinkParams nic;      // NIC - leaf
  LinkParams uplink;   // leaf - spine
  bool sharp = false;  // the spines reduce
};
// ceil(hosts_per_leaf * nics * nic.rate / (oversubscription * uplink.rate)), at least 1.
std::uint32_t uplinks_per_leaf(const FatTreeParams& p);
Topology fat_tree(const FatTreeParams& p);

// 3-tier k-ary fat tree (Al-Fares et al., SIGCOMM'08): k pods of k/2 edge "pod<p>.edge<e>"
// (tier 0) and k/2 aggregation "pod<p>.agg<a>" (tier 1) switches, (k/2)^2 cores "core<c>"
// (tier 2), k/2 hosts per edge switch: k^3/4 hosts. Agg a of every pod links to cores
// a*k/2 .. a*k/2 + k/2 - 1.
struct KaryFatTreeParams {
  std::uint32_t k = 0;  // even, >= 2
  HostParams host;
  LinkParams nic;       // NIC - edge
  LinkParams edge_agg;  // edge - aggregation
  LinkParams agg_core;  // aggregation - core
};
Topology fat_tree_3tier(const KaryFatTreeParams& p);

// Rail-optimized (NVIDIA DGX SuperPOD, Alibaba HPN): hosts are cut into groups of
// hosts_per_group; NIC i of every host of group g is on leaf "g<g>.rail<i>" (tier 0, Node::group
// = i); every leaf links to every spine "spine<s>" (tier 1). host.nics = NICs per host = rails.
// The last group may be smaller.
struct RailParams {
  std::uint32_t hosts = 0;
  std::uint32_t hosts_per_group = 0;
  std::uint32_t spines = 0;           // >= 1: rails meet only at the spines
  std::uint32_t links_per_spine = 1;  // parallel links between each leaf and each spine
  HostParams host;
  LinkParams nic;      // NIC - rail leaf
  LinkParams uplink;   // leaf - spine
  bool sharp = false;  // the spines reduce
};
Topology rail_optimized(const RailParams& p);

// Dragonfly (Kim et al., ISCA'08): routers "g<g>.r<r>" (tier 0, Node::group = g), all-to-all
// inside a group. Each group has routers_per_group * global_links_per_router global ports,
// dealt round-robin over the other groups (consecutive arrangement), so every pair of groups
// gets floor(a*h / (groups-1)) >= 1 links; ports left over stay unused.
struct DragonflyParams {
  std::uint32_t groups = 0;
  std::uint32_t routers_per_group = 0;
  std::uint32_t hosts_per_router = 0;
  std::uint32_t global_links_per_router = 0;
  HostParams host;
  LinkParams nic;     // NIC - router
  LinkParams local;   // inside a group
  LinkParams global;  // between groups
};
Topology dragonfly(const DragonflyParams& p);

// 2D or 3D torus (kind "torus") or mesh (wraparound = false, kind "mesh"): one switch
// "sw(x,y)" / "sw(x,y,z)" per coordinate, linked to its +-1 neighbour in each dimension. A
// dimension of size 2 gets one link per pair (the wraparound link would duplicate it).
struct TorusParams {
  std::vector<std::uint32_t> dims;  // 2 or 3 sizes, each >= 1
  bool wraparound = true;
  std::uint32_t hosts_per_switch = 0;
  HostParams host;
  LinkParams nic;   // NIC - switch
  LinkParams link;  // switch - switch
};
Topology torus(const TorusParams& p);

// Explicit lists. Link endpoints name switches or NICs ("<host>.nic<i>").
struct CustomSwitch {
  std::string name;
  std::uint8_t tier = 0;
  std::uint32_t group = 0;
};
struct CustomHost {
  std::string name;
  HostParams host;
};
struct CustomLink {
  std::string a, b;
  LinkParams link;
};
struct CustomParams {
  std::vector<CustomSwitch> switches;
  std::vector<CustomHost> hosts;
  std::vector<CustomLink> links;
};
Topology custom(const CustomParams& p);

}  // namespace fabricsim::net
