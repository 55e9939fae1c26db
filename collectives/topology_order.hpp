#pragma once
// Topology-aware orders, following NCCL's graph (src/graph/connect.cc): inside a host each
// channel chains the GPUs over NVLink; between hosts the chains are joined in host order (the
// last GPU of host h sends to the first GPU of host h+1) through the NIC of the channel's rail,
// so every inter-host hop of a channel stays on one rail of a rail-optimized fabric.
#include <vector>

#include "collectives/call.hpp"

namespace fabricsim::collectives {

struct Hosts {
  std::vector<std::vector<int>> ranks;  // per host (ascending host id): ranks by local index
  std::vector<int> host_index;          // per rank: its position in `ranks`
  // The NIC rails every host has (those of the host with the fewest distinct NICs), as NIC
  // indices, ascending: a communicator of one GPU per host uses that GPU's NIC, not NIC 0.
  std::vector<int> rail_nics;
  int rails() const { return static_cast<int>(rail_nics.size()); }
};

Hosts group_hosts(const RankLayout& layout);

// Every host holds as many of the group's ranks.
bool same_per_host(const Hosts& hosts);

// Rail used by channel c between hosts: channels are spread round-robin over the rails.
int channel_rail(const Hosts& hosts, int channel);

// The chain of host h's ranks for channel c. Multi-host: starts at the host's first GPU on the
// channel's rail (the entry) and ends on another GPU of that rail if the host has one (the
// exit), so both inter-host hops avoid a detour; single host: the same order on every channel,
// as NCCL's graph search keeps it there.
std::vector<int> host_chain(const Hosts& hosts, const RankLayout& layout, int host, int channel);

// The ring of channel c: host chains concatenated in host order.
std::vector<int> ring_order(const Hosts& hosts, const RankLayout& layout, int channel);

}  // namespace fabricsim::collectives
