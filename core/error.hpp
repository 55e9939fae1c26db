#pragma once
#include <stdexcept>
#include <string>

#include "core/event.hpp"

namespace fabricsim::core {

// A model broke the kernel's contract: an event in the past, or an event to another logical
// process sooner than the lookahead allows. The message names the nodes and the times.
class CausalityError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// The simulation was set up wrongly (bad partition, unknown node, ...).
class ConfigError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// An event time past the largest representable one (int64 picoseconds, about 106 days): some
// time, rate or size of the run is so large that simulated time would wrap.
class HorizonError : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

// kTimeMax in words, for messages (format_time prints it as "inf", which reads as no limit).
inline constexpr const char* kHorizonText = "2^63 ps, about 106.7 days";

[[noreturn]] void throw_past_event(NodeId from, NodeId to, Time now, Time delay);
[[noreturn]] void throw_too_soon(NodeId from, NodeId to, LpId from_lp, LpId to_lp, Time now,
                                 Time delay, Time lookahead);
[[noreturn]] void throw_no_channel(NodeId from, NodeId to, LpId from_lp, LpId to_lp);
[[noreturn]] void throw_beyond_horizon(NodeId from, NodeId to, Time now, Time delay);

// now + d for d >= 0 (a duration in picoseconds, possibly a double from a rate), or a
// HorizonError naming `what` when the sum passes the largest simulated time.
Time later(Time now, Time d, const char* what);
Time later(Time now, double d, const char* what);

}  // namespace fabricsim::core
