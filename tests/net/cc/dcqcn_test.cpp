#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>

#include "net/cc/congestion_control.hpp"

using namespace fabricsim::net::cc;
using fabricsim::core::kMicrosecond;
using fabricsim::core::kMillisecond;
using fabricsim::core::kSecond;

namespace {

constexpr Bps kLine = 100'000'000'000ULL;  // 100 Gb/s, even so that halving is exact
constexpr Time kRtt = 10 * kMicrosecond;
constexpr std::uint32_t kMtu = 4096;

// The paper variant: the tests below check the published algorithm step by step.
Params dcqcn_params() {
  Params p;
  p.kind = Kind::kDcqcn;
  p.dcqcn = dcqcn_paper();
  return p;
}

Params connectx_params() {
  Params p;
  p.kind = Kind::kDcqcn;
  return p;
}

// The first rate-reduce check strictly after t (checks run from the first CNP, at time 0 in the
// tests that use this).
Time next_check(const DcqcnParams& d, Time t) {
  return (t / d.rate_reduce_period + 1) * d.rate_reduce_period;
}

State fresh(const Params& p) {
  State s;
  init(s, p, kLine, kRtt, kMtu);
  return s;
}

bool same(const DcqcnState& a, const DcqcnState& b) {
  return a.rc == b.rc && a.rt == b.rt && a.alpha == b.alpha && a.alpha_base == b.alpha_base &&
         a.alpha_base_time == b.alpha_base_time && a.alpha_n == b.alpha_n &&
         a.alpha_bump == b.alpha_bump && a.check_origin == b.check_origin && a.cut_at == b.cut_at &&
         a.inc_next == b.inc_next && a.t_stage == b.t_stage && a.bc_stage == b.bc_stage &&
         a.bytes == b.bytes && a.cnp_seen == b.cnp_seen && a.increasing == b.increasing;
}

}  // namespace

TEST_CASE("dcqcn: starts at line rate without a window and without timers", "[cc][dcqcn]") {
  const Params p = dcqcn_params();
  State s = fresh(p);
  REQUIRE(rate(s) == kLine);
  REQUIRE(window_bytes(s) == 0);
  advance(s, p, 1 * kSecond);
  on_send(s, p, 1 * kSecond, 100'000'000);
  REQUIRE(rate(s) == kLine);
  REQUIRE(s.dcqcn.alpha == p.dcqcn.alpha_init);
}

TEST_CASE("dcqcn: the first CNP from line rate with alpha = 1 halves the rate", "[cc][dcqcn]") {
  const Params p = dcqcn_params();
  State s = fresh(p);
  const Time t0 = 3 * kMillisecond;  // timers must not have run before the first CNP
  advance(s, p, t0);
  on_cnp(s, p, t0);
  REQUIRE(rate(s) == kLine / 2);
  REQUIRE(s.dcqcn.rt == kLine);
  // alpha = (1 - g) * 1 + g
  REQUIRE(s.dcqcn.alpha == Approx(1.0).epsilon(1e-15));

  // A second CNP right away: Rt follows Rc, and Rc is cut by the (still 1) alpha.
  on_cnp(s, p, t0 + 1);
  REQUIRE(s.dcqcn.rt == kLine / 2);
  REQUIRE(rate(s) == kLine / 4);
}

TEST_CASE("dcqcn: alpha decays by (1-g) per silent alpha period", "[cc][dcqcn]") {
  Params p = dcqcn_params();
  p.dcqcn.g = 1.0 / 16;  // larger than the default so that the decay is visible
  State s = fresh(p);
  const Time t0 = 7 * kMicrosecond;
  on_cnp(s, p, t0);
  const double a0 = s.dcqcn.alpha;
  const Time k_period = p.dcqcn.alpha_period;
  for (int k : {1, 2, 3, 5, 17, 100}) {
    State before = s;
    advance(before, p, t0 + k * k_period - 1);
    CHECK(before.dcqcn.alpha == Approx(a0 * std::pow(1 - p.dcqcn.g, k - 1)).epsilon(1e-12));
    State at = s;
    advance(at, p, t0 + k * k_period);
    CHECK(at.dcqcn.alpha == Approx(a0 * std::pow(1 - p.dcqcn.g, k)).epsilon(1e-12));
  }
  // A CNP after k silent periods folds the decayed alpha into the EWMA.
  advance(s, p, t0 + 4 * k_period);
  on_cnp(s, p, t0 + 4 * k_period);
  const double decayed = a0 * std::pow(1 - p.dcqcn.g, 4);
  REQUIRE(s.dcqcn.alpha == Approx((1 - p.dcqcn.g) * decayed + p.dcqcn.g).epsilon(1e-12));
  // ... and the cut used the decayed alpha: Rc = Rt (1 - alpha/2), truncated to whole b/s.
  REQUIRE(static_cast<double>(s.dcqcn.rc) ==
          Approx(static_cast<double>(s.dcqcn.rt) * (1 - decayed / 2)).margin(1));
}

TEST_CASE("dcqcn: fast recovery halves the gap to Rt per timer stage for F stages", "[cc][dcqcn]") {
  Params p = dcqcn_params();
  p.dcqcn.byte_counter = 0;  // timer only
  State s = fresh(p);
  on_cnp(s, p, 0);
  const Bps gap0 = s.dcqcn.rt - s.dcqcn.rc;
  REQUIRE(gap0 == kLine / 2);
  const Time t = p.dcqcn.increase_period;
  for (std::uint32_t j = 1; j <= p.dcqcn.fast_recovery_steps; ++j) {
    advance(s, p, j * t - 1);
    REQUIRE(s.dcqcn.t_stage == j - 1);
    advance(s, p, j * t);
    REQUIRE(s.dcqcn.rt == kLine);  // fast recovery never moves the target
    REQUIRE(s.dcqcn.rt - s.dcqcn.rc == gap0 >> j);
  }
}

TEST_CASE("dcqcn: additive increase adds R_AI to Rt per stage after F", "[cc][dcqcn]") {
  Params p = dcqcn_params();
  p.dcqcn.byte_counter = 1ULL << 50;  // never reached: the timer alone passes F
  State s = fresh(p);
  on_cnp(s, p, 0);
  on_cnp(s, p, 1);  // Rt = line/2 leaves room for Rt to grow
  const Time t1 = 1;
  const Time t = p.dcqcn.increase_period;
  const std::uint32_t f = p.dcqcn.fast_recovery_steps;
  advance(s, p, t1 + f * t);
  REQUIRE(s.dcqcn.rt == kLine / 2);
  for (std::uint32_t j = f + 1; j <= f + 10; ++j) {
    const Bps rt_before = s.dcqcn.rt;
    const Bps rc_before = s.dcqcn.rc;
    advance(s, p, t1 + j * t);
    REQUIRE(s.dcqcn.rt == rt_before + p.dcqcn.rate_ai);
    // Rc = (Rt + Rc) / 2 with the new Rt
    REQUIRE(s.dcqcn.rc == (s.dcqcn.rt + rc_before + 1) / 2);
  }
}

TEST_CASE("dcqcn: hyper increase once both timer and byte counter are past F", "[cc][dcqcn]") {
  Params p = dcqcn_params();
  p.dcqcn.byte_counter = 1'000'000;
  State s = fresh(p);
  on_cnp(s, p, 0);
  on_cnp(s, p, 1);
  const Time t1 = 1;
  const Time t = p.dcqcn.increase_period;
  const std::uint32_t f = p.dcqcn.fast_recovery_steps;
  const auto b = static_cast<std::uint32_t>(p.dcqcn.byte_counter);
  advance(s, p, t1 + (f + 1) * t);  // timer stage F+1: one additive step
  REQUIRE(s.dcqcn.rt == kLine / 2 + p.dcqcn.rate_ai);
  const Time tx = t1 + (f + 1) * t + 1;
  for (std::uint32_t k = 1; k <= f; ++k) {  // byte stages 1..F: still additive
    const Bps before = s.dcqcn.rt;
    on_send(s, p, tx, b);
    REQUIRE(s.dcqcn.bc_stage == k);
    REQUIRE(s.dcqcn.rt == before + p.dcqcn.rate_ai);
  }
  Bps before = s.dcqcn.rt;
  on_send(s, p, tx, b);  // both at F+1: i = 1
  REQUIRE(s.dcqcn.rt == before + p.dcqcn.rate_hai);
  before = s.dcqcn.rt;
  advance(s, p, t1 + (f + 2) * t);  // timer F+2, bytes F+1: i = 1
  REQUIRE(s.dcqcn.rt == before + p.dcqcn.rate_hai);
  before = s.dcqcn.rt;
  on_send(s, p, t1 + (f + 2) * t + 1, b);  // both F+2: i = 2
  REQUIRE(s.dcqcn.rt == before + 2 * p.dcqcn.rate_hai);
  // A byte count short of B is kept, not lost.
  on_send(s, p, t1 + (f + 2) * t + 2, b - 1);
  REQUIRE(s.dcqcn.bytes == b - 1);
}

TEST_CASE("dcqcn: without a byte counter the timer alone goes from additive to hyper increase",
          "[cc][dcqcn]") {
  Params p = GENERATE(dcqcn_params(), connectx_params());
  p.dcqcn.byte_counter = 0;             // timer only, as HPCC-ns3 runs DCQCN
  p.dcqcn.clamp = DcqcnClamp::kAlways;  // Rt below line rate leaves it room to grow
  State s = fresh(p);
  on_cnp(s, p, 0);
  advance(s, p, p.dcqcn.rate_reduce_period);
  on_cnp(s, p, p.dcqcn.rate_reduce_period + 1);
  advance(s, p, 2 * p.dcqcn.rate_reduce_period + 1);
  const Time t0 = s.dcqcn.inc_next - p.dcqcn.increase_period;  // the last cut
  const Bps rt0 = s.dcqcn.rt;
  const Time t = p.dcqcn.increase_period;
  const std::uint32_t f = p.dcqcn.fast_recovery_steps;
  advance(s, p, t0 + f * t);
  REQUIRE(s.dcqcn.rt == rt0);  // fast recovery
  advance(s, p, t0 + (f + 1) * t);
  REQUIRE(s.dcqcn.rt == rt0 + p.dcqcn.rate_ai);  // one additive step
  for (std::uint32_t i = 1; i <= 3; ++i) {
    const Bps before = s.dcqcn.rt;
    advance(s, p, t0 + (f + 1 + i) * t);
    const bool fixed = p.dcqcn.hyper_step == DcqcnHyperStep::kFixed;
    REQUIRE(s.dcqcn.rt == before + (fixed ? 1 : i) * p.dcqcn.rate_hai);
  }
}

TEST_CASE("dcqcn connectx: CNPs are latched and cut once per rate-reduce period", "[cc][dcqcn]") {
  const Params p = connectx_params();
  const DcqcnParams& d = p.dcqcn;
  REQUIRE(d.variant == DcqcnVariant::kConnectx);
  State s = fresh(p);
  const Time t0 = 10 * kMicrosecond + 123;
  on_cnp(s, p, t0);
  // Nothing happens until the first check, one period after the first CNP.
  REQUIRE(rate(s) == kLine);
  for (int i = 1; i < 10; ++i) on_cnp(s, p, t0 + i * 100);  // more CNPs in the same period
  advance(s, p, t0 + d.rate_reduce_period - 1);
  REQUIRE(rate(s) == kLine);
  advance(s, p, t0 + d.rate_reduce_period);
  // One cut, with alpha = its initial value decayed over 4 one-microsecond periods and the
  // latched CNPs folded in at the first boundary after them (t0 + 1 us).
  const double g = d.g;
  const double a1 = d.alpha_init * (1 - g) + g;
  const double alpha = a1 * std::pow(1 - g, 3);
  REQUIRE(s.dcqcn.alpha == Approx(alpha).epsilon(1e-12));
  REQUIRE(double(rate(s)) == Approx(double(kLine) * (1 - alpha / 2)).margin(1));
  // No timer increase happened since the last cut: the target stays at the pre-cut rate.
  REQUIRE(s.dcqcn.rt == kLine);
  // No CNP in the next period: no cut at the next check.
  const Bps after = rate(s);
  advance(s, p, t0 + 2 * d.rate_reduce_period);
  REQUIRE(rate(s) == after);
  // A CNP latched now is cut at the next check on the grid, not one period after it.
  on_cnp(s, p, t0 + 2 * d.rate_reduce_period + 5);
  advance(s, p, t0 + 3 * d.rate_reduce_period - 1);
  REQUIRE(rate(s) == after);
  advance(s, p, t0 + 3 * d.rate_reduce_period);
  REQUIRE(rate(s) < after);
  REQUIRE(s.dcqcn.rt == kLine);
}

TEST_CASE("dcqcn connectx: Rt follows Rc at a cut only after a timer increase", "[cc][dcqcn]") {
  Params p = connectx_params();
  p.dcqcn.byte_counter = 0;  // the timer alone, so the test controls every increase
  const DcqcnParams& d = p.dcqcn;
  State s = fresh(p);
  on_cnp(s, p, 0);
  advance(s, p, d.rate_reduce_period);
  const Bps cut1 = rate(s);
  REQUIRE(cut1 < kLine);
  // Cut again before the timer fires: Rt keeps the line rate.
  on_cnp(s, p, d.rate_reduce_period + 1);
  advance(s, p, 2 * d.rate_reduce_period);
  REQUIRE(s.dcqcn.rt == kLine);
  const Bps cut2 = rate(s);
  const Time last_cut = 2 * d.rate_reduce_period;
  // One timer expiry later, fast recovery moves Rc halfway back; the next cut clamps Rt to it.
  advance(s, p, last_cut + d.increase_period);
  REQUIRE(s.dcqcn.t_stage == 1);  // the timer fired since the last cut
  REQUIRE(rate(s) == std::midpoint(kLine, cut2));
  const Bps before_cut = rate(s);
  const Time t = last_cut + d.increase_period + 1;
  on_cnp(s, p, t);
  advance(s, p, next_check(d, t));
  REQUIRE(s.dcqcn.rt == before_cut);
  REQUIRE(rate(s) < before_cut);
  REQUIRE(s.dcqcn.t_stage == 0);
}

TEST_CASE("dcqcn connectx: alpha moves once per period, up if a CNP came in it", "[cc][dcqcn]") {
  const Params p = connectx_params();
  const DcqcnParams& d = p.dcqcn;
  State s = fresh(p);
  on_cnp(s, p, 0);  // alpha = initial value, no increment for the first CNP
  REQUIRE(s.dcqcn.alpha == d.alpha_init);
  advance(s, p, 10 * d.alpha_period);
  const double a10 = d.alpha_init * std::pow(1 - d.g, 10);
  REQUIRE(s.dcqcn.alpha == Approx(a10).epsilon(1e-12));
  // Two CNPs in one period count once, at the end of that period.
  on_cnp(s, p, 10 * d.alpha_period + 100);
  on_cnp(s, p, 10 * d.alpha_period + 200);
  REQUIRE(s.dcqcn.alpha == Approx(a10).epsilon(1e-12));
  advance(s, p, 11 * d.alpha_period);
  REQUIRE(s.dcqcn.alpha == Approx(a10 * (1 - d.g) + d.g).epsilon(1e-12));
  advance(s, p, 20 * d.alpha_period);
  REQUIRE(s.dcqcn.alpha == Approx((a10 * (1 - d.g) + d.g) * std::pow(1 - d.g, 9)).epsilon(1e-12));
}

TEST_CASE("dcqcn: a cut never leaves less than min_dec_factor of the rate", "[cc][dcqcn]") {
  Params p = dcqcn_params();
  p.dcqcn.min_dec_factor = 0.8;
  State s = fresh(p);
  on_cnp(s, p, 0);  // alpha = 1 would halve the rate
  REQUIRE(rate(s) == kLine / 10 * 8);
}

TEST_CASE("dcqcn: rate stays between the floor and line rate; recovers to line rate",
          "[cc][dcqcn]") {
  const Params p = GENERATE(dcqcn_params(), connectx_params());
  State s = fresh(p);
  for (int i = 0; i < 200; ++i) on_cnp(s, p, i * kMicrosecond);
  advance(s, p, 200 * kMicrosecond);
  REQUIRE(rate(s) == p.dcqcn.min_rate);

  std::mt19937_64 rng(42);
  Time now = 200 * kMicrosecond;
  for (int i = 0; i < 20000; ++i) {
    now += static_cast<Time>(rng() % (40 * kMicrosecond));
    switch (rng() % 3) {
      case 0:
        on_cnp(s, p, now);
        break;
      case 1:
        on_send(s, p, now, static_cast<std::uint32_t>(rng() % 9'000'000));
        break;
      default:
        advance(s, p, now);
        break;
    }
    REQUIRE(rate(s) >= p.dcqcn.min_rate);
    REQUIRE(s.dcqcn.rc <= s.dcqcn.rt);
    REQUIRE(s.dcqcn.rt <= kLine);
    REQUIRE(s.dcqcn.alpha >= 0.0);
    REQUIRE(s.dcqcn.alpha <= 1.0);
  }
  // Without CNPs the flow climbs back to line rate and its rate timer stops.
  advance(s, p, now + 10 * kSecond);
  REQUIRE(rate(s) == kLine);
  REQUIRE_FALSE(s.dcqcn.increasing);
}

TEST_CASE("dcqcn: lazy timers give the same state for any advance() granularity", "[cc][dcqcn]") {
  Params p = GENERATE(dcqcn_params(), connectx_params());
  p.dcqcn.byte_counter = 2'000'000;  // make the byte counter fire often
  p.dcqcn.alpha_period = 13 * kMicrosecond;
  p.dcqcn.increase_period = 29 * kMicrosecond;
  if (p.dcqcn.rate_reduce_period) p.dcqcn.rate_reduce_period = 11 * kMicrosecond;
  std::mt19937_64 rng(7);
  State coarse = fresh(p);
  State fine = fresh(p);
  Time now = 0;
  for (int i = 0; i < 3000; ++i) {
    const Time next = now + static_cast<Time>(rng() % (300 * kMicrosecond));
    // The fine state is advanced through many intermediate times, the coarse one not at all.
    for (Time t = now; t < next; t += static_cast<Time>(1 + rng() % (7 * kMicrosecond))) {
      advance(fine, p, t);
    }
    now = next;
    if (rng() % 4 == 0) {
      on_cnp(coarse, p, now);
      on_cnp(fine, p, now);
    } else {
      const auto bytes = static_cast<std::uint32_t>(rng() % 1'500'000);
      on_send(coarse, p, now, bytes);
      on_send(fine, p, now, bytes);
    }
    REQUIRE(same(coarse.dcqcn, fine.dcqcn));
  }
  // One big step vs many small ones over a long silent stretch.
  State big = coarse;
  State small = coarse;
  const Time end = now + 50 * kMillisecond;
  advance(big, p, end);
  for (Time t = now; t <= end; t += 3 * kMicrosecond + 1) advance(small, p, t);
  advance(small, p, end);
  REQUIRE(same(big.dcqcn, small.dcqcn));
}
