#include "tools/progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace fabricsim::tools {

bool progress_wanted(bool quiet) {
  return !quiet && isatty(fileno(stderr));
}

void show_progress(void* /*ctx*/, const core::Progress& p) {
  const double rate = p.wall_s > 0 ? double(p.events) / p.wall_s : 0;
  std::string eta;
  if (p.end != core::kTimeMax && p.now > 0) {
    const double left = p.wall_s * double(p.end - p.now) / double(p.now);
    eta = "  ETA " + std::to_string(static_cast<long long>(left + 0.5)) + "s";
  }
  std::fprintf(stderr, "\r\033[K  simulated %s  %.3g events/s%s", core::format_time(p.now).c_str(),
               rate, eta.c_str());
  std::fflush(stderr);
}

void show_comm_progress(void* ctx, std::size_t done, std::size_t total) {
  const auto* start = static_cast<const std::chrono::steady_clock::time_point*>(ctx);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - *start).count();
  std::fprintf(stderr, "\r\033[K  network runs %zu of %zu  %.0fs", done, total, wall);
  std::fflush(stderr);
}

void clear_progress() {
  if (isatty(fileno(stderr))) std::fprintf(stderr, "\r\033[K");
}

}  // namespace fabricsim::tools
