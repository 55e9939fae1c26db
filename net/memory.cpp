#include <fmt/format.h>

#include <unistd.h>

#include <atomic>
#include <stdexcept>

#include "net/memory.hpp"

#include "net/network.hpp"

namespace fabricsim::net {

namespace {

std::uint64_t default_memory_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) / 4 * 3
                               : std::uint64_t{16} << 30;
}

std::atomic<std::uint64_t> g_memory_limit{default_memory_limit()};

}  // namespace

void set_memory_limit(std::uint64_t bytes) {
  g_memory_limit.store(bytes);
}

std::uint64_t memory_limit() {
  return g_memory_limit.load();
}

MemoryNeed estimate_memory(const NetworkSize& s) {
  const std::uint64_t nodes = s.switches + s.nics, ports = 2 * s.links;
  MemoryNeed m;
  // Per node its record and a name (most fit the string's own buffer); per link its record and
  // a port entry at both ends; per host its record, names and GPU-to-NIC map.
  m.topology = nodes * sizeof(Node) + s.links * sizeof(Link) + ports * sizeof(LinkId) +
               s.hosts * (sizeof(Host) + 64) + s.nics * sizeof(NodeId);
  m.routes = Routes::estimate_bytes(s.switches, s.anchors, nodes, s.nics);
  // The parts' own tables, plus per node the kernel's counters and LP map (~72 bytes) and per
  // port its link's FIFO channel (~128 bytes: its record and two queues).
  m.parts = ports * (Ports::bytes_per_port() + 128) + nodes * 72 + Switches::bytes(nodes, ports) +
            Nics::bytes(s.nics, s.flows) + s.flows * (sizeof(FlowSpec) + sizeof(FlowResult));
  return m;
}

std::string approx_bytes(std::uint64_t b) {
  return b >= 1'000'000'000 ? fmt::format("{:.1f} GB", double(b) * 1e-9)
         : b >= 1'000'000   ? fmt::format("{:.1f} MB", double(b) * 1e-6)
                            : fmt::format("{} bytes", b);
}

void check_memory(const NetworkSize& s, std::string_view who) {
  const MemoryNeed need = estimate_memory(s);
  if (need.total() <= memory_limit()) return;
  throw std::length_error(fmt::format(
      "{} needs about {} ({} of routing tables for {} switches, {} NICs and {} links, {} flows), "
      "above the {} limit (--max-memory; default 75% of this machine's memory): make the "
      "cluster or the flow list smaller",
      who, approx_bytes(need.total()), approx_bytes(need.routes), s.switches, s.nics, s.links,
      s.flows, approx_bytes(memory_limit())));
}

NetworkSize size_of(const Topology& t, std::uint64_t flows) {
  NetworkSize s;
  s.hosts = t.hosts.size();
  s.nics = t.nics.size();
  s.switches = t.nodes.size() - t.nics.size();
  s.links = t.links.size();
  s.anchors = Routes::anchor_count(t);
  s.flows = flows;
  return s;
}

void Network::check_memory() const {
  net::check_memory(size_of(topo_, flows_.size()), "this network");
}

}  // namespace fabricsim::net
