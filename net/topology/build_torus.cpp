#include "net/topology/builder.hpp"

namespace fabricsim::net {

namespace {

std::string switch_name(const std::vector<std::uint32_t>& coord) {
  std::string s = "sw(";
  for (std::size_t d = 0; d < coord.size(); ++d) {
    if (d > 0) s += ',';
    s += std::to_string(coord[d]);
  }
  return s + ')';
}

}  // namespace

Topology torus(const TorusParams& p) {
  const char* kind = p.wraparound ? "torus" : "mesh";
  detail::require(p.dims.size() == 2 || p.dims.size() == 3, kind, "needs 2 or 3 dimensions");
  detail::require(p.hosts_per_switch > 0, kind, "hosts_per_switch must be >= 1");
  std::uint64_t cells = 1;
  for (std::uint32_t d : p.dims) {
    detail::require(d > 0, kind, "every dimension must be >= 1");
    cells *= d;
  }
  detail::Builder b(kind);
  // At most one link per switch and dimension.
  b.plan(cells * p.hosts_per_switch, p.host.nics, cells, cells * p.dims.size(), cells);
  const auto switches = static_cast<std::uint32_t>(cells);
  const std::uint32_t hosts = switches * p.hosts_per_switch;
  for (std::uint32_t i = 0; i < hosts; ++i) b.add_host("host" + std::to_string(i), p.host);
  // Switch i has coordinates (i mod d0, i / d0 mod d1, ...): x varies fastest.
  std::vector<NodeId> sw(switches);
  std::vector<std::uint32_t> coord(p.dims.size(), 0);
  for (std::uint32_t i = 0; i < switches; ++i) {
    for (std::size_t d = 0, rest = i; d < p.dims.size(); rest /= p.dims[d], ++d) {
      coord[d] = static_cast<std::uint32_t>(rest % p.dims[d]);
    }
    sw[i] = b.add_switch(switch_name(coord), 0, 0);
  }
  for (std::uint32_t i = 0; i < hosts; ++i) b.attach(i, sw[i / p.hosts_per_switch], p.nic);
  for (std::uint32_t i = 0; i < switches; ++i) {
    std::uint32_t stride = 1;
    for (std::size_t d = 0; d < p.dims.size(); stride *= p.dims[d], ++d) {
      const std::uint32_t size = p.dims[d];
      const std::uint32_t c = (i / stride) % size;
      if (c + 1 < size) {
        b.connect(sw[i], sw[i + stride], p.link);
      } else if (p.wraparound && size > 2) {
        b.connect(sw[i], sw[i - c * stride], p.link);
      }
    }
  }
  return b.take();
}

}  // namespace fabricsim::net
