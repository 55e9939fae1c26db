#pragma once
// Congestion control as per-QP sender state machines. Pure: no simulator, no events, no heap,
// no virtual calls. The NIC owns one State per QP and drives it:
//   init(s, params, line_rate, base_rtt, mtu)            at QP creation
//   advance(s, params, now)                              before reading rate()/window_bytes()
//                                                        and before every on_*()
//   on_send(...) per data packet sent, on_cnp(...) per CNP, on_ack(...) per ACK
//   rate(s)          pacing rate (line rate for kNone)
//   window_bytes(s)  bytes allowed in flight; 0 = no window limit (kNone, DCQCN, TIMELY)
//   next_increase(s) when a timer may next raise the rate (kTimeMax: only ACKs/CNPs change it)
// Events an algorithm does not use are ignored (e.g. on_cnp for HPCC), so the NIC may call
// every hook regardless of the kind. The on_* functions also advance to `now` themselves,
// so a missed advance() cannot reorder timers.
#include <cstdint>

#include "core/time.hpp"
#include "net/cc/dcqcn.hpp"
#include "net/cc/dctcp.hpp"
#include "net/cc/feedback.hpp"
#include "net/cc/hpcc.hpp"
#include "net/cc/params.hpp"
#include "net/cc/timely.hpp"

namespace fabricsim::net::cc {

// One algorithm's state per queue pair: the sub-states share their storage (256 bytes, HPCC's
// the largest, where side by side they took 472). Only the member of `kind` is alive, set by
// init(); every hook checks the kind before it touches one. All are trivially copyable, so a
// State is too.
struct State {
  struct NoState {};
  State() : none() {}
  Kind kind = Kind::kNone;
  Path path;
  union {
    NoState none;
    DcqcnState dcqcn;
    HpccState hpcc;
    DctcpState dctcp;
    TimelyState timely;
  };
};

void init(State& s, const Params& p, Bps line_rate, Time base_rtt, std::uint32_t mtu_payload_bytes);
void advance(State& s, const Params& p, Time now);
void on_send(State& s, const Params& p, Time now, std::uint32_t bytes);
void on_cnp(State& s, const Params& p, Time now);
void on_ack(State& s, const Params& p, Time now, const AckInfo& ack);
Bps rate(const State& s);
// The next time a timer of the algorithm may raise rate() (DCQCN's rate-increase timer), or
// kTimeMax: a sender held back by its pacing looks again then.
Time next_increase(const State& s);
std::uint64_t window_bytes(const State& s);

}  // namespace fabricsim::net::cc
