#pragma once
// Fork-join for work outside the kernel's rounds (building a plan's step lists, independent
// network runs): f(0) .. f(parts - 1) run at once, f(0) on the calling thread, and the call
// returns when all are done. A part that throws does not stop the others; once all have
// returned, the first exception (in part order) is rethrown.
#include <exception>
#include <thread>
#include <vector>

namespace fabricsim::core {

template <class F>
void fork_join(unsigned parts, F&& f) {
  if (parts <= 1) {
    f(0u);
    return;
  }
  std::vector<std::exception_ptr> errors(parts);
  const auto run = [&](unsigned part) {
    try {
      f(part);
    } catch (...) {
      errors[part] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(parts - 1);
  for (unsigned part = 1; part < parts; ++part) threads.emplace_back(run, part);
  run(0);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace fabricsim::core
