#include "net/topology/builder.hpp"

namespace fabricsim::net {

Topology single(const SingleParams& p) {
  detail::require(p.hosts > 0, "single", "hosts must be >= 1");
  detail::Builder b("single");
  b.plan(p.hosts, p.host.nics, 1, 0, 1);
  for (std::uint32_t h = 0; h < p.hosts; ++h) b.add_host("host" + std::to_string(h), p.host);
  const NodeId sw = b.add_switch("switch", 0, 0);
  for (std::uint32_t h = 0; h < p.hosts; ++h) b.attach(h, sw, p.nic);
  return b.take();
}

}  // namespace fabricsim::net
