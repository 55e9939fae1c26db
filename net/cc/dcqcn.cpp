#include "net/cc/dcqcn.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fabricsim::net::cc::dcqcn {
namespace {

Bps floor_rate(const DcqcnParams& p, const Path& path) {
  return std::min(p.min_rate, path.line_rate);
}

// One rate-increase event (timer or byte counter), after its stage counter was bumped.
// Stages count expiries since the last CNP, so the first F events are fast recovery.
void increase(DcqcnState& s, const DcqcnParams& p, const Path& path) {
  const std::uint32_t hi = std::max(s.t_stage, s.bc_stage);
  const std::uint32_t lo = std::min(s.t_stage, s.bc_stage);
  const std::uint32_t f = p.fast_recovery_steps;
  if (hi > f) {
    // Hyper increase needs both counters past F (QCN/DCQCN): a lone timer means the flow is
    // sending too little to prove the path is free.
    const std::uint64_t step = lo > f ? std::uint64_t{lo - f} * p.rate_hai : p.rate_ai;
    s.rt = std::min(path.line_rate, s.rt + step);
  }
  // Rounding towards Rt makes Rc reach Rt exactly, so the flow can go quiescent.
  s.rc = std::midpoint(s.rt, s.rc);
  if (s.rc == path.line_rate && s.rt == path.line_rate) s.increasing = false;
}

}  // namespace

void init(DcqcnState& s, const DcqcnParams& p, const Path& path) {
  s = DcqcnState{};
  s.rc = s.rt = path.line_rate;
  s.alpha = s.alpha_base = p.alpha_init;
}

void advance(DcqcnState& s, const DcqcnParams& p, const Path& path, Time now) {
  if (!s.cnp_seen) return;
  if (now >= s.alpha_next) {
    const std::int64_t n = (now - s.alpha_base_time) / p.alpha_period;
    s.alpha = s.alpha_base * std::pow(1.0 - p.g, static_cast<double>(n));
    s.alpha_next = s.alpha_base_time + (n + 1) * p.alpha_period;
  }
  while (s.increasing && s.inc_next <= now) {
    ++s.t_stage;
    increase(s, p, path);
    s.inc_next += p.increase_period;
  }
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
  s.cnp_seen = true;
  s.rt = s.rc;
  const double cut = static_cast<double>(s.rc) * (1.0 - s.alpha / 2.0);
  s.rc = std::max(floor_rate(p, path), static_cast<Bps>(cut));
  s.alpha = (1.0 - p.g) * s.alpha + p.g;
  s.alpha_base = s.alpha;
  s.alpha_base_time = now;
  s.alpha_next = now + p.alpha_period;
  s.t_stage = s.bc_stage = 0;
  s.bytes = 0;
  s.inc_next = now + p.increase_period;
  s.increasing = true;
}

}  // namespace fabricsim::net::cc::dcqcn
