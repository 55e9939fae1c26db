#pragma once
// Kernels of an imported workload: it gives each kernel's duration, not its shape, so the DAG
// holds one KernelKind::Given entry per distinct duration.
#include <cstdint>
#include <map>

#include "workload/training.hpp"

namespace fabricsim::workload {

class GivenKernels {
 public:
  // The index in dag.kernels of a kernel lasting `ps`, added on first use.
  std::uint32_t of(Dag& dag, std::int64_t ps) {
    const auto [it, fresh] = index_.try_emplace(ps, static_cast<std::uint32_t>(dag.kernels.size()));
    if (fresh) {
      compute::Kernel k;
      k.kind = compute::KernelKind::Given;
      k.given_ps = ps;
      dag.kernels.push_back(k);
    }
    return it->second;
  }

 private:
  std::map<std::int64_t, std::uint32_t> index_;
};

}  // namespace fabricsim::workload
