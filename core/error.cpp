#include "core/error.hpp"

#include <fmt/format.h>

namespace fabricsim::core {

void throw_past_event(NodeId from, NodeId to, Time now, Time delay) {
  throw CausalityError(fmt::format(
      "event in the past: node {} at t={} scheduled an event for node {} at t={} (delay {})", from,
      format_time(now), to, format_time(now + delay), format_time(delay)));
}

void throw_too_soon(NodeId from, NodeId to, LpId from_lp, LpId to_lp, Time now, Time delay,
                    Time lookahead) {
  throw CausalityError(fmt::format(
      "event across logical processes sooner than the lookahead: node {} (LP {}) at t={} sent to "
      "node {} (LP {}) for t={}, a delay of {} < lookahead {}; declare a channel with the real "
      "minimum delay between these nodes",
      from, from_lp, format_time(now), to, to_lp, format_time(now + delay), format_time(delay),
      format_time(lookahead)));
}

void throw_no_channel(NodeId from, NodeId to, LpId from_lp, LpId to_lp) {
  throw CausalityError(fmt::format(
      "node {} (LP {}) sent an event to node {} (LP {}) but no channel joins these logical "
      "processes; declare the channel",
      from, from_lp, to, to_lp));
}

void throw_beyond_horizon(NodeId from, NodeId to, Time now, Time delay) {
  throw HorizonError(fmt::format(
      "simulated time would overflow: node {} at t={} scheduled an event for node {} {} later, "
      "beyond the largest simulated time ({}); a time, rate or size in the run is too large",
      from, format_time(now), to, format_time(delay), kHorizonText));
}

namespace {

[[noreturn]] void throw_later(Time now, double d, const char* what) {
  throw HorizonError(fmt::format(
      "simulated time would overflow: {} started at t={} would end {:.3g} s later, beyond the "
      "largest simulated time ({}); a time, rate or size in the run is too large",
      what, format_time(now), d * 1e-12, kHorizonText));
}

}  // namespace

Time later(Time now, Time d, const char* what) {
  if (d > kTimeMax - now) throw_later(now, double(d), what);
  return now + d;
}

Time later(Time now, double d, const char* what) {
  // Doubles at this scale are not exact: refuse anything within a microsecond of the limit.
  if (!(d < double(kTimeMax - now) - 1e6)) throw_later(now, d, what);
  return now + static_cast<Time>(d);
}

}  // namespace fabricsim::core
