#pragma once
// The bare event-queue "hold" microbenchmark: pop the earliest event, push one a random delay
// later, at a fixed queue size. The ceiling for any model's events/s on this machine.
#include <cstddef>
#include <cstdint>

namespace fabricsim::tools {

struct QueueBenchResult {
  double holds_per_second = 0;
  double ns_per_hold = 0;
};

QueueBenchResult bench_event_queue(std::size_t queue_size, std::uint64_t holds);

}  // namespace fabricsim::tools
