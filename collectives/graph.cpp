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

double ring_speed(std::span<const double> speeds, double max_gbps) {
  for (double s : speeds) {
    if (s <= max_gbps) return s;
  }
  return speeds.back();
}

}  // namespace

NetGraph net_graph(const Hardware& hw, int ranks_per_node) {
  const bool sm90 = hw.arch == Arch::Hopper || hw.arch == Arch::Blackwell;
  const double path = hw.pci_gbps > 0 ? std::min(hw.nic_gbps, hw.pci_gbps) : hw.nic_gbps;
  NetGraph g;
  g.ring_gbps = sm90 ? ring_speed(kSpeedInterSm90, path) : ring_speed(kSpeedInter, path);
  // One ring per NIC in use (a path fast enough for several rings at this speed takes more).
  const int nics = std::clamp(std::min(hw.nics_per_host, ranks_per_node), 1, kMaxChannels / 4);
  const int per_nic = std::max(1, static_cast<int>(std::floor(path / g.ring_gbps)));
  g.rings = std::min(nics * per_nic, kMaxChannels / 4);
  // NCCL tests the compute capability > 80: Hopper and later here.
  const bool keep = g.ring_gbps < 25.0 || (sm90 && g.ring_gbps < 50.0 && g.rings > 4);
  if (!keep) {
    g.rings *= 2;
    g.ring_gbps /= 2;
  }
  g.channels = std::min(kMaxChannels, 2 * g.rings);
  if (sm90 && g.ring_gbps > 45.0 && g.channels < 16) g.channels *= 2;
  return g;
}

}  // namespace fabricsim::collectives
