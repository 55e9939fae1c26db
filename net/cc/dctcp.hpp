#pragma once
// DCTCP sender (Alizadeh et al., SIGCOMM'10, section 3) over RDMA: a byte window, paced at
// line rate. Once per window of data (when acked_seq reaches the snd_nxt recorded at the
// window's start) alpha = (1 - g) alpha + g F, with F the fraction of acknowledged bytes
// that carried CE; a window with no mark grows W by one MTU. The first ECN echo outside a
// reduction cuts W to W (1 - alpha/2) and opens a reduction that lasts until everything sent
// before the cut is acknowledged, so W is cut at most once per window.
// No slow start: RDMA senders start at line rate, so W starts at the line-rate BDP (as
// HPCC-ns3 starts its DCTCP QPs at line rate). The rate form (DctcpParams::rate_based) keeps
// the same alpha and reduction rule but cuts and raises a paced rate instead of W, adding
// rate_ai at each window boundary outside a reduction.
#include <cstdint>

#include "net/cc/feedback.hpp"
#include "net/cc/params.hpp"

namespace fabricsim::net::cc {

struct DctcpState {
  double cwnd = 0;  // bytes (window form)
  double rate = 0;  // bits per second (rate form)
  double alpha = 1.0;
  std::uint64_t window_end = 0;  // alpha is updated when acked_seq reaches this
  std::uint64_t acked = 0;       // bytes acknowledged in the current window
  std::uint64_t marked = 0;      // of which carried CE
  std::uint64_t cwr_end = 0;     // reduction ends when acked_seq reaches this
  bool in_cwr = false;
  bool started = false;
  bool rate_based = false;  // DctcpParams::rate_based, for cc::rate() and cc::window_bytes()
};

namespace dctcp {

void init(DctcpState& s, const DctcpParams& p, const Path& path);
void on_ack(DctcpState& s, const DctcpParams& p, const Path& path, const AckInfo& ack);
std::uint64_t window_bytes(const DctcpState& s);  // the window form's W

}  // namespace dctcp
}  // namespace fabricsim::net::cc
