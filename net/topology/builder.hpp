#pragma once
// Internal to the builders: appends nodes, hosts and links while keeping port tables and
// Topology::nics consistent, so each builder only says what connects to what.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/topology/build.hpp"

namespace fabricsim::net::detail {

[[noreturn]] void fail(std::string_view builder, const std::string& what);
inline void require(bool ok, std::string_view builder, const std::string& what) {
  if (!ok) fail(builder, what);
}

class Builder {
 public:
  explicit Builder(std::string kind);

  // Before anything is added: the cluster's size, so that one too large for the memory limit
  // (net/memory.hpp) is refused before it is built. `anchors`: switches with NICs.
  void plan(std::uint64_t hosts, std::uint64_t nics_per_host, std::uint64_t switches,
            std::uint64_t switch_links, std::uint64_t anchors);

  NodeId add_switch(std::string name, std::uint8_t tier, std::uint32_t group);
  // Host `name` and its NICs "<name>.nic<i>"; returns the host index.
  std::uint32_t add_host(std::string name, const HostParams& p);
  // Every NIC of `host` to `sw`.
  void attach(std::uint32_t host, NodeId sw, const LinkParams& l);
  // SHARP aggregation nodes (build.hpp): `count` hosts "sharp<k>", added right after the GPU
  // hosts (so that NIC node ids stay NIC indices), then linked to their switches once those
  // have every other link.
  void add_aggregators(std::uint32_t count);
  void connect_aggregators(const std::vector<NodeId>& switches, Time delay);
  LinkId connect(NodeId a, NodeId b, const LinkParams& l);

  const Topology& topology() const { return t_; }
  Topology take() { return std::move(t_); }

 private:
  PortId next_port(NodeId n);
  Topology t_;
};

}  // namespace fabricsim::net::detail
