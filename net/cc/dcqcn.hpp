#pragma once
// DCQCN reaction point (sender): a rate limiter driven by CNPs, alpha, a rate-increase timer
// and a byte counter (Zhu et al., SIGCOMM'15, section 3), in the variants of DcqcnParams.
//
// Timers are lazy: advance() applies every expiry up to `now` in time order, so the state does
// not depend on how often it is called. alpha is kept in closed form: alpha = alpha_base x
// (1-g)^n with n whole alpha periods since alpha_base_time; a CNP either moves alpha_base at
// once (paper) or is folded in at the next period boundary (firmware), so a QP idle for seconds
// costs O(1). Latched CNPs are cut on the next rate-reduce check (firmware) or at once (paper,
// rate_reduce_period 0). The rate-increase timer steps one expiry at a time (each stage depends
// on the previous) and stops once Rc = Rt = line rate, where every further increase is a no-op
// until the next cut resets the stages anyway.
//
// Every timer starts at the first CNP: a flow starts at line rate (HPCC-ns3 and the firmware
// likewise arm them on the first CNP). An expiry at exactly the time of a CNP is applied before
// the CNP; a cut due at the same time as a timer increase comes first (it restarts the timer).
#include <cstdint>

#include "net/cc/feedback.hpp"
#include "net/cc/params.hpp"

namespace fabricsim::net::cc {

struct DcqcnState {
  Bps rc = 0;  // current rate
  Bps rt = 0;  // target rate
  double alpha = 1.0;
  double alpha_base = 1.0;
  Time alpha_base_time = 0;
  std::int64_t alpha_n = 0;    // periods of decay applied to `alpha`
  Time alpha_bump = -1;        // kPeriodic: the boundary that folds in a latched CNP
  Time check_origin = 0;       // rate-reduce checks at check_origin + k x rate_reduce_period
  Time cut_at = -1;            // the check that applies a latched CNP
  Time inc_next = 0;           // next rate-increase timer expiry
  std::uint32_t t_stage = 0;   // timer expiries since the last cut (DcqcnClamp reads it)
  std::uint32_t bc_stage = 0;  // byte-counter expiries since the last cut
  std::uint64_t bytes = 0;     // bytes sent towards the next byte-counter expiry
  bool cnp_seen = false;       // timers run only after the first CNP
  bool increasing = false;     // rate-increase machinery armed (Rc or Rt below line rate)
};

namespace dcqcn {

void init(DcqcnState& s, const DcqcnParams& p, const Path& path);
void advance(DcqcnState& s, const DcqcnParams& p, const Path& path, Time now);
void on_send(DcqcnState& s, const DcqcnParams& p, const Path& path, Time now, std::uint32_t bytes);
void on_cnp(DcqcnState& s, const DcqcnParams& p, const Path& path, Time now);

}  // namespace dcqcn
}  // namespace fabricsim::net::cc
