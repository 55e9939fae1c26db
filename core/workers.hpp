#pragma once
// The thread side of a window. Worker threads live for the whole run (UNISON-style rounds,
// no task spawned per window): each round they pull logical processes, heaviest first
// (load-adaptive scheduling), and the round ends when every LP is done. LP l belongs to thread
// l mod threads: a thread takes its own LPs first and then helps with the others', so an LP's
// state stays in one core's cache from window to window unless the load needs it elsewhere
// (pulled from one shared list, S4's LPs changed cores every window and two threads ran slower
// than one). The calling thread pulls LPs too, so a round finishes even if a worker has not
// started yet. One object per simulation; nothing static.
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

namespace fabricsim::core {

class Workers {
 public:
  // More threads than cores is allowed (tests check determinism at 8 threads on 2 cores).
  explicit Workers(unsigned threads)
      : threads_(threads ? threads : 1), lanes_(std::make_unique<Lane[]>(threads_)) {}
  unsigned threads() const { return threads_; }

  // Runs `loop` (which calls run_round once per window) with the worker threads attached.
  // Each round hands out the LPs in `order`, which `loop` may re-sort between rounds.
  template <class Task, class Loop>
  void enter(const std::vector<std::uint32_t>& order, Task& task, Loop&& loop) {
    order_ = &order;
    if (threads_ == 1) {
      loop();
      return;
    }
    // Plain threads, started once per run: their start and join are synchronisation that
    // ThreadSanitizer sees (oneTBB's task hand-off it cannot, and reported it as a race).
    stop_.store(false, std::memory_order_release);
    std::vector<std::thread> workers;
    workers.reserve(threads_ - 1);
    for (unsigned w = 1; w < threads_; ++w) {
      workers.emplace_back([this, &task, w] { work(task, w); });
    }
    std::exception_ptr error;
    try {
      loop();
    } catch (...) {
      error = std::current_exception();
    }
    stop_.store(true, std::memory_order_release);
    for (std::thread& t : workers) t.join();
    if (error) std::rethrow_exception(error);
  }

  // Calls task(lp, worker) for every lp of the order given to enter() (threads take the next
  // one in order) and returns when all are done. Only the thread inside enter() calls it.
  template <class Task>
  void run_round(Task& task) {
    const std::vector<std::uint32_t>& order = *order_;
    if (threads_ == 1) {
      for (std::uint32_t lp : order) task(lp, 0u);
      return;
    }
    for (unsigned t = 0; t < threads_; ++t) lanes_[t].lps.clear();
    for (std::uint32_t lp : order) lanes_[lp % threads_].lps.push_back(lp);
    done_.store(0, std::memory_order_relaxed);
    // Releasing each lane's reset publishes the round's state to any worker whose fetch_add
    // sees it. A worker still at the last round's lanes finds them exhausted (every LP was
    // taken before the round could end) and touches nothing.
    for (unsigned t = 0; t < threads_; ++t) {
      lanes_[t].cursor.store(static_cast<std::uint64_t>(lanes_[t].lps.size()) << 32,
                             std::memory_order_release);
    }
    epoch_.fetch_add(1, std::memory_order_release);
    pull(task, 0);
    const std::size_t n = order.size();
    for (unsigned spins = 0; done_.load(std::memory_order_acquire) < n; ++spins) backoff(spins);
    if (failed_.load(std::memory_order_acquire)) {
      failed_.store(false, std::memory_order_relaxed);
      std::rethrow_exception(error_);
    }
  }

 private:
  template <class Task>
  void pull(Task& task, unsigned worker) {
    for (unsigned k = 0; k < threads_; ++k) {  // its own lane, then the others'
      Lane& lane = lanes_[(worker + k) % threads_];
      for (;;) {
        const std::uint64_t c = lane.cursor.fetch_add(1, std::memory_order_acq_rel);
        const std::uint64_t i = c & 0xffffffffu;
        if (i >= c >> 32) break;
        if (!failed_.load(std::memory_order_relaxed)) {
          try {
            task(lane.lps[i], worker);
          } catch (...) {
            bool expected = false;
            if (failed_.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
              error_ = std::current_exception();
            }
          }
        }
        done_.fetch_add(1, std::memory_order_release);
      }
    }
  }

  template <class Task>
  void work(Task& task, unsigned worker) {
    std::uint64_t seen = 0;
    for (unsigned spins = 0;;) {
      if (stop_.load(std::memory_order_acquire)) return;
      const std::uint64_t e = epoch_.load(std::memory_order_acquire);
      if (e == seen) {
        backoff(spins++);
        continue;
      }
      seen = e;
      spins = 0;
      pull(task, worker);
    }
  }

  // Spin briefly (windows are short), then give the core away (more threads than cores).
  static void backoff(unsigned spins) {
    if (spins > 64) std::this_thread::yield();
  }

  // A thread's LPs in a round, heaviest first; `cursor` is their count (high 32 bits) and the
  // next one to take (low 32 bits), in one word so that a single fetch_add claims an LP and
  // says whether any was left.
  struct alignas(64) Lane {
    std::atomic<std::uint64_t> cursor{0};
    std::vector<std::uint32_t> lps;
  };

  unsigned threads_;
  std::unique_ptr<Lane[]> lanes_;
  const std::vector<std::uint32_t>* order_ = nullptr;
  std::atomic<std::size_t> done_{0};
  std::atomic<std::uint64_t> epoch_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

}  // namespace fabricsim::core
