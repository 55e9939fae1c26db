#pragma once
// Graphviz export (`fabricsim topo`): one undirected graph, NICs clustered by host.
#include <string>

#include "net/topology/topology.hpp"

namespace fabricsim::net {

// Nodes are named as in the topology; switches are boxes, NICs ellipses inside a cluster per
// host labelled with its GPUs; each link is an edge labelled "<rate> <delay>".
std::string to_dot(const Topology& t);

// "400Gbps", "1.6Tbps", "100Mbps", "25bps": the largest unit that keeps the value >= 1.
std::string format_rate(Bps rate);

}  // namespace fabricsim::net
