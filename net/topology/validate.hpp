#pragma once
// Structural checks of a built (or hand-made) topology before anything runs on it.
#include "net/topology/topology.hpp"

namespace fabricsim::net {

// Throws TopologyError naming the offending node (by name) on the first problem found: link
// endpoints out of range or looping, port tables that disagree with the links, a port used
// twice, zero rate, negative delay, a NIC without exactly one link, a host without NICs or
// with a GPU mapped outside its NICs, Topology::nics not listing the hosts' NICs in host order,
// duplicate node names, or a disconnected graph.
void validate(const Topology& t);

}  // namespace fabricsim::net
