#pragma once
// What the kernel reports about a run.
#include <cstdint>
#include <string>

#include "core/time.hpp"

namespace fabricsim::core {

struct KernelStats {
  std::uint64_t events = 0;           // handler calls
  std::uint64_t windows = 0;          // synchronisation rounds
  std::uint64_t mailbox_events = 0;   // events that crossed logical processes
  unsigned threads = 1;               // per MPI rank
  std::uint32_t lps = 1;              // over all ranks
  int ranks = 1;                      // MPI processes (core/ranks.hpp)
  double mpi_s = 0;                   // summed over ranks: exchanging mailboxes, the allreduce
  std::uint64_t exchanged_bytes = 0;  // sent between ranks, over the run
  Time lookahead = kTimeMax;
  Time end_time = 0;     // simulated time reached
  bool cut_off = false;  // events were still due when the run reached its end time
  double wall_s = 0;     // whole run
  double process_s = 0;  // summed over threads: event-list work and handlers
  double merge_s = 0;    // summed over threads: draining mailboxes into event lists
  double wait_s = 0;     // summed over threads: idle at the end of a window (barrier wait)

  double events_per_window() const { return windows ? double(events) / double(windows) : 0; }
  double events_per_second() const { return wall_s > 0 ? double(events) / wall_s : 0; }
  // Share of thread-time spent waiting at window barriers.
  double barrier_share() const {
    const double total = process_s + merge_s + wait_s;
    return total > 0 ? wait_s / total : 0;
  }
  std::string summary() const;
};

// Where a run is, reported from the coordinating thread between windows.
struct Progress {
  Time now = 0;  // simulated time reached (start of the next window)
  Time end = kTimeMax;
  std::uint64_t events = 0;
  double wall_s = 0;
};
// Called at most every `SimConfig::progress_every_s` of wall time; `ctx` is the caller's.
using ProgressFn = void (*)(void* ctx, const Progress& p);

}  // namespace fabricsim::core
