#include "collectives/ring.hpp"

#include <algorithm>
#include <vector>

#include "core/parallel.hpp"

namespace fabricsim::collectives {
namespace {

std::vector<int> positions(const std::vector<int>& order) {
  std::vector<int> pos(order.size());
  for (int p = 0; p < static_cast<int>(order.size()); ++p) pos[order[p]] = p;
  return pos;
}

}  // namespace

void build_ring_collective(PlanBuilder& b, Plan& plan, const RankLayout& layout, const Hosts& hosts,
                           std::uint64_t chunk, int slices, unsigned threads) {
  const int n = plan.n_ranks;
  const int nch = plan.channels;
  // Block j is the part of the buffer rank j ends up owning in reduce-scatter (and
  // contributes in all-gather); each block is shared by the channels, then cut in loops.
  int base = 0;
  const std::uint64_t loops = b.add_block_loops(chunk, slices, plan.op != Op::AllReduce, base);
  const auto id = [&](int block, int c, std::uint64_t l, int s) {
    return base + static_cast<int>(
                      ((static_cast<std::uint64_t>(block) * nch + c) * loops + l) * slices + s);
  };

  const bool scatter = plan.op != Op::AllGather;
  const bool gather = plan.op != Op::ReduceScatter;
  // Every rank sends and receives (n - 1) slices per phase, loop and channel.
  const std::size_t per_rank =
      static_cast<std::size_t>(nch) * loops * ((scatter ? 1 : 0) + (gather ? 1 : 0)) *
      static_cast<std::size_t>(n - 1) * static_cast<std::size_t>(slices) * 2;
  std::vector<std::vector<int>> orders;
  for (int c = 0; c < nch; ++c) orders.push_back(ring_order(hosts, layout, c));
  // Part `part` of `parts` adds the steps of the ranks r with r % parts == part, each rank's in
  // the same order as one pass would: a rank's list, and every step's dependencies and
  // connection sequence numbers, are its own, so the plan is the same for any part count.
  const auto build = [&](PlanBuilder& pb, int part, int parts) {
    for (int r = part; r < n; r += parts) pb.reserve_steps(r, per_rank);
    std::vector<std::uint32_t> last(static_cast<std::size_t>(slices));
    for (int c = 0; c < nch; ++c) {
      const std::vector<int>& ord = orders[static_cast<std::size_t>(c)];
      const auto at = [&](int p) { return ord[static_cast<std::size_t>(((p % n) + n) % n)]; };
      for (int p = 0; p < n; ++p) {
        const int r = ord[p], next = at(p + 1), prev = at(p - 1);
        if (r % parts != part) continue;
        for (std::uint64_t l = 0; l < loops; ++l) {
          // Reduce-scatter: the block of the rank at position q leaves q+1 first and is
          // complete when it reaches q after n-1 hops.
          for (int k = 0; scatter && k < n - 1; ++k) {
            for (int s = 0; s < slices; ++s) {
              const std::span<const std::uint32_t> deps(&last[s], k > 0 ? 1 : 0);
              pb.send(r, next, c, id(at(p - 1 - k), c, l, s), deps, kNoRail, s);
              last[s] = pb.recv(r, prev, c, id(at(p - 2 - k), c, l, s), Combine::Reduce);
            }
          }
          // All-gather: each rank forwards the block it completed (or owns) around the ring.
          for (int k = 0; gather && k < n - 1; ++k) {
            for (int s = 0; s < slices; ++s) {
              const std::span<const std::uint32_t> deps(&last[s], k > 0 || scatter ? 1 : 0);
              pb.send(r, next, c, id(at(p - k), c, l, s), deps, kNoRail, s);
              last[s] = pb.recv(r, prev, c, id(at(p - 1 - k), c, l, s), Combine::Copy);
            }
          }
        }
      }
    }
  };
  // `b` holds only the chunks; connections and their sequence numbers are each part's own.
  const unsigned parts = std::clamp<unsigned>(threads, 1, static_cast<unsigned>(n));
  core::parallel_for(parts, parts, [&](std::size_t part) {
    PlanBuilder pb(plan, hosts, b.whole());
    build(pb, static_cast<int>(part), static_cast<int>(parts));
  });
}

void build_ring_chain(PlanBuilder& b, Plan& plan, const RankLayout& layout, const Hosts& hosts,
                      int root, std::uint64_t chunk) {
  const int n = plan.n_ranks;
  const int nch = plan.channels;
  int base = 0;
  const std::uint64_t loops = b.add_channel_loops(chunk, root, base);
  const bool reduce = plan.op == Op::Reduce;
  for (int c = 0; c < nch; ++c) {
    const std::vector<int> ord = ring_order(hosts, layout, c);
    const int start = positions(ord)[root] + (reduce ? 1 : 0);
    std::vector<int> chain(n);
    for (int i = 0; i < n; ++i) chain[i] = ord[(start + i) % n];
    for (int i = 0; i < n; ++i) {
      for (std::uint64_t l = 0; l < loops; ++l) {
        const int chunk_id = base + c * static_cast<int>(loops) + static_cast<int>(l);
        if (i == 0) {
          b.send(chain[0], chain[1], c, chunk_id);
          continue;
        }
        const std::uint32_t got =
            b.recv(chain[i], chain[i - 1], c, chunk_id, reduce ? Combine::Reduce : Combine::Copy);
        if (i + 1 < n) b.send(chain[i], chain[i + 1], c, chunk_id, got);
      }
    }
  }
}

}  // namespace fabricsim::collectives
