#include "net/cc/dctcp.hpp"

#include <algorithm>

namespace fabricsim::net::cc::dctcp {
namespace {

double min_window(const Path& path) {
  return static_cast<double>(path.mtu_payload);
}

}  // namespace

void init(DctcpState& s, const DctcpParams& p, const Path& path) {
  s = DctcpState{};
  const double bdp =
      static_cast<double>(path.line_rate) * static_cast<double>(path.base_rtt) / 8.0 / 1e12;
  s.cwnd = std::max(bdp, min_window(path));
  s.rate = static_cast<double>(path.line_rate);
  s.alpha = p.alpha_init;
  s.rate_based = p.rate_based;
}

void on_ack(DctcpState& s, const DctcpParams& p, const Path& path, const AckInfo& ack) {
  bool boundary = false;
  s.acked += ack.acked_bytes;
  if (ack.ecn_echo) s.marked += ack.acked_bytes;
  if (!s.started) {
    s.started = true;
    s.window_end = ack.snd_nxt;
  }
  if (s.in_cwr && ack.acked_seq >= s.cwr_end) s.in_cwr = false;

  // Alpha before the cut, as Linux tcp_dctcp.c: the ACK that closes a window updates alpha
  // in its ack event, and a congestion-window reduction it triggers uses the new value.
  if (ack.acked_seq >= s.window_end) {
    const double f = s.acked ? static_cast<double>(s.marked) / static_cast<double>(s.acked) : 0.0;
    s.alpha = (1.0 - p.g) * s.alpha + p.g * f;
    if (p.rate_based) {
      // HPCC-ns3: the increase is applied after this ACK's cut check, outside a reduction.
      boundary = true;
    } else if (s.marked == 0) {
      s.cwnd += static_cast<double>(path.mtu_payload);
    }
    s.acked = s.marked = 0;
    s.window_end = ack.snd_nxt;
  }

  if (ack.ecn_echo && !s.in_cwr) {
    if (p.rate_based) {
      const double floor = static_cast<double>(std::min(p.min_rate, path.line_rate));
      s.rate = std::max(floor, s.rate * (1.0 - s.alpha / 2.0));
    } else {
      s.cwnd = std::max(min_window(path), s.cwnd * (1.0 - s.alpha / 2.0));
    }
    s.in_cwr = true;
    s.cwr_end = ack.snd_nxt;
  }
  if (boundary && !s.in_cwr) {
    s.rate = std::min(static_cast<double>(path.line_rate), s.rate + static_cast<double>(p.rate_ai));
  }
}

std::uint64_t window_bytes(const DctcpState& s) {
  return static_cast<std::uint64_t>(s.cwnd);
}

}  // namespace fabricsim::net::cc::dctcp
