#pragma once
// Runs a plan abstractly: every participant keeps, per chunk, the set of ranks whose data the
// chunk holds (a bit mask, so n <= 64). Sends snapshot the set into their connection, receives
// fold it in (Reduce: disjoint union, else double counting) or overwrite it (Copy). Any step
// whose deps are done may fire; a send also needs a free slot (Plan::credits), a receive the
// matching send. Stuck with steps left = deadlock (a cycle through deps, credits or FIFOs).
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/plan.hpp"

namespace fabricsim::collectives::test {

using Mask = std::uint64_t;

struct Execution {
  std::string error;                      // empty when the plan ran to completion without violation
  std::vector<std::vector<Mask>> state;   // [participant][chunk]
  std::vector<std::uint64_t> sent_bytes;  // payload per participant
  std::vector<std::uint64_t> sends;       // send steps per participant
};

// The state NCCL's semantics start from (each rank's own input).
std::vector<std::vector<Mask>> initial_state(const Plan& plan, int root);
Execution execute(const Plan& plan, std::vector<std::vector<Mask>> state);
// Empty if the final state is what the op promises, else what is wrong.
std::string check_result(const Plan& plan, const Execution& ex, int root);

}  // namespace fabricsim::collectives::test
