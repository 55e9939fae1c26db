#pragma once
// HPCC sender (Li et al., SIGCOMM'19, Algorithm 1, single aggregate rate): per ACK, the INT
// records of every hop give a utilisation estimate
//   u_j = min(qlen_j, qlen_j_prev) / (B_j T) + txRate_j / B_j,
// U is an EWMA of the largest u_j weighted by that hop's time delta tau (capped at T), and
//   W = W_c / (U / eta) + W_AI   if U >= eta or incStage >= maxStage (multiplicative step)
//   W = W_c + W_AI               otherwise (additive step).
// W is recomputed on every ACK (fast reaction) but W_c and incStage change only once per RTT:
// on the first ACK whose acked_seq exceeds the snd_nxt recorded at the previous update.
// The pacing rate is W / T. W stays within [min_rate x T, line rate x T].
#include <cstdint>

#include "net/cc/feedback.hpp"
#include "net/cc/params.hpp"

namespace fabricsim::net::cc {

struct HpccState {
  double w = 0;                            // current window, bytes
  double wc = 0;                           // reference window, bytes
  double u = 0;                            // EWMA of the bottleneck utilisation
  double w_init = 0, w_ai = 0, w_min = 0;  // derived from Path and HpccParams at init
  std::uint64_t last_update_seq = 0;
  std::uint32_t inc_stage = 0;
  bool have_int = false;  // the first ACK only records telemetry
  std::uint8_t hops = 0;
  IntHop last[kMaxIntHops];
};

namespace hpcc {

void init(HpccState& s, const HpccParams& p, const Path& path);
void on_ack(HpccState& s, const HpccParams& p, const Path& path, const AckInfo& ack);
Bps rate(const HpccState& s, const Path& path);

}  // namespace hpcc
}  // namespace fabricsim::net::cc
