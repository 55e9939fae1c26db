#include "net/topology/builder.hpp"

namespace fabricsim::net {

Topology dragonfly(const DragonflyParams& p) {
  const std::uint32_t g_count = p.groups, a = p.routers_per_group, h = p.global_links_per_router;
  detail::require(g_count > 0 && a > 0 && p.hosts_per_router > 0, "dragonfly",
                  "groups, routers_per_group and hosts_per_router must be >= 1");
  const std::uint32_t per_pair = g_count > 1 ? a * h / (g_count - 1) : 0;
  detail::require(g_count == 1 || per_pair > 0, "dragonfly",
                  std::to_string(a * h) + " global ports per group cannot reach the other " +
                      std::to_string(g_count - 1) + " groups");
  detail::Builder b("dragonfly");
  const std::uint64_t routers = std::uint64_t{g_count} * a;
  b.plan(routers * p.hosts_per_router, p.host.nics, routers,
         routers * (a - 1) / 2 + std::uint64_t{per_pair} * g_count * (g_count - 1) / 2, routers);
  const std::uint32_t hosts = g_count * a * p.hosts_per_router;
  for (std::uint32_t i = 0; i < hosts; ++i) b.add_host("host" + std::to_string(i), p.host);
  std::vector<NodeId> router;  // router[group * a + r]
  for (std::uint32_t g = 0; g < g_count; ++g) {
    for (std::uint32_t r = 0; r < a; ++r) {
      router.push_back(b.add_switch("g" + std::to_string(g) + ".r" + std::to_string(r), 0, g));
    }
  }
  for (std::uint32_t i = 0; i < hosts; ++i) b.attach(i, router[i / p.hosts_per_router], p.nic);
  for (std::uint32_t g = 0; g < g_count; ++g) {
    for (std::uint32_t r = 0; r < a; ++r) {
      for (std::uint32_t s = r + 1; s < a; ++s)
        b.connect(router[g * a + r], router[g * a + s], p.local);
    }
  }
  // Global port q of a group belongs to router q / h. Dealing the pairs round by round, in the
  // same order for every group, gives each group its partners in increasing order and spreads
  // a pair's parallel links over different routers.
  std::vector<std::uint32_t> next_port(g_count, 0);
  for (std::uint32_t round = 0; round < per_pair; ++round) {
    for (std::uint32_t x = 0; x < g_count; ++x) {
      for (std::uint32_t y = x + 1; y < g_count; ++y) {
        const NodeId rx = router[x * a + next_port[x]++ / h];
        const NodeId ry = router[y * a + next_port[y]++ / h];
        b.connect(rx, ry, p.global);
      }
    }
  }
  return b.take();
}

}  // namespace fabricsim::net
