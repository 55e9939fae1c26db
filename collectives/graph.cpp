#include "collectives/graph.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

#include "collectives/protocol.hpp"

namespace fabricsim::collectives {
namespace {

// Inter-node speed arrays, GB/s (src/graph/search.cc speedArrayInter, sm90SpeedArrayInter).
constexpr std::array<double, 19> kSpeedInter{48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0,
                                             12.0, 10.0, 9.0,  7.0,  6.0,  5.0,  4.0,
                                             3.0,  2.4,  1.2,  0.24, 0.12};
constexpr std::array<double, 17> kSpeedInterSm90{48.0, 45.0, 42.0, 40.0, 30.0, 24.0,
                                                 22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
                                                 3.0,  2.4,  1.2,  0.24, 0.12};
constexpr std::array<double, 20> kSpeedInterSm100{96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0,
                                                  30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                                  6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

std::span<const double> speeds_of(Arch a) {
  switch (a) {
    case Arch::Hopper:
      return kSpeedInterSm90;
    case Arch::Blackwell:
      return kSpeedInterSm100;
    default:
      return kSpeedInter;
  }
}

// Intra-node speed arrays by release, GB/s (search.cc speedArrayIntra below sm90,
// sm90SpeedArrayIntra, sm100SpeedArrayIntra; 2.17's own, then 50 from 2.19, 11 from 2.21, and
// Blackwell's own array from 2.25 with 18 from 2.27 and 45 from 2.29).
constexpr std::array<double, 13> kSpeedIntraV217{44, 30, 22, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr std::array<double, 13> kSpeedIntra{40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr std::array<double, 8> kSpeedIntraSm90V217{66, 33, 24, 20, 15, 12, 6, 3};
constexpr std::array<double, 9> kSpeedIntraSm90V218{60, 40, 30, 24, 20, 15, 12, 6, 3};
constexpr std::array<double, 10> kSpeedIntraSm90V219{60, 50, 40, 30, 24, 20, 15, 12, 6, 3};
constexpr std::array<double, 11> kSpeedIntraSm90{60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
constexpr std::array<double, 10> kSpeedIntraSm100V225{90, 80, 70, 60, 50, 40, 30, 24, 20, 19};
constexpr std::array<double, 11> kSpeedIntraSm100V227{90, 80, 70, 60, 50, 40, 30, 24, 20, 19, 18};
constexpr std::array<double, 12> kSpeedIntraSm100{90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};

std::span<const double> intra_speeds(Arch a, int version) {
  if (a == Arch::Volta || a == Arch::Ampere) {
    return version >= 21800 ? std::span<const double>(kSpeedIntra) : kSpeedIntraV217;
  }
  if (a == Arch::Blackwell && version >= 22500) {
    if (version >= 22900) return kSpeedIntraSm100;
    if (version >= 22700) return kSpeedIntraSm100V227;
    return kSpeedIntraSm100V225;
  }
  if (version >= 22100) return kSpeedIntraSm90;
  if (version >= 21900) return kSpeedIntraSm90V219;
  if (version >= 21800) return kSpeedIntraSm90V218;
  return kSpeedIntraSm90V217;
}

// ncclTopoDupChannels: rings at >= 25 GB/s doubled (up to maxChannels, MAXCHANNELS / 2), at
// their speed divided by the doubling, except above SM80 for rings below 50 GB/s and more than 4
// of them (NCCL tests the compute capability > 80: Hopper and later here).
void dup_channels(Arch a, int& rings, double& gbps) {
  const bool sm90 = a == Arch::Hopper || a == Arch::Blackwell;
  if (gbps < 25.0 || (sm90 && gbps < 50.0 && rings > 4)) return;
  const int dup = std::min(2 * rings, kMaxChannels / 2);
  gbps /= (dup + rings - 1) / rings;
  rings = dup;
}

double ring_speed(std::span<const double> speeds, double max_gbps) {
  for (double s : speeds) {
    if (s <= max_gbps) return s;
  }
  return speeds.back();
}

}  // namespace

NetGraph net_graph(const Hardware& hw, int ranks_per_node) {
  const double path = hw.pci_gbps > 0 ? std::min(hw.nic_gbps, hw.pci_gbps) : hw.nic_gbps;
  NetGraph g;
  const std::span<const double> speeds = speeds_of(hw.arch);
  g.ring_gbps = g.path_gbps = ring_speed(speeds, path);
  // One ring per NIC in use (a path fast enough for several rings at this speed takes more).
  const int nics = std::clamp(std::min(hw.nics_per_host, ranks_per_node), 1, kMaxChannels / 4);
  const int per_nic = std::max(1, static_cast<int>(std::floor(path / g.ring_gbps)));
  g.rings = std::min(nics * per_nic, kMaxChannels / 4);
  dup_channels(hw.arch, g.rings, g.ring_gbps);
  g.channels = std::min(kMaxChannels, 2 * g.rings);
  // "4 compute channels per search channel" (connect.cc, ncclTopoPostset) for rings faster than
  // 45 GB/s: from 2.18.1 on Hopper while twice the channels fit in MAXCHANNELS (32 then), from
  // 2.20.3 only below 16 channels, from 2.25.1 on Blackwell too. An H100 node with 8 x 400 Gb/s
  // NICs thus runs 32 ring channels on 2.18-2.19 and 16 from 2.20.3.
  const bool rule = hw.arch == Arch::Hopper      ? hw.nccl_version >= 21801
                    : hw.arch == Arch::Blackwell ? hw.nccl_version >= 22501
                                                 : false;
  if (rule && g.ring_gbps > 45.0) {
    if (hw.nccl_version >= 22003 ? g.channels < 16 : 2 * g.channels <= 32) g.channels *= 2;
  }
  // Each tree's chain inside the node leaves every GPU once, so the trees share its NVLink;
  // with one GPU per node no tree uses NVLink.
  const double nvlink = ranks_per_node > 1 ? gpu_nvlink_gbps(hw) : 1e300;
  // The pass restarts from the first speed at most bwInter, and steps up only from bwInter
  // itself (a halved ring speed outside the array never steps up).
  g.tree_intra_gbps = g.ring_gbps;
  auto s = std::find(speeds.begin(), speeds.end(), g.ring_gbps);
  while (s != speeds.end() && s != speeds.begin() && g.tree_intra_gbps < 2 * g.ring_gbps &&
         *(s - 1) * g.rings <= nvlink) {
    g.tree_intra_gbps = *--s;
  }
  return g;
}

double gpu_nvlink_gbps(const Hardware& hw) {
  return hw.bw_intra_gbps * hw.max_channels;
}

RingGraph one_node_ring_graph(const Hardware& hw) {
  const double nvlink = gpu_nvlink_gbps(hw);
  const std::span<const double> speeds = intra_speeds(hw.arch, hw.nccl_version);
  std::size_t i = 0;
  while (i + 1 < speeds.size() && speeds[i] > nvlink) ++i;
  const auto rings_at = [&](double s) {
    return std::min(static_cast<int>(std::floor((nvlink + 1e-3) / s)), kMaxChannels / 2);
  };
  RingGraph g{rings_at(speeds[i]), speeds[i]};
  for (std::size_t j = i + 1; j < speeds.size() && speeds[j] / speeds[i] > 0.49; ++j) {
    if (rings_at(speeds[j]) * speeds[j] > g.rings * g.gbps) g = {rings_at(speeds[j]), speeds[j]};
  }
  dup_channels(hw.arch, g.rings, g.gbps);
  return g;
}

NvlsGraph nvls_graph(const Hardware& hw, int gpus) {
  NvlsGraph g;
  if (gpus < 2) return g;
  constexpr int kMaxNvlsArity = 32;  // NCCL_MAX_NVLS_ARITY, src/include/device.h
  g.heads = std::min(gpus, kMaxNvlsArity);
  const double nvlink = gpu_nvlink_gbps(hw);
  const double total = nvlink * gpus / (gpus - 1);
  const std::span<const double> speeds = intra_speeds(hw.arch, hw.nccl_version);
  // The search rounds what is left on a link to 1e-3 GB/s (search.cc SUB_ROUND).
  const auto fits = [&](double s) { return s * (g.heads + 1) <= nvlink + 1e-3; };
  std::size_t i = 0;
  while (i + 1 < speeds.size() && (speeds[i] > nvlink || speeds[i] * g.heads > total)) ++i;
  while (i + 1 < speeds.size() && !fits(speeds[i])) ++i;
  if (!fits(speeds[i])) return NvlsGraph{};
  g.bw_intra = g.bw_inter = speeds[i];
  while (i > 0 && g.bw_inter < 2 * g.bw_intra) g.bw_inter = speeds[--i];
  return g;
}

}  // namespace fabricsim::collectives
