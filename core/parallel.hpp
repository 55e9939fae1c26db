#pragma once
// Coarse parallel work outside the kernel's rounds (building a plan's step lists, independent
// network runs) on oneTBB. The kernel keeps its own workers: its windows are microseconds long
// and its rounds need a barrier per window, which plain spinning threads do faster.
//
// ThreadSanitizer builds run the same calls on std::threads instead. Debian's libtbb is not
// built with ThreadSanitizer, so its synchronisation is invisible, and oneTBB's inline header
// code (arena set-up, task spawning and stealing) is reported as racing with the library;
// suppressing those reports by their innermost frame was tried and kept finding new ones, and
// suppressing every stack with a oneTBB frame would hide races between our own calls too. With
// threads the checker sees every hand-off, and the calls, the order they start in and the error
// handling are the same code.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <vector>

#if defined(__SANITIZE_THREAD__)
#include <thread>
#else
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

namespace fabricsim::core {

namespace detail {
// Runs body() on `threads` threads at once (this one among them) and returns when all return.
template <class Body>
void on_threads(unsigned threads, Body& body) {
#if defined(__SANITIZE_THREAD__)
  std::vector<std::thread> others;
  for (unsigned t = 1; t < threads; ++t) others.emplace_back([&body] { body(); });
  body();
  for (std::thread& t : others) t.join();
#else
  tbb::task_arena arena(static_cast<int>(threads));
  arena.execute([&] { tbb::parallel_for(0u, threads, [&](unsigned) { body(); }); });
#endif
}

inline unsigned machine_threads() {
#if defined(__SANITIZE_THREAD__)
  return std::max(1u, std::thread::hardware_concurrency());
#else
  return static_cast<unsigned>(tbb::info::default_concurrency());
#endif
}
}  // namespace detail

// The threads this machine runs at once.
inline unsigned machine_threads() {
  return detail::machine_threads();
}

// Calls f(i) for every i in [0, n), at most `threads` at a time, and returns when all are done.
// Threads take the next index as they become free, so the calls start in index order (callers
// put the heaviest first). Once a call throws, calls not yet started are skipped; the exception
// of the lowest index is rethrown. With threads <= 1 the calls run in order on this thread.
template <class F>
void parallel_for(unsigned threads, std::size_t n, F&& f) {
  // More threads than the machine runs at once would only queue (and oneTBB warns).
  threads = std::min(threads, detail::machine_threads());
  if (threads <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto body = [&] {
    for (std::size_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < n;) {
      try {
        f(i);
      } catch (...) {
        errors[i] = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
    }
  };
  detail::on_threads(threads, body);
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

// Calls work(i) for every i in [0, n), at most `threads` at a time, and report(i) in index
// order, each as soon as it and every one before it are done: what report() prints is what a
// serial run prints, whatever the number of threads. `start(k)`: the index the k-th call works
// on (the identity by default; a permutation that starts the heaviest first keeps the threads
// busy to the end). work() must not throw; report() runs on one thread at a time.
template <class Work, class Report>
void parallel_in_order(unsigned threads, std::size_t n, Work work, Report report,
                       const std::vector<std::size_t>& start = {}) {
  std::mutex m;
  std::vector<char> done(n, 0);
  std::size_t next = 0;
  parallel_for(threads, n, [&](std::size_t k) {
    const std::size_t i = start.empty() ? k : start[k];
    work(i);
    const std::lock_guard<std::mutex> lock(m);
    done[i] = 1;
    while (next < n && done[next]) report(next++);
  });
}

}  // namespace fabricsim::core
