#pragma once
// Nodes -> logical processes for the PDES kernel.
//
// A NIC and its attachment switch (leaf/ToR) share a short link and talk at line rate, so
// they are never split: every switch with NICs forms one group with all its NICs, every other
// switch is a group alone. Only switch-switch links, which are longer, cross LPs, and the
// lookahead (min_cross_delay) stays as large as the fabric allows.
#include <cstdint>
#include <vector>

#include "core/event.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::net {

// How many groups partition() works with: the largest useful number of LPs. `split_nics`:
// every node a group of its own, NICs apart from their switch (for more MPI ranks than the
// switches give; the lookahead is then a NIC link's delay).
std::uint32_t partition_groups(const Topology& t, bool split_nics = false);

// LP of every node. Groups, ordered by their switch's node id (builders number switches pod by
// pod, group by group, so neighbours stay together), are cut into contiguous runs of about
// equal weight (nodes + ports). `lps` is clamped to partition_groups(t) so that no LP is empty;
// the result is a function of (t, lps) only. Throws TopologyError if lps == 0 or a NIC does not
// have exactly one link.
std::vector<core::LpId> partition(const Topology& t, std::uint32_t lps, bool split_nics = false);

// Smallest delay of a link whose ends are in different LPs (the kernel's lookahead), or
// core::kTimeMax when no link crosses.
core::Time min_cross_delay(const Topology& t, const std::vector<core::LpId>& lp_of_node);

}  // namespace fabricsim::net
