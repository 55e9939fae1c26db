#pragma once
// The progress line of long runs: on a terminal only, on stderr, overwritten in place.
#include <cstddef>

#include "core/stats.hpp"

namespace fabricsim::tools {

// True when stderr is a terminal and the user did not ask for quiet.
bool progress_wanted(bool quiet);

// A core::ProgressFn: "simulated 1.2ms  3.4M events/s  ETA 5s" (ETA when the end is known).
void show_progress(void* ctx, const core::Progress& p);

// A workload::CommProgressFn: "network runs 12 of 50  34s" for a training run.
void show_comm_progress(void* ctx, std::size_t done, std::size_t total);

// Clears the line once the run is over (no-op if nothing was shown).
void clear_progress();

}  // namespace fabricsim::tools
