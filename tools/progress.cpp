#include "tools/progress.hpp"

#include <unistd.h>

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

void clear_progress() {
  if (isatty(fileno(stderr))) std::fprintf(stderr, "\r\033[K");
}

}  // namespace fabricsim::tools
