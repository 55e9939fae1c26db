#pragma once
// Internal to tools/: the section readers behind parse_scenario, one file per section.
#include <cstdint>
#include <vector>

#include "net/config.hpp"
#include "net/network.hpp"
#include "net/topology/topology.hpp"
#include "tools/yaml_section.hpp"

namespace fabricsim::tools {

// `cluster`: builds and validates the topology (TopologyError becomes a ScenarioError).
net::Topology read_cluster(const Section& cluster);

// `network`: switches, NICs, congestion control, routing.
net::NetworkConfig read_network(const Section& network);

// `workload.flows` on `topo`, with NIC indices checked against it; `seed` draws permutations.
std::vector<net::FlowSpec> read_flows(const Section& flows, const net::Topology& topo,
                                      std::uint64_t seed);

// `collectives` on `topo` (every GPU a rank).
CollectiveSection read_collectives(const Section& coll, const net::Topology& topo);

}  // namespace fabricsim::tools
