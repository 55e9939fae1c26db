#include "net/cc/hpcc.hpp"

#include <algorithm>

namespace fabricsim::net::cc::hpcc {
namespace {

constexpr double kPsPerSecond = 1e12;

double seconds(Time t) {
  return static_cast<double>(t) / kPsPerSecond;
}

void record(HpccState& s, const AckInfo& ack) {
  s.hops = std::min<std::uint8_t>(ack.hops, kMaxIntHops);
  std::copy_n(ack.int_hops, s.hops, s.last);
}

}  // namespace

void init(HpccState& s, const HpccParams& p, const Path& path) {
  s = HpccState{};
  const double t = seconds(path.base_rtt);
  s.w_init = static_cast<double>(path.line_rate) * t / 8.0;
  s.w_ai = s.w_init * p.w_ai_fraction;
  s.w_min = std::min(s.w_init, static_cast<double>(p.min_rate) * t / 8.0);
  s.w = s.wc = s.w_init;
  // HPCC-ns3 RdmaQueuePair starts hp.u at 1: until telemetry says otherwise the path is
  // assumed busy.
  s.u = 1.0;
}

void on_ack(HpccState& s, const HpccParams& p, const Path& path, const AckInfo& ack) {
  const std::uint8_t hops = std::min<std::uint8_t>(ack.hops, kMaxIntHops);
  if (!s.have_int) {
    s.have_int = true;
    s.last_update_seq = ack.snd_nxt;
    record(s, ack);
    return;
  }
  if (hops != s.hops) {
    // A different path: deltas against the old hops would be meaningless.
    record(s, ack);
    return;
  }

  const double t = seconds(path.base_rtt);
  double u_max = -1.0;
  double tau = 0.0;
  for (std::uint8_t i = 0; i < hops; ++i) {
    const IntHop& now = ack.int_hops[i];
    const IntHop& prev = s.last[i];
    if (now.ts <= prev.ts || now.rate == 0) continue;  // no new interval at this hop
    const double dt = seconds(now.ts - prev.ts);
    const double b = static_cast<double>(now.rate);
    const double tx_rate = static_cast<double>(now.tx_bytes - prev.tx_bytes) * 8.0 / dt;
    // The smaller of the two queue samples filters a transient burst (paper, Algorithm 1).
    const double qlen = std::min(now.qlen_bytes, prev.qlen_bytes);
    const double u = qlen * 8.0 / (b * t) + tx_rate / b;
    if (u > u_max) {
      u_max = u;
      tau = dt;
    }
  }
  record(s, ack);
  if (u_max < 0) return;

  tau = std::min(tau, t);
  s.u = (s.u * (t - tau) + u_max * tau) / t;

  const double k = s.u / p.eta;
  double w;
  std::uint32_t stage;
  if (k >= 1.0 || s.inc_stage >= p.max_stage) {
    w = k > 0 ? s.wc / k + s.w_ai : s.w_init;
    stage = 0;
  } else {
    w = s.wc + s.w_ai;
    stage = s.inc_stage + 1;
  }
  s.w = std::clamp(w, s.w_min, s.w_init);
  if (ack.acked_seq > s.last_update_seq) {
    s.wc = s.w;
    s.inc_stage = stage;
    s.last_update_seq = std::max(s.last_update_seq, ack.snd_nxt);
  }
}

Bps rate(const HpccState& s, const Path& path) {
  const double r = s.w * 8.0 / seconds(path.base_rtt);
  return std::min(path.line_rate, static_cast<Bps>(r + 0.5));
}

}  // namespace fabricsim::net::cc::hpcc
