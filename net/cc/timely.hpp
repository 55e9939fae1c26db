#pragma once
// TIMELY sender (Mittal et al., SIGCOMM'15, Algorithm 1): one rate update per round trip or
// per completion event (segment_bytes acknowledged; TimelyParams::per_rtt), from the RTT
// sample of the ACK that triggers it:
//   rtt_diff = (1 - a) rtt_diff + a (rtt - prev_rtt),  gradient = rtt_diff / minRTT
//   rtt < T_low:        R += delta
//   rtt > T_high:       R *= 1 - beta (1 - T_high / rtt)
//   gradient <= 0:      R += N delta  (N = hai_factor after hai_after such events in a row)
//   otherwise:          R *= 1 - beta gradient
// R stays within [min_rate, line rate]. The first completion only records prev_rtt.
#include <cstdint>

#include "net/cc/feedback.hpp"
#include "net/cc/params.hpp"

namespace fabricsim::net::cc {

struct TimelyState {
  double rate = 0;      // bits per second
  double rtt_diff = 0;  // picoseconds
  Time prev_rtt = 0;
  std::uint64_t segment_acked = 0;  // per segment: bytes acknowledged towards the next update
  std::uint64_t update_seq = 0;     // per RTT: the next update waits for an ACK beyond this
  std::uint32_t negative_run = 0;   // consecutive completions with gradient <= 0
  bool have_prev = false;
};

namespace timely {

void init(TimelyState& s, const TimelyParams& p, const Path& path);
void on_ack(TimelyState& s, const TimelyParams& p, const Path& path, const AckInfo& ack);
Bps rate(const TimelyState& s);

}  // namespace timely
}  // namespace fabricsim::net::cc
