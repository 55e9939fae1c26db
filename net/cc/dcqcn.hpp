#pragma once
// DCQCN reaction point (sender): rate limiter driven by CNPs, an alpha timer, a rate-increase
// timer and a byte counter (Zhu et al., SIGCOMM'15, section 3).
//
// Timers are lazy: each keeps the time of its next expiry and advance() applies every expiry
// up to `now`. The alpha timer is evaluated in closed form from the last CNP (alpha decays
// by (1-g)^n after n silent periods), so a QP idle for seconds costs O(1) and the result does
// not depend on how often advance() is called. The rate-increase timer steps one expiry at a
// time (each stage depends on the previous) and stops once Rc = Rt = line rate, where every
// further increase is a no-op until the next CNP resets the stages anyway.
//
// Both timers start at the first CNP: a flow starts at line rate with alpha = alpha_init
// (HPCC-ns3 likewise schedules them from the first CNP). An expiry at exactly the time of a
// CNP is applied before the CNP.
#include <cstdint>

#include "net/cc/feedback.hpp"
#include "net/cc/params.hpp"

namespace fabricsim::net::cc {

struct DcqcnState {
  Bps rc = 0;  // current rate
  Bps rt = 0;  // target rate
  double alpha = 1.0;
  // alpha = alpha_base x (1-g)^n, n = whole alpha periods since alpha_base_time (last CNP).
  double alpha_base = 1.0;
  Time alpha_base_time = 0;
  Time alpha_next = 0;         // next alpha expiry
  Time inc_next = 0;           // next rate-increase timer expiry
  std::uint32_t t_stage = 0;   // timer expiries since the last CNP
  std::uint32_t bc_stage = 0;  // byte-counter expiries since the last CNP
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
