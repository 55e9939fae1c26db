#include <limits>
#include <string>

#include "net/topology/builder.hpp"

namespace fabricsim::net {

Topology single(const SingleParams& p) {
  detail::require(p.hosts > 0, "single", "hosts must be >= 1");
  // Every NIC is a port of the one switch: refused before anything is built.
  const std::uint64_t ports = std::uint64_t{p.hosts} * p.host.nics;
  detail::require(ports < std::numeric_limits<PortId>::max(), "single",
                  std::to_string(p.hosts) + " hosts x " + std::to_string(p.host.nics) +
                      " NICs = " + std::to_string(ports) + " ports on the one switch, above the " +
                      std::to_string(std::numeric_limits<PortId>::max() - 1) +
                      " a switch can have (use a fat tree or rail-optimized topology)");
  detail::Builder b("single");
  b.plan(p.hosts, p.host.nics, 1, 0, 1);
  for (std::uint32_t h = 0; h < p.hosts; ++h) b.add_host("host" + std::to_string(h), p.host);
  if (p.sharp) b.add_aggregators(1);
  const NodeId sw = b.add_switch("switch", 0, 0);
  for (std::uint32_t h = 0; h < p.hosts; ++h) b.attach(h, sw, p.nic);
  if (p.sharp) b.connect_aggregators({sw}, p.nic.delay);
  return b.take();
}

}  // namespace fabricsim::net
