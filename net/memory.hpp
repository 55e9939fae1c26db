#pragma once
// The memory a network may take, and its estimate before anything large is built. The
// estimate needs only counts, so a topology builder refuses a cluster too large for the machine
// before making it, and a Network before building its tables.
#include <cstdint>
#include <string>
#include <string_view>

#include "net/topology/topology.hpp"

namespace fabricsim::net {

// Default: 75% of physical memory. Set before building networks (the CLI's --max-memory).
void set_memory_limit(std::uint64_t bytes);
std::uint64_t memory_limit();

// What a topology and a Network on it hold depends on these counts.
struct NetworkSize {
  std::uint64_t hosts = 0, nics = 0, switches = 0, links = 0;
  std::uint64_t anchors = 0;  // switches that NICs attach to: the routing tables' columns
  std::uint64_t flows = 0;
};

// A built topology's counts, with `flows` flows.
NetworkSize size_of(const Topology& t, std::uint64_t flows = 0);

struct MemoryNeed {
  std::uint64_t topology = 0;  // nodes, links, hosts and their names
  std::uint64_t routes = 0;    // ECMP tables (net/topology/routing.hpp)
  std::uint64_t parts = 0;     // ports, switches, NICs, flows and the kernel's per-node state
  std::uint64_t total() const { return topology + routes + parts; }
};
MemoryNeed estimate_memory(const NetworkSize& s);

// An estimate for a message: "41.2 GB", "3.4 MB", "512 bytes".
std::string approx_bytes(std::uint64_t bytes);

// Throws std::length_error when the estimate passes memory_limit(), naming the sizes;
// `who` starts the message (a topology kind, or "this network").
void check_memory(const NetworkSize& s, std::string_view who);

}  // namespace fabricsim::net
