#include "net/cc/dcqcn.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fabricsim::net::cc::dcqcn {
namespace {

constexpr Time kNever = core::kTimeMax;

Bps floor_rate(const DcqcnParams& p, const Path& path) {
  return std::min(p.min_rate, path.line_rate);
}

// The first point of the grid origin + k x period strictly after t.
Time next_boundary(Time origin, Time period, Time t) {
  return t < origin ? origin : origin + ((t - origin) / period + 1) * period;
}

// Brings alpha to time t: folds in a latched CNP at its boundary, then decays in closed form.
void settle_alpha(DcqcnState& s, const DcqcnParams& p, Time t) {
  if (s.alpha_bump >= 0 && s.alpha_bump <= t) {
    const std::int64_t n = (s.alpha_bump - s.alpha_base_time) / p.alpha_period;
    s.alpha_base = s.alpha_base * std::pow(1.0 - p.g, static_cast<double>(n)) + p.g;
    s.alpha_base_time = s.alpha_bump;
    s.alpha_bump = -1;
    s.alpha = s.alpha_base;
    s.alpha_n = 0;
  }
  const std::int64_t n = (t - s.alpha_base_time) / p.alpha_period;
  if (n != s.alpha_n) {
    s.alpha = s.alpha_base * std::pow(1.0 - p.g, static_cast<double>(n));
    s.alpha_n = n;
  }
}

// One rate-increase event (timer or byte counter), after its stage counter was bumped.
// Stages count expiries since the last cut, so the first F events are fast recovery. With both
// counters, additive increase starts when either passes F and hyper increase when both have
// (QCN/DCQCN: a lone timer means the flow sends too little to prove the path is free). With the
// timer alone, its first stage past F is additive and the later ones hyper (HPCC-ns3
// RateIncEventMlx), as if a byte counter ran one stage behind it.
void increase(DcqcnState& s, const DcqcnParams& p, const Path& path) {
  const std::uint32_t hi = p.byte_counter ? std::max(s.t_stage, s.bc_stage) : s.t_stage;
  const std::uint32_t lo = p.byte_counter ? std::min(s.t_stage, s.bc_stage) : s.t_stage - 1;
  const std::uint32_t f = p.fast_recovery_steps;
  if (hi > f) {
    std::uint64_t step = p.rate_ai;
    if (lo > f) step = p.hyper_step == DcqcnHyperStep::kFixed ? p.rate_hai : (lo - f) * p.rate_hai;
    s.rt = std::min(path.line_rate, s.rt + step);
  }
  // Rounding towards Rt makes Rc reach Rt exactly, so the flow can go quiescent.
  s.rc = std::midpoint(s.rt, s.rc);
  if (s.rc == path.line_rate && s.rt == path.line_rate) s.increasing = false;
}

void cut(DcqcnState& s, const DcqcnParams& p, const Path& path, Time t) {
  settle_alpha(s, p, t);
  if (p.clamp == DcqcnClamp::kAlways ||
      (p.clamp == DcqcnClamp::kAfterTimerIncrease && s.t_stage > 0)) {
    s.rt = s.rc;
  }
  const double factor = std::max(1.0 - s.alpha / 2.0, p.min_dec_factor);
  s.rc = std::max(floor_rate(p, path), static_cast<Bps>(static_cast<double>(s.rc) * factor));
  s.t_stage = s.bc_stage = 0;
  s.bytes = 0;
  s.inc_next = t + p.increase_period;
  s.increasing = true;
}

}  // namespace

void init(DcqcnState& s, const DcqcnParams& p, const Path& path) {
  s = DcqcnState{};
  s.rc = s.rt = path.line_rate;
  s.alpha = s.alpha_base = p.alpha_init;
}

void advance(DcqcnState& s, const DcqcnParams& p, const Path& path, Time now) {
  if (!s.cnp_seen) return;
  for (;;) {
    const Time cut_t = s.cut_at >= 0 ? s.cut_at : kNever;
    const Time inc_t = s.increasing ? s.inc_next : kNever;
    if (std::min(cut_t, inc_t) > now) break;
    if (cut_t <= inc_t) {
      s.cut_at = -1;
      cut(s, p, path, cut_t);
    } else {
      ++s.t_stage;
      increase(s, p, path);
      s.inc_next += p.increase_period;
    }
  }
  settle_alpha(s, p, now);
}

void on_send(DcqcnState& s, const DcqcnParams& p, const Path& path, Time now, std::uint32_t bytes) {
  advance(s, p, path, now);
  if (!s.increasing || p.byte_counter == 0) return;
  s.bytes += bytes;
  while (s.bytes >= p.byte_counter) {
    s.bytes -= p.byte_counter;
    ++s.bc_stage;
    increase(s, p, path);
    if (!s.increasing) {
      s.bytes = 0;
      break;
    }
  }
}

void on_cnp(DcqcnState& s, const DcqcnParams& p, const Path& path, Time now) {
  advance(s, p, path, now);
  const bool first = !s.cnp_seen;
  if (first) {
    s.cnp_seen = true;
    s.alpha = s.alpha_base = p.alpha_init;
    s.alpha_base_time = now;
    s.alpha_n = 0;
    s.check_origin = now;
  }
  if (p.rate_reduce_period == 0) {
    cut(s, p, path, now);
  } else if (s.cut_at < 0) {
    s.cut_at = next_boundary(s.check_origin, p.rate_reduce_period, now);
  }
  if (p.alpha_update == DcqcnAlpha::kOnCnp) {
    s.alpha = s.alpha_base = (1.0 - p.g) * s.alpha + p.g;
    s.alpha_base_time = now;
    s.alpha_n = 0;
  } else if (!first && s.alpha_bump < 0) {
    // The first CNP only sets alpha to its initial value (HPCC-ns3 cnp_received_mlx).
    s.alpha_bump = next_boundary(s.alpha_base_time, p.alpha_period, now);
  }
}

}  // namespace fabricsim::net::cc::dcqcn
