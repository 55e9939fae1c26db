#include "collectives/alltoall.hpp"

#include <algorithm>

namespace fabricsim::collectives {
namespace {

// One block from `from` to `to`: chunks registered first on both ends in the same order, so
// the per-connection sequence numbers match.
void transfer(PlanBuilder& b, const Plan& plan, const RankLayout& layout, const Hosts& hosts,
              int from, int to, std::uint64_t offset, std::uint64_t bytes,
              std::uint64_t chunk_nvlink, std::uint64_t chunk_net, std::uint64_t& slice) {
  const bool same_host = hosts.host_index[from] == hosts.host_index[to];
  const std::uint64_t chunk = same_host ? chunk_nvlink : chunk_net;
  // The receiver's rail (PXN), where the sender's host has that NIC; else the sender's own,
  // where the receiver's host has it; else NIC 0, which every host has (hosts of different NIC
  // counts).
  const auto has_rail = [&](int rank, int rail) {
    const int nics = layout.ranks[rank].host_nics;
    return nics == 0 || rail < nics;
  };
  int rail = kNoRail;
  if (!same_host) {
    const int to_nic = layout.ranks[to].nic, from_nic = layout.ranks[from].nic;
    rail = has_rail(from, to_nic) ? to_nic : has_rail(to, from_nic) ? from_nic : 0;
  }
  for (int c = 0; c < plan.channels; ++c) {
    const std::uint64_t share = part_size(bytes, plan.channels, c);
    const std::uint64_t pieces = std::max<std::uint64_t>(1, div_up(share, chunk));
    slice = std::max(slice, part_size(share, pieces, 0));
    for (std::uint64_t k = 0; k < pieces; ++k) {
      const int id =
          b.add_chunk(offset + part_offset(bytes, plan.channels, c) + part_offset(share, pieces, k),
                      part_size(share, pieces, k), from, to);
      b.send(from, to, c, id, {}, rail);
      b.recv(to, from, c, id, Combine::Copy, {}, rail);
    }
  }
}

}  // namespace

void build_alltoall(PlanBuilder& b, Plan& plan, const RankLayout& layout, const Hosts& hosts,
                    std::uint64_t chunk_nvlink, std::uint64_t chunk_net) {
  const int n = plan.n_ranks;
  const std::uint64_t block = plan.bytes / static_cast<std::uint64_t>(n);
  std::uint64_t slice = 0;
  for (int i = 1; i < n; ++i) {
    for (int r = 0; r < n; ++r) {
      const int to = (r + i) % n;
      transfer(b, plan, layout, hosts, r, to, block * static_cast<std::uint64_t>(to), block,
               chunk_nvlink, chunk_net, slice);
    }
  }
  plan.slice_bytes = slice;
}

void build_sendrecv(PlanBuilder& b, Plan& plan, const RankLayout& layout, const Hosts& hosts,
                    int from, int to, std::uint64_t chunk_nvlink, std::uint64_t chunk_net) {
  std::uint64_t slice = 0;
  if (to == Call::kShift) {
    for (int r = 0; r < plan.n_ranks; ++r) {
      transfer(b, plan, layout, hosts, r, (r + 1) % plan.n_ranks, 0, plan.bytes, chunk_nvlink,
               chunk_net, slice);
    }
  } else {
    transfer(b, plan, layout, hosts, from, to, 0, plan.bytes, chunk_nvlink, chunk_net, slice);
  }
  plan.slice_bytes = slice;
}

}  // namespace fabricsim::collectives
