#pragma once
// Small parameter sets shared by the topology tests. The rates and delays are test values,
// not defaults: the NIC links are short and the fabric links long, as in a real cluster.
#include <algorithm>
#include <cstdint>

#include "net/topology/build.hpp"
#include "net/topology/routing.hpp"

namespace fabricsim::net::test {

inline HostParams host(std::uint32_t nics = 1) {
  HostParams h;
  h.nics = nics;
  h.gpu_link_rate = 450 * 8 * kGbps;
  h.gpu_link_latency = core::kMicrosecond;
  return h;
}

inline LinkParams nic_link() {
  return {400 * kGbps, 200 * core::kNanosecond};
}
inline LinkParams fabric_link() {
  return {400 * kGbps, core::kMicrosecond};
}

inline FatTreeParams two_tier(std::uint32_t leaves, std::uint32_t hosts_per_leaf) {
  FatTreeParams p;
  p.leaves = leaves;
  p.hosts_per_leaf = hosts_per_leaf;
  p.host = host();
  p.nic = nic_link();
  p.uplink = fabric_link();
  return p;
}

inline SingleParams one_switch(std::uint32_t hosts, std::uint32_t nics = 1) {
  SingleParams p;
  p.hosts = hosts;
  p.host = host(nics);
  p.nic = nic_link();
  return p;
}

// Largest hop count between two NICs.
inline std::uint32_t nic_diameter(const Topology& t, const Routes& r) {
  std::uint32_t d = 0;
  for (NodeId at : t.nics) {
    for (std::uint32_t dst = 0; dst < t.nics.size(); ++dst) d = std::max(d, r.hops(at, dst));
  }
  return d;
}

}  // namespace fabricsim::net::test
