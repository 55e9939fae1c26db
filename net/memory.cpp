// The memory a network may take, and its estimate before anything large is built.
#include <fmt/format.h>

#include <unistd.h>

#include <atomic>
#include <stdexcept>

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

void Network::check_memory() const {
  const std::uint64_t routes = Routes::estimate_bytes(topo_);
  std::uint64_t ports = 0;
  for (const Node& n : topo_.nodes) ports += n.ports.size();
  const std::uint64_t nodes = topo_.nodes.size();
  // The parts' own tables, plus per node the kernel's counters and LP map (~72 bytes) and per
  // port its link's FIFO channel (~128 bytes: its record and two queues).
  const std::uint64_t need = routes + ports * (Ports::bytes_per_port() + 128) + nodes * 72 +
                             Switches::bytes(nodes, ports) +
                             Nics::bytes(topo_.nics.size(), flows_.size()) +
                             flows_.size() * (sizeof(FlowSpec) + sizeof(FlowResult));
  if (need <= memory_limit()) return;
  const auto size = [](std::uint64_t b) {
    return b >= 1'000'000'000 ? fmt::format("{:.1f} GB", double(b) * 1e-9)
           : b >= 1'000'000   ? fmt::format("{:.1f} MB", double(b) * 1e-6)
                              : fmt::format("{} bytes", b);
  };
  throw std::length_error(fmt::format(
      "this network needs about {} ({} of routing tables for {} switches, {} ports, {} flows), "
      "above the {} limit (--max-memory; default 75% of this machine's memory): make the "
      "cluster or the flow list smaller",
      size(need), size(routes), nodes - topo_.nics.size(), ports, flows_.size(),
      size(memory_limit())));
}

}  // namespace fabricsim::net
