#pragma once
// TIMELY sender (Mittal et al., SIGCOMM'15, Algorithm 1): one rate update per round trip or
// per completion event (segment_bytes acknowledged; TimelyParams::per_rtt), from the RTT
// sample of the ACK that triggers it:
//   rtt_diff = (1 - a) rtt_diff + a (rtt - prev_rtt),  gradient = rtt_diff / minRTT
//   rtt < T_low:        R += delta
//   rtt > T_high:       R *= 1 - beta (1 - T_high / rtt)
//   gradient <= 0:      R += delta
//   otherwise:          R *= 1 - beta gradient
// An increase adds hai_factor x delta instead once the run before it qualifies (TimelyHai).
// R stays within [min_rate, line rate]. The first completion only records prev_rtt.
#include <cstdint>

#include "net/cc/feedback.hpp"
#include "net/cc/params.hpp"

namespace fabricsim::net::cc {

struct TimelyState {
  double rate = 0;      // bits per second
  double rtt_diff = 0;  // picoseconds
  double delta = 0;     // bits per second, fixed at init from delta or the line rate
  Time prev_rtt = 0;
  std::uint64_t segment_acked = 0;  // per segment: bytes acknowledged towards the next update
  std::uint64_t update_seq = 0;     // per RTT: the next update waits for an ACK beyond this
  std::uint32_t hai_run = 0;        // consecutive updates that count towards HAI
  bool have_prev = false;
};

namespace timely {

void init(TimelyState& s, const TimelyParams& p, const Path& path);
void on_ack(TimelyState& s, const TimelyParams& p, const Path& path, const AckInfo& ack);
Bps rate(const TimelyState& s);

}  // namespace timely
}  // namespace fabricsim::net::cc
