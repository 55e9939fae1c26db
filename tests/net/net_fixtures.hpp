#pragma once
// Small clusters for the packet-engine tests. Rates and delays are test values: 100 Gb/s links
// with 1 us propagation, as in HPCC-ns3's topology.txt.
#include <numeric>

#include "net/flows.hpp"
#include "net/network.hpp"
#include "net/topology/build.hpp"

namespace fabricsim::net::test {

inline constexpr Bps kRate = 100 * kGbps;
inline constexpr core::Time kDelay = core::kMicrosecond;

inline HostParams plain_host() {
  HostParams h;
  h.gpus = 1;
  h.gpu_link_rate = 450 * 8 * kGbps;
  h.gpu_link_latency = core::kMicrosecond;
  return h;
}

inline Topology star(std::uint32_t hosts) {
  SingleParams p;
  p.hosts = hosts;
  p.host = plain_host();
  p.nic = {kRate, kDelay};
  return single(p);
}

inline Topology leaf_spine(std::uint32_t leaves, std::uint32_t hosts_per_leaf,
                           double oversubscription = 1, std::uint32_t spines = 0,
                           Bps uplink = kRate) {
  FatTreeParams p;
  p.leaves = leaves;
  p.hosts_per_leaf = hosts_per_leaf;
  p.oversubscription = oversubscription;
  p.spines = spines;
  p.host = plain_host();
  p.nic = {kRate, kDelay};
  p.uplink = {uplink, kDelay};
  return fat_tree(p);
}

inline NetworkConfig config(cc::Kind kind) {
  NetworkConfig c;
  c.cc.kind = kind;
  return c;
}

inline std::uint64_t total_drops(const NetworkResult& r) {
  std::uint64_t d = 0;
  for (const PortStats& p : r.ports) d += p.drops;
  return d;
}

inline std::uint64_t total_retransmitted(const NetworkResult& r) {
  std::uint64_t b = 0;
  for (const FlowResult& f : r.flows) b += f.retransmitted_bytes;
  return b;
}

// Every payload byte a NIC sent reached a NIC or was dropped in a switch, and every flow that
// finished delivered exactly its size, in order.
inline void require_conservation(const NetworkResult& r, const std::vector<FlowSpec>& flows) {
  REQUIRE(r.nic_data_sent == r.nic_data_received + r.dropped);
  std::uint64_t expected = 0;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    REQUIRE(r.flows[f].finish >= 0);
    REQUIRE(r.flows[f].acked >= r.flows[f].finish);
    expected += flows[f].bytes;
  }
  REQUIRE(r.delivered == expected);
}

inline double jain(const std::vector<double>& x) {
  const double sum = std::accumulate(x.begin(), x.end(), 0.0);
  double sq = 0;
  for (double v : x) sq += v * v;
  return sum * sum / (double(x.size()) * sq);
}

}  // namespace fabricsim::net::test
