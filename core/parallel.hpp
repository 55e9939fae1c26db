#pragma once
// Coarse parallel work outside the kernel's rounds (building a plan's step lists, independent
// network runs) on oneTBB. The kernel keeps its own workers: its windows are microseconds long
// and its rounds need a barrier per window, which plain spinning threads do faster.
//
// ThreadSanitizer cannot see oneTBB's hand-offs (Debian's libtbb is not instrumented), so it
// would report every result a task writes and the caller reads after the join. The hand-offs
// are annotated instead of suppressed: the start of the loop happens before every call, every
// call before the return, which is what oneTBB guarantees. Races between two calls are still
// reported.
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <vector>

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace fabricsim::core {

namespace detail {
inline void happens_before(void* sync) {
#if defined(__SANITIZE_THREAD__)
  __tsan_release(sync);
#else
  (void)sync;
#endif
}
inline void happens_after(void* sync) {
#if defined(__SANITIZE_THREAD__)
  __tsan_acquire(sync);
#else
  (void)sync;
#endif
}
}  // namespace detail

// Calls f(i) for every i in [0, n), at most `threads` at a time, and returns when all are done.
// Threads take the next index as they become free, so the calls start in index order (callers
// put the heaviest first). Once a call throws, calls not yet started are skipped; the exception
// of the lowest index is rethrown. With threads <= 1 the calls run in order on this thread.
template <class F>
void parallel_for(unsigned threads, std::size_t n, F&& f) {
  // More threads than the machine runs at once would only queue (and oneTBB warns).
  threads = std::min<unsigned>(threads, static_cast<unsigned>(tbb::info::default_concurrency()));
  if (threads <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) f(i);
    return;
  }
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  char sync = 0;
  detail::happens_before(&sync);
  tbb::task_arena arena(static_cast<int>(threads));
  arena.execute([&] {
    tbb::parallel_for(0u, threads, [&](unsigned) {
      detail::happens_after(&sync);
      for (std::size_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < n;) {
        try {
          f(i);
        } catch (...) {
          errors[i] = std::current_exception();
          failed.store(true, std::memory_order_relaxed);
        }
      }
      detail::happens_before(&sync);
    });
  });
  detail::happens_after(&sync);
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

// The index of the calling thread inside the current parallel_for (0: the caller's own).
inline int parallel_thread_index() {
  return tbb::this_task_arena::current_thread_index();
}

}  // namespace fabricsim::core
