#pragma once
// PHOLD, the standard benchmark of parallel discrete-event kernels (Fujimoto, "Performance of
// Time Warp under synthetic workloads", 1990): N nodes start with a fixed number of events each;
// handling an event schedules one new event at a uniformly random node after
// lookahead + an exponentially distributed delay. Used by kernel tests and `fabricsim bench`.
#include <cstdint>

#include "core/simulation.hpp"

namespace fabricsim::core {

struct PholdParams {
  std::uint32_t nodes = 1024;
  std::uint32_t events_per_node = 16;
  Time lookahead = kMicrosecond;   // fixed part of every delay: the kernel's lookahead
  Time mean_delay = kMicrosecond;  // mean of the exponential part
  Time end = 100 * kMicrosecond;
  std::uint32_t lps = 1;
  unsigned threads = 1;
  std::uint64_t seed = 1;
  bool trace_hash = false;
  ProgressFn progress = nullptr;  // see SimConfig
  void* progress_ctx = nullptr;
  const Ranks* ranks = nullptr;  // an MPI job: this rank runs its block of the LPs (SimConfig)
};

class Phold {
 public:
  struct Payload {};

  explicit Phold(const PholdParams& p) : p_(p) {}

  void handle(Context<Phold>& ctx, const Event<Payload>& /*ev*/) {
    Rng& rng = ctx.rng();
    const NodeId dst = rng.below(p_.nodes);
    const Time delay = p_.lookahead + static_cast<Time>(rng.exponential(double(p_.mean_delay)));
    ctx.send(dst, delay, 0);
  }

 private:
  PholdParams p_;
};

struct PholdResult {
  KernelStats stats;
  std::uint64_t trace_hash = 0;
};

// Builds and runs one PHOLD simulation (nodes cut into `lps` contiguous blocks).
PholdResult run_phold(const PholdParams& p);

}  // namespace fabricsim::core
