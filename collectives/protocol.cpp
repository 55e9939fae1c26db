#include "collectives/protocol.hpp"

#include <algorithm>
#include <array>
#include <bit>

#include "collectives/tuner_constants.hpp"

namespace fabricsim::collectives {
namespace {

int index(Proto p) {
  switch (p) {
    case Proto::LL:
      return 0;
    case Proto::LL128:
      return 1;
    default:
      return 2;  // Simple (Auto is resolved before costs are asked for)
  }
}

bool ring_grouped(Op op, Algo a, Proto p) {
  return a == Algo::Ring && p == Proto::Simple &&
         (op == Op::AllReduce || op == Op::AllGather || op == Op::ReduceScatter);
}

}  // namespace

std::uint64_t buffer_bytes(Proto p, std::uint64_t buffsize) {
  switch (p) {
    case Proto::LL:
      return 8ull * 512 * kNcclSteps * 16;  // lines x threads x steps x 16 B
    case Proto::LL128:
      return 120ull * 640 * kNcclSteps * 8;  // elems x threads x steps x 8 B
    default:
      return buffsize;
  }
}

std::uint64_t step_payload(Proto p, std::uint64_t buffsize) {
  const std::uint64_t step = buffer_bytes(p, buffsize) / kNcclSteps;
  switch (p) {
    case Proto::LL:
      return step / 2;  // calcCollChunking halves LL chunks (flags)
    case Proto::LL128:
      return step / 16 * 15;  // and scales LL128 by 15/16
    default:
      return step;
  }
}

double wire_efficiency(Proto p) {
  switch (p) {
    case Proto::LL:
      return 0.5;
    case Proto::LL128:
      return 120.0 / 128.0;
    default:
      return 1.0;
  }
}

std::uint64_t wire_bytes(Proto p, std::uint64_t payload) {
  switch (p) {
    case Proto::LL:
      return 2 * payload;
    case Proto::LL128:
      return (payload * 128 + 119) / 120;
    default:
      return payload;
  }
}

int slice_steps(Op op, Algo a, Proto p) {
  return ring_grouped(op, a, p) ? kNcclSteps / 4 : 1;
}
int chunk_steps(Op op, Algo a, Proto p) {
  return ring_grouped(op, a, p) ? kNcclSteps / 2 : 1;
}

std::uint64_t chunk_payload(Op op, Algo a, Proto p, bool p2p_over_nvlink, std::uint64_t buffsize) {
  if (a == Algo::Nvls || a == Algo::NvlsTree) return 128ull << 10;
  if (a == Algo::P2P) return p2p_over_nvlink ? 512ull << 10 : 128ull << 10;
  return step_payload(p, buffsize) * static_cast<std::uint64_t>(chunk_steps(op, a, p));
}

NvlsSetup nvls_setup(const Hardware& hw, int nodes, int ppn) {
  constexpr std::uint64_t k = 1024;
  NvlsSetup s;
  const bool blackwell = hw.arch == Arch::Blackwell;
  if (blackwell) s.channels = nodes > 1 || hw.nccl_version < 22703 ? 32 : 24;
  if (blackwell && nodes > 1 && hw.nccl_version >= 23003) {
    const double nic = hw.nic_gbps;  // NCCL's minNetBw, GB/s
    // PATH_PXB or closer: the NIC behind a PCIe switch (or C2C), not across the CPU.
    const bool near = hw.nic_path != NicPath::Cpu;
    if (nodes == 2 && nic >= 48) {
      s.tree_max_chunk = 128 * k;
      if (ppn <= 4) {
        s.chunk = s.tree_max_chunk = 256 * k;
      } else if (ppn >= 16 || (ppn <= 8 && near && nic < 96)) {
        s.tree_max_chunk = 64 * k;
      }
    } else if (nic >= 96) {
      if (ppn <= 8) {
        s.channels = 24;
        s.chunk = s.tree_max_chunk = 256 * k;
      } else {
        s.tree_max_chunk = ppn < 32 ? 128 * k : 64 * k;
      }
    } else if (nic >= 48) {
      s.channels = 24;
      s.tree_max_chunk = near ? 64 * k : 128 * k;
    }
  }
  if (s.tree_max_chunk == 0) s.tree_max_chunk = nodes >= 4 ? 64 * k : s.chunk;
  return s;
}

std::uint64_t nvls_tree_chunk(std::uint64_t bytes, int channels, int heads,
                              const NvlsSetup& setup) {
  std::uint64_t chunk = std::min(setup.chunk, setup.tree_max_chunk);
  const std::uint64_t ops =
      static_cast<std::uint64_t>(channels) * static_cast<std::uint64_t>(heads);
  if (bytes < 32 * ops * chunk && chunk > 262144) chunk = 262144;
  if (bytes < 16 * ops * chunk && chunk > 131072) chunk = 131072;
  if (bytes < 4 * ops * chunk && chunk > 65536) chunk = 65536;
  if (bytes < ops * chunk && chunk > 32768) chunk = 32768;
  return chunk;
}

std::uint64_t nvls_multinode_chunk(std::uint64_t bytes, int channels, int heads,
                                   const NvlsSetup& setup, double nvls_algbw_gbps) {
  std::uint64_t chunk = setup.chunk;
  if (nvls_algbw_gbps < 150) chunk = std::min<std::uint64_t>(chunk, 32768);
  const std::uint64_t ops =
      static_cast<std::uint64_t>(channels) * static_cast<std::uint64_t>(heads);
  if (bytes < 64 * ops * chunk && chunk > 65536) chunk = 65536;
  if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
  if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
  return chunk;
}

std::uint64_t pat_chunk(Op op, std::uint64_t bytes, int channels, std::uint64_t buffsize) {
  std::uint64_t chunk = buffsize / kNcclSteps;
  const std::uint64_t fill = op == Op::AllGather ? 32 : 16;
  while (chunk * static_cast<std::uint64_t>(channels) * fill > bytes && chunk > 65536) chunk /= 2;
  return chunk;
}

std::uint64_t collnet_chain_chunk(std::uint64_t bytes, int channels, int ppn,
                                  std::uint64_t buffsize) {
  std::uint64_t chunk = std::min<std::uint64_t>(256 * 1024, buffsize / kNcclSteps);
  const auto per_channel = [&] { return bytes / (static_cast<std::uint64_t>(channels) * chunk); };
  const auto depth = static_cast<std::uint64_t>(ppn);
  while (per_channel() < depth * 64 && chunk > 131072) chunk /= 2;
  while (per_channel() < depth * 8 && chunk > 65536) chunk /= 2;
  while (per_channel() < depth && chunk > 32768) chunk /= 2;
  return chunk;
}

std::uint64_t collnet_direct_chunk(std::uint64_t bytes, int channels, int heads, int ppn,
                                   std::uint64_t buffsize) {
  std::uint64_t chunk = buffsize / kNcclSteps;
  const std::uint64_t ops =
      static_cast<std::uint64_t>(channels) * static_cast<std::uint64_t>(heads);
  const std::uint64_t depth = ppn > 1 ? 2 : 1;  // connect.cc: 1 when a GPU has no peers
  const auto per_op = [&] { return bytes / (ops * chunk); };
  while (per_op() < depth * 64 && chunk > 131072) chunk /= 2;
  while (per_op() < depth * 8 && chunk > 65536) chunk /= 2;
  while (per_op() < depth * 8 && chunk > 32768) chunk /= 2;
  return chunk;
}

std::uint64_t tree_ll128_chunk(std::uint64_t chunk, std::uint64_t bytes, int channels, int ranks,
                               int nodes) {
  const double ppn = static_cast<double>(ranks) / nodes;
  const int log_nodes = nodes <= 1 ? 0 : std::bit_width(static_cast<unsigned>(nodes)) - 1;
  const double steps = 1 + log_nodes + 0.1 * ppn;
  const auto per_channel = [&] { return bytes / (static_cast<std::uint64_t>(channels) * chunk); };
  while (static_cast<double>(per_channel()) < steps * 64 / ppn && chunk > 131072) chunk /= 2;
  while (static_cast<double>(per_channel()) < steps * 16 / ppn && chunk > 32768) chunk /= 2;
  return chunk;
}

int credits(Op op, Algo a, Proto p) {
  return kNcclSteps / slice_steps(op, a, p);
}

double base_latency_us(Algo a, Proto p, int version) {
  return tuner_constants(version).base_lat[static_cast<std::size_t>(table_algo(a))][index(p)];
}

double hw_latency_us(Algo a, Proto p, Hop h, int version) {
  return tuner_constants(version)
      .hw_lat[static_cast<std::size_t>(h)][static_cast<std::size_t>(table_algo(a))][index(p)];
}

}  // namespace fabricsim::collectives
