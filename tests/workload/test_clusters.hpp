#pragma once
// Small H100 clusters for the training and fidelity tests: 400 Gb/s NICs (one per GPU) with
// 500 ns links; test values, not defaults.
#include "net/topology/build.hpp"

namespace fabricsim::workload::test {

inline net::HostParams h100_host(std::uint32_t gpus) {
  net::HostParams h;
  h.gpus = gpus;
  h.nics = gpus;
  h.gpu = "H100";
  h.gpu_link_rate = 450ULL * 8 * net::kGbps;  // NVLink4 per direction
  return h;
}

inline net::LinkParams link(std::uint64_t gbps) {
  return {gbps * net::kGbps, 500 * core::kNanosecond};
}

inline net::Topology single_switch(std::uint32_t hosts, std::uint32_t gpus) {
  net::SingleParams p;
  p.hosts = hosts;
  p.host = h100_host(gpus);
  p.nic = link(400);
  return net::single(p);
}

// `leaves` leaves of one host each; 100 Gb/s uplinks, as many as `oversubscription` asks for.
inline net::Topology fat_tree(std::uint32_t leaves, std::uint32_t gpus, double oversubscription) {
  net::FatTreeParams p;
  p.leaves = leaves;
  p.hosts_per_leaf = 1;
  p.oversubscription = oversubscription;
  p.host = h100_host(gpus);
  p.nic = link(400);
  p.uplink = link(100);
  return net::fat_tree(p);
}

}  // namespace fabricsim::workload::test
