#include <fmt/core.h>

#include <cmath>

#include "net/topology/builder.hpp"

namespace fabricsim::net {

std::uint32_t uplinks_per_leaf(const FatTreeParams& p) {
  detail::require(p.oversubscription > 0, "fat_tree", "oversubscription must be > 0");
  detail::require(p.uplink.rate > 0, "fat_tree", "uplink rate must be > 0");
  const long double down = static_cast<long double>(p.hosts_per_leaf) * p.host.nics * p.nic.rate;
  const long double per_uplink = static_cast<long double>(p.oversubscription) * p.uplink.rate;
  // The tolerance keeps an exact ratio (16 x 400G at 2:1 over 400G = 8) from rounding up to 9.
  const long double n = std::ceil(down / per_uplink - 1e-9L);
  // A leaf has at most a switch's ports (kMaxUplinks is far above any real radix); past it the
  // count would not even fit the integer it is stored in (an uplink of 1 bit/s).
  constexpr std::uint32_t kMaxUplinks = 65536;
  detail::require(n <= kMaxUplinks, "fat_tree",
                  fmt::format("{} host links per leaf at {:g} Gb/s over uplinks of {:g} Gb/s at "
                              "oversubscription {:g} need {:.0Lf} uplinks per leaf, more than the "
                              "{} a leaf can have: raise the uplink rate or the oversubscription",
                              p.hosts_per_leaf * p.host.nics, double(p.nic.rate) * 1e-9,
                              double(p.uplink.rate) * 1e-9, p.oversubscription, n, kMaxUplinks));
  return n < 1 ? 1 : static_cast<std::uint32_t>(n);
}

Topology fat_tree(const FatTreeParams& p) {
  detail::require(p.leaves > 0 && p.hosts_per_leaf > 0, "fat_tree",
                  "leaves and hosts_per_leaf must be >= 1");
  const std::uint32_t uplinks = uplinks_per_leaf(p);
  const std::uint32_t spines = p.spines == 0 ? uplinks : p.spines;
  detail::require(uplinks % spines == 0, "fat_tree",
                  fmt::format("oversubscription {} gives {} uplinks per leaf, not a multiple "
                              "of {} spines",
                              p.oversubscription, uplinks, spines));
  detail::Builder b("fat_tree");
  b.plan(std::uint64_t{p.leaves} * p.hosts_per_leaf, p.host.nics, std::uint64_t{p.leaves} + spines,
         std::uint64_t{p.leaves} * uplinks, p.leaves);
  const std::uint32_t hosts = p.leaves * p.hosts_per_leaf;
  for (std::uint32_t h = 0; h < hosts; ++h) b.add_host("host" + std::to_string(h), p.host);
  if (p.sharp) b.add_aggregators(spines);
  std::vector<NodeId> leaf(p.leaves), spine(spines);
  for (std::uint32_t l = 0; l < p.leaves; ++l) {
    leaf[l] = b.add_switch("leaf" + std::to_string(l), 0, 0);
  }
  for (std::uint32_t s = 0; s < spines; ++s) {
    spine[s] = b.add_switch("spine" + std::to_string(s), 1, 0);
  }
  for (std::uint32_t h = 0; h < hosts; ++h) b.attach(h, leaf[h / p.hosts_per_leaf], p.nic);
  for (std::uint32_t l = 0; l < p.leaves; ++l) {
    for (std::uint32_t u = 0; u < uplinks; ++u) b.connect(leaf[l], spine[u % spines], p.uplink);
  }
  if (p.sharp) b.connect_aggregators(spine, p.nic.delay);
  return b.take();
}

Topology fat_tree_3tier(const KaryFatTreeParams& p) {
  detail::require(p.k >= 2 && p.k % 2 == 0, "fat_tree_3tier", "k must be even and >= 2");
  const std::uint32_t half = p.k / 2;
  detail::Builder b("fat_tree_3tier");
  // k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores; every edge-aggregation
  // pair of a pod and every aggregation switch to k/2 cores are linked.
  const std::uint64_t pod_pairs = std::uint64_t{p.k} * half * half;
  b.plan(pod_pairs, p.host.nics, std::uint64_t{p.k} * p.k + std::uint64_t{half} * half,
         2 * pod_pairs, std::uint64_t{p.k} * half);
  const std::uint32_t hosts = p.k * half * half;
  for (std::uint32_t h = 0; h < hosts; ++h) b.add_host("host" + std::to_string(h), p.host);
  std::vector<NodeId> edge, agg, core;  // edge[pod * half + e], agg[pod * half + a]
  for (std::uint32_t pod = 0; pod < p.k; ++pod) {
    const std::string prefix = "pod" + std::to_string(pod);
    for (std::uint32_t e = 0; e < half; ++e) {
      edge.push_back(b.add_switch(prefix + ".edge" + std::to_string(e), 0, pod));
    }
    for (std::uint32_t a = 0; a < half; ++a) {
      agg.push_back(b.add_switch(prefix + ".agg" + std::to_string(a), 1, pod));
    }
  }
  for (std::uint32_t c = 0; c < half * half; ++c) {
    core.push_back(b.add_switch("core" + std::to_string(c), 2, c / half));
  }
  for (std::uint32_t h = 0; h < hosts; ++h) b.attach(h, edge[h / half], p.nic);
  for (std::uint32_t pod = 0; pod < p.k; ++pod) {
    for (std::uint32_t e = 0; e < half; ++e) {
      for (std::uint32_t a = 0; a < half; ++a) {
        b.connect(edge[pod * half + e], agg[pod * half + a], p.edge_agg);
      }
    }
  }
  for (std::uint32_t pod = 0; pod < p.k; ++pod) {
    for (std::uint32_t a = 0; a < half; ++a) {
      for (std::uint32_t j = 0; j < half; ++j) {
        b.connect(agg[pod * half + a], core[a * half + j], p.agg_core);
      }
    }
  }
  return b.take();
}

}  // namespace fabricsim::net
