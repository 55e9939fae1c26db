#include "net/cc/timely.hpp"

#include <algorithm>

namespace fabricsim::net::cc::timely {

void init(TimelyState& s, const TimelyParams& p, const Path& path) {
  s = TimelyState{};
  s.rate = static_cast<double>(path.line_rate);
  s.delta = p.delta != 0 ? static_cast<double>(p.delta)
                         : p.delta_fraction * static_cast<double>(path.line_rate);
}

void on_ack(TimelyState& s, const TimelyParams& p, const Path& path, const AckInfo& ack) {
  if (p.per_rtt) {
    if (ack.acked_seq <= s.update_seq) return;
    s.update_seq = ack.snd_nxt;
  } else {
    s.segment_acked += ack.acked_bytes;
    if (s.segment_acked < p.segment_bytes) return;
    s.segment_acked = 0;
  }

  const Time rtt = ack.rtt;
  if (!s.have_prev) {
    s.have_prev = true;
    s.prev_rtt = rtt;
    return;
  }
  const double new_diff = static_cast<double>(rtt - s.prev_rtt);
  s.prev_rtt = rtt;
  s.rtt_diff = (1.0 - p.ewma_alpha) * s.rtt_diff + p.ewma_alpha * new_diff;
  const double gradient = s.rtt_diff / static_cast<double>(p.min_rtt);
  const bool hai = s.hai_run >= p.hai_after;  // decided by the updates before this one

  double r = s.rate;
  bool increase = true;
  if (rtt < p.t_low) {
    r += (p.hai == TimelyHai::kAnyIncrease && hai ? p.hai_factor : 1) * s.delta;
  } else if (rtt > p.t_high) {
    r *= 1.0 - p.beta * (1.0 - static_cast<double>(p.t_high) / static_cast<double>(rtt));
    increase = false;
  } else if (gradient <= 0) {
    r += (hai ? p.hai_factor : 1) * s.delta;
  } else {
    r *= std::max(0.0, 1.0 - p.beta * gradient);
    increase = false;
  }
  const bool counts = p.hai == TimelyHai::kAnyIncrease ? increase : gradient <= 0;
  s.hai_run = counts ? s.hai_run + 1 : 0;
  const double lo = static_cast<double>(std::min(p.min_rate, path.line_rate));
  s.rate = std::clamp(r, lo, static_cast<double>(path.line_rate));
}

Bps rate(const TimelyState& s) {
  return static_cast<Bps>(s.rate + 0.5);
}

}  // namespace fabricsim::net::cc::timely
