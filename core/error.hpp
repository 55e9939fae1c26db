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

[[noreturn]] void throw_past_event(NodeId from, NodeId to, Time now, Time delay);
[[noreturn]] void throw_too_soon(NodeId from, NodeId to, LpId from_lp, LpId to_lp, Time now,
                                 Time delay, Time lookahead);
[[noreturn]] void throw_no_channel(NodeId from, NodeId to, LpId from_lp, LpId to_lp);

}  // namespace fabricsim::core
