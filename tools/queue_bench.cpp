#include "tools/queue_bench.hpp"

#include <chrono>

#include "core/event_queue.hpp"
#include "core/phold.hpp"
#include "core/rng.hpp"

namespace fabricsim::tools {

QueueBenchResult bench_event_queue(std::size_t queue_size, std::uint64_t holds) {
  using E = core::Event<core::Phold::Payload>;
  core::EventQueue<E> q;
  q.reserve(queue_size);
  core::Rng rng(7, 0);
  std::uint64_t seq = 0;
  for (std::size_t i = 0; i < queue_size; ++i) {
    q.push(E{static_cast<core::Time>(rng.exponential(1e6)), 0, 0, seq++, 0, {}});
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < holds; ++i) {
    E e = q.pop();
    e.time += static_cast<core::Time>(rng.exponential(1e6)) + 1000000;
    e.seq = seq++;
    q.push(e);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  QueueBenchResult r;
  r.holds_per_second = s > 0 ? double(holds) / s : 0;
  r.ns_per_hold = holds ? 1e9 * s / double(holds) : 0;
  return r;
}

}  // namespace fabricsim::tools
