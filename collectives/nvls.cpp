#include "collectives/nvls.hpp"

#include <algorithm>
#include <vector>

namespace fabricsim::collectives {

void build_nvls_allreduce(PlanBuilder& b, Plan& plan, const Hosts& hosts, std::uint64_t chunk) {
  const int n = plan.n_ranks;
  const int nch = plan.channels;
  const int sw = n;  // the only switch agent: make_plan allows NVLS on one host only
  const std::vector<int>& heads = hosts.ranks.front();
  const std::uint64_t biggest = part_size(part_size(plan.bytes, nch, 0), n, 0);
  const std::uint64_t loops = std::max<std::uint64_t>(1, div_up(biggest, chunk));
  plan.slice_bytes = part_size(biggest, loops, 0);
  std::vector<std::uint32_t> got(static_cast<std::size_t>(n));
  for (int c = 0; c < nch; ++c) {
    const std::uint64_t share = part_size(plan.bytes, nch, c);
    const std::uint64_t share_off = part_offset(plan.bytes, nch, c);
    for (std::uint64_t l = 0; l < loops; ++l) {
      for (int h = 0; h < n; ++h) {
        const std::uint64_t part = part_size(share, n, h);
        const int id =
            b.add_chunk(share_off + part_offset(share, n, h) + part_offset(part, loops, l),
                        part_size(part, loops, l));
        const int head = heads[h];
        for (int r = 0; r < n; ++r) b.send(r, sw, c, id);
        for (int r = 0; r < n; ++r) got[r] = b.recv(sw, r, c, id, Combine::Reduce);
        b.send(sw, head, c, id, got);
        const std::uint32_t sum = b.recv(head, sw, c, id, Combine::Copy);
        // The gather legs use the channel's second buffer (see kNvlsGatherLane).
        const int gather = c + nch;
        b.send(head, sw, gather, id, sum);
        const std::uint32_t result = b.recv(sw, head, gather, id, Combine::Copy);
        for (int r = 0; r < n; ++r) b.send(sw, r, gather, id, result);
        for (int r = 0; r < n; ++r) b.recv(r, sw, gather, id, Combine::Copy);
      }
    }
  }
}

}  // namespace fabricsim::collectives
