#pragma once
// Rank layouts the tests use: one host, one GPU per host, and DGX-like hosts with one NIC per
// GPU (the last host may be partial).
#include "collectives/call.hpp"

namespace fabricsim::collectives::test {

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
