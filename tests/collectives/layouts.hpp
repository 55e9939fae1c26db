#pragma once
// Rank layouts the tests use: one host, one GPU per host, and DGX-like hosts with one NIC per
// GPU (the last host may be partial).
#include "collectives/call.hpp"

namespace fabricsim::collectives::test {

// A host of 8 NICs of 400 Gb/s (NCCL: 50 GB/s each) behind PCIe Gen5 switches, as HGX H100
// and B200 hosts have them.
inline Hardware ndr_node(Arch arch = Arch::Hopper, bool nvls = false) {
  Hardware hw;
  hw.arch = arch;
  hw.nvls = nvls;
  hw.nics_per_host = 8;
  hw.nic_gbps = 50;
  hw.pci_gbps = 48;
  return hw;
}

inline RankLayout layout_hosts(int n, int gpus_per_host, bool nvls = false) {
  RankLayout l;
  for (int r = 0; r < n; ++r) {
    l.ranks.push_back(RankInfo{r / gpus_per_host, r % gpus_per_host, r % gpus_per_host});
  }
  l.hw.nvls = nvls;
  return l;
}
inline RankLayout layout_one_host(int n, bool nvls = false) {
  return layout_hosts(n, n, nvls);
}

}  // namespace fabricsim::collectives::test
