#pragma once
// The thread side of a window: oneTBB workers pull logical processes from a shared index over
// an array sorted heaviest first (UNISON's load-adaptive scheduling), and the round ends when
// every LP is done. One object per simulation; nothing static.
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

namespace fabricsim::core {

class Workers {
 public:
  explicit Workers(unsigned threads) : threads_(threads ? threads : 1) {
    if (threads_ > 1) {
      // More threads than cores is allowed (tests check determinism at 8 threads on 2 cores).
      limit_ = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                     threads_);
      arena_ = std::make_unique<tbb::task_arena>(static_cast<int>(threads_));
    }
  }
  unsigned threads() const { return threads_; }

  // Runs `loop` with this object's threads available to run_round (once per simulation run).
  template <class F>
  void enter(F&& loop) {
    if (arena_) {
      arena_->execute(loop);
    } else {
      loop();
    }
  }

  // Calls task(lp, worker) for every lp in `order`, threads taking the next one in order.
  template <class Task>
  void run_round(const std::vector<std::uint32_t>& order, Task&& task) {
    if (threads_ == 1) {
      for (std::uint32_t lp : order) task(lp, 0u);
      return;
    }
    next_.store(0, std::memory_order_relaxed);
    failed_.store(false, std::memory_order_relaxed);
    // The atomics below are the happens-before edges between rounds that ThreadSanitizer can
    // see (oneTBB's own synchronisation is not instrumented).
    epoch_.fetch_add(1, std::memory_order_release);
    std::exception_ptr error;
    auto body = [&](unsigned worker) {
      (void)epoch_.load(std::memory_order_acquire);
      try {
        for (;;) {
          if (failed_.load(std::memory_order_relaxed)) break;
          const std::size_t i = next_.fetch_add(1, std::memory_order_relaxed);
          if (i >= order.size()) break;
          task(order[i], worker);
        }
      } catch (...) {
        failed_.store(true, std::memory_order_relaxed);
        done_.fetch_add(1, std::memory_order_release);
        throw;
      }
      done_.fetch_add(1, std::memory_order_release);
    };
    tbb::task_group group;
    for (unsigned w = 1; w < threads_; ++w) group.run([&body, w] { body(w); });
    try {
      body(0);
    } catch (...) {
      error = std::current_exception();
    }
    try {
      group.wait();
    } catch (...) {
      if (!error) error = std::current_exception();
    }
    (void)done_.load(std::memory_order_acquire);
    if (error) std::rethrow_exception(error);
  }

 private:
  unsigned threads_;
  std::unique_ptr<tbb::global_control> limit_;
  std::unique_ptr<tbb::task_arena> arena_;
  std::atomic<std::size_t> next_{0};
  std::atomic<std::uint64_t> epoch_{0};
  std::atomic<std::uint64_t> done_{0};
  std::atomic<bool> failed_{false};
};

}  // namespace fabricsim::core
