#include "core/stats.hpp"

#include <fmt/format.h>

namespace fabricsim::core {

std::string KernelStats::summary() const {
  const double total = process_s + merge_s + wait_s;
  auto pct = [total](double x) { return total > 0 ? 100.0 * x / total : 0.0; };
  return fmt::format(
      "events            {}\n"
      "simulated time    {}\n"
      "wall time         {:.3f} s\n"
      "events/s          {:.3g}\n"
      "threads / LPs     {} / {}\n"
      "lookahead         {}\n"
      "windows           {}\n"
      "events/window     {:.1f}\n"
      "cross-LP events   {}\n"
      "thread time       process {:.1f}%  mailbox merge {:.1f}%  barrier wait {:.1f}%\n"
      "{}",
      events, format_time(end_time), wall_s, events_per_second(), threads, lps,
      format_time(lookahead), windows, events_per_window(), mailbox_events, pct(process_s),
      pct(merge_s), pct(wait_s),
      ranks > 1
          ? fmt::format("MPI ranks         {} (threads per rank; thread time over all)\n"
                        "MPI exchange      {:.3g} MB in all, {:.0f} bytes per window; {:.1f}% of "
                        "the ranks' wall time\n",
                        ranks, double(exchanged_bytes) / 1e6,
                        windows ? double(exchanged_bytes) / double(windows) : 0.0,
                        wall_s > 0 ? 100.0 * mpi_s / (wall_s * ranks) : 0.0)
          : "");
}

}  // namespace fabricsim::core
