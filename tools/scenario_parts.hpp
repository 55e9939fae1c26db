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
// `cluster.failed_links` on the built topology.
std::vector<net::LinkOutage> read_failed_links(const Section& cluster, const net::Topology& topo);

// `network`: switches, NICs, congestion control, routing.
net::NetworkConfig read_network(const Section& network);

// `workload.flows` on `topo`, with NIC indices checked against it; `seed` draws permutations.
std::vector<net::FlowSpec> read_flows(const Section& flows, const net::Topology& topo,
                                      std::uint64_t seed);

// `collectives` on `topo` (every GPU a rank).
CollectiveSection read_collectives(const Section& coll, const net::Topology& topo);

// The cluster's GPU model; `s` names the section that needs it in errors.
compute::GpuSpec cluster_gpu(const Section& s, const net::Topology& topo);

// The `collectives` defaults that follow from the GPU model: NCCL's channel count, and the
// tuning model's architecture.
int default_max_channels(compute::GpuArch a);
collectives::Arch arch_of(compute::GpuArch a);

// Keys shared by `collectives` and `training`: what NCCL's tuning model and the collective
// executor know about the hardware (max_channels, nvls, efficiencies, latencies, host_delay).
void read_comm_model(const Section& s, const net::Topology& topo, const compute::GpuSpec& gpu,
                     collectives::Hardware& hw, workload::ExecParams& exec);
// A section's own keys `more`, then those (for Section::only).
std::vector<std::string_view> comm_model_keys(std::initializer_list<std::string_view> more);

// `training` on `topo` (every GPU a rank).
TrainingSection read_training(const Section& training, const net::Topology& topo);

}  // namespace fabricsim::tools
