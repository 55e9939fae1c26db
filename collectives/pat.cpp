#include "collectives/pat.hpp"

#include <algorithm>
#include <bit>
#include <vector>

#include "collectives/protocol.hpp"

namespace fabricsim::collectives {
namespace {

int ceil_log2(int n) {
  return n <= 1 ? 0 : std::bit_width(static_cast<unsigned>(n - 1));
}

using Message = std::vector<int>;  // piece offsets s, ascending

// The messages of distance `dist`: its pieces s (odd multiples of dist below n) in classes of
// equal s mod `stride` below the stride, as one class from it on, each cut into runs of
// `per_post`.
std::vector<Message> messages_of(int n, int dist, int stride, int per_post) {
  std::vector<Message> out;
  const auto cut = [&](const Message& cls) {
    for (std::size_t i = 0; i < cls.size(); i += static_cast<std::size_t>(per_post)) {
      const std::size_t end = std::min(cls.size(), i + static_cast<std::size_t>(per_post));
      out.emplace_back(cls.begin() + static_cast<std::ptrdiff_t>(i),
                       cls.begin() + static_cast<std::ptrdiff_t>(end));
    }
  };
  Message cls;
  if (dist < stride) {
    for (int residue = dist; residue < stride; residue += 2 * dist) {
      cls.clear();
      for (int s = residue; s < n; s += stride) cls.push_back(s);
      cut(cls);
    }
  } else {
    for (int s = dist; s < n; s += 2 * dist) cls.push_back(s);
    cut(cls);
  }
  return out;
}

}  // namespace

int pat_per_post(std::uint64_t chunk, std::uint64_t share, int n) {
  share = std::max<std::uint64_t>(share, 1);
  int per_post = 1;
  while (chunk / (share * static_cast<std::uint64_t>(per_post)) >= 2 && per_post < n / 2) {
    per_post *= 2;
  }
  return per_post;
}

void build_pat(PlanBuilder& b, Plan& plan, std::uint64_t chunk) {
  const int n = plan.n_ranks;
  const int nch = plan.channels;
  const bool gather = plan.op == Op::AllGather;
  // Block j is rank j's (all-gather: its input; reduce-scatter: its result), cut as the ring
  // cuts it, one slice per loop.
  int base = 0;
  const std::uint64_t loops = b.add_block_loops(chunk, 1, true, base);
  const std::uint64_t biggest = part_size(part_size(plan.bytes, n, 0), nch, 0);
  const auto wrap = [n](int r) { return (r % n + n) % n; };
  const auto id = [&](int block, int c, std::uint64_t l) {
    return base + static_cast<int>((static_cast<std::uint64_t>(wrap(block)) * nch + c) * loops + l);
  };

  const int per_post = pat_per_post(chunk, biggest, n);
  plan.slice_bytes *= static_cast<std::uint64_t>(per_post);
  // All-gather's classes follow the kernel's stride, which deeper FIFOs widen (NCCL_STEPS
  // slots); reduce-scatter's the pieces per message alone.
  int depth_agg = per_post;
  for (int depth = kNcclSteps; depth > 1 && depth_agg < n / 2; depth /= 2) depth_agg *= 2;
  const int dims = ceil_log2(n);
  const int stride = (1 << dims) / (gather ? depth_agg : per_post);
  std::vector<std::vector<Message>> msgs(static_cast<std::size_t>(dims));
  for (int d = 0; d < dims; ++d) msgs[d] = messages_of(n, 1 << d, stride, per_post);

  // A message's pieces, for the rank that sends it: all-gather sends the blocks of ranks
  // r + s - dist, reduce-scatter its partial sums for ranks r + s.
  const auto piece = [&](int r, int d, int s, int c, std::uint64_t l) {
    return id(gather ? r + s - (1 << d) : r + s, c, l);
  };
  const auto chunks_of = [&](int r, int d, const Message& m, int c, std::uint64_t l) {
    std::vector<int> ids;
    for (const int s : m) ids.push_back(piece(r, d, s, c, l));
    return ids;
  };
  // bundle[r][d][k]: the bundle of rank r's k-th message on distance 2^d (-1: one piece).
  std::vector<std::vector<std::vector<int>>> bundle(
      static_cast<std::size_t>(n), std::vector<std::vector<int>>(static_cast<std::size_t>(dims)));
  const auto send = [&](int r, int to, int d, std::size_t k, int c, std::uint64_t l,
                        std::span<const std::uint32_t> deps) {
    const Message& m = msgs[d][k];
    if (m.size() == 1) return b.send(r, to, c, piece(r, d, m.front(), c, l), deps);
    return b.send_bundle(r, to, c, bundle[r][d][k], deps);
  };
  const auto recv = [&](int r, int from, int d, std::size_t k, int c, std::uint64_t l) {
    const Message& m = msgs[d][k];
    const Combine combine = gather ? Combine::Copy : Combine::Reduce;
    if (m.size() == 1) return b.recv(r, from, c, piece(from, d, m.front(), c, l), combine);
    return b.recv_bundle(r, from, c, bundle[from][d][k], combine);
  };

  // Per rank, the receive that brought what it holds: all-gather by the block's offset t from
  // the rank; reduce-scatter by distance and the destination's offset.
  std::vector<std::uint32_t> got(static_cast<std::size_t>(n));
  std::vector<std::vector<std::uint32_t>> part(static_cast<std::size_t>(dims),
                                               std::vector<std::uint32_t>(n));
  std::vector<std::uint32_t> deps;
  for (int c = 0; c < nch; ++c) {
    for (std::uint64_t l = 0; l < loops; ++l) {
      for (int r = 0; r < n; ++r) {
        for (int d = 0; d < dims; ++d) {
          bundle[r][d].assign(msgs[d].size(), -1);
          for (std::size_t k = 0; k < msgs[d].size(); ++k) {
            if (msgs[d][k].size() > 1)
              bundle[r][d][k] = b.add_bundle(chunks_of(r, d, msgs[d][k], c, l));
          }
        }
      }
      for (int r = 0; r < n; ++r) {
        for (int i = 0; i < dims; ++i) {
          const int d = gather ? dims - 1 - i : i;
          const int dist = 1 << d;
          for (std::size_t k = 0; k < msgs[d].size(); ++k) {
            deps.clear();
            for (const int s : msgs[d][k]) {
              if (gather) {
                if (s != dist) deps.push_back(got[s - dist]);
                continue;
              }
              for (int lower = 0; lower < d; ++lower) {
                if (s + (1 << lower) < n) deps.push_back(part[lower][s]);
              }
            }
            std::sort(deps.begin(), deps.end());
            deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
            send(r, wrap(gather ? r - dist : r + dist), d, k, c, l, deps);
          }
          const int from = wrap(gather ? r + dist : r - dist);
          for (std::size_t k = 0; k < msgs[d].size(); ++k) {
            const std::uint32_t step = recv(r, from, d, k, c, l);
            for (const int s : msgs[d][k]) {
              if (gather) {
                got[s] = step;
              } else {
                part[d][s - dist] = step;
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace fabricsim::collectives
