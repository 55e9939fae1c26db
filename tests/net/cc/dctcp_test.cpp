#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "net/cc/congestion_control.hpp"

using namespace fabricsim::net::cc;
using fabricsim::core::kMicrosecond;

namespace {

constexpr Bps kLine = 100'000'000'000ULL;
constexpr Time kRtt = 8 * kMicrosecond;
constexpr std::uint32_t kMtu = 1000;

// An ACK-clocked sender: each ACK of one MTU lets the window refill, so at any time
// snd_nxt - acked_seq = W. Records (alpha, W) at every alpha update (window boundary).
struct Sender {
  Params p;
  State s;
  std::uint64_t snd_nxt = 0;
  std::uint64_t acked = 0;
  std::vector<double> alphas;   // alpha after each boundary
  std::vector<double> windows;  // W after each boundary's ACK
  std::vector<double> cuts;     // W after each reduction

  explicit Sender(double alpha_init = 1.0) {
    p.kind = Kind::kDctcp;
    p.dctcp.alpha_init = alpha_init;
    init(s, p, kLine, kRtt, kMtu);
    snd_nxt = window_bytes(s);
  }

  void packets(int n, const std::function<bool(int)>& marked) {
    for (int i = 0; i < n; ++i) {
      acked += kMtu;
      AckInfo a;
      a.acked_bytes = kMtu;
      a.acked_seq = acked;
      a.snd_nxt = snd_nxt;
      a.ecn_echo = marked(i);
      const bool was_cwr = s.dctcp.in_cwr;
      const std::uint64_t cwr_end = s.dctcp.cwr_end;
      on_ack(s, p, 0, a);
      // Every ACK adds to the window tally, so an empty tally means the window just closed.
      if (s.dctcp.acked == 0) {
        alphas.push_back(s.dctcp.alpha);
        windows.push_back(s.dctcp.cwnd);
      }
      if (s.dctcp.in_cwr && (!was_cwr || cwr_end != s.dctcp.cwr_end)) {
        cuts.push_back(s.dctcp.cwnd);
      }
      snd_nxt = std::max(snd_nxt, acked + window_bytes(s));
    }
  }
};

bool never(int) {
  return false;
}
bool always(int) {
  return true;
}

}  // namespace

TEST_CASE("dctcp: starts at the line-rate BDP, unpaced", "[cc][dctcp]") {
  Sender d;
  REQUIRE(window_bytes(d.s) == 100'000);  // 100 Gb/s x 8 us / 8
  REQUIRE(rate(d.s) == kLine);
}

TEST_CASE("dctcp: without marks W grows by one MTU per window of data", "[cc][dctcp]") {
  Sender d(0.0);
  const double w0 = d.s.dctcp.cwnd;
  d.packets(2000, never);
  REQUIRE(d.windows.size() >= 10);
  for (std::size_t i = 1; i < d.windows.size(); ++i) {
    REQUIRE(d.windows[i] - d.windows[i - 1] == Approx(kMtu));
  }
  // One boundary per window: ~2000 MTU of ACKs over windows of ~100..120 MTU.
  const double mean_w = (w0 + d.s.dctcp.cwnd) / 2 / kMtu;
  REQUIRE(std::abs(static_cast<double>(d.windows.size()) - 2000 / mean_w) <= 2);
  REQUIRE(d.s.dctcp.alpha == 0.0);
  REQUIRE(d.cuts.empty());
}

TEST_CASE("dctcp: the first marked ACK with alpha = 1 halves W, once per window", "[cc][dctcp]") {
  Sender d(1.0);
  const double w0 = d.s.dctcp.cwnd;
  d.packets(1, always);
  REQUIRE(d.s.dctcp.cwnd == Approx(w0 / 2));
  REQUIRE(d.s.dctcp.alpha == 1.0);
  // Everything sent before the cut must be acknowledged before the next cut.
  const std::uint64_t cwr_end = d.s.dctcp.cwr_end;
  const int until_end = static_cast<int>((cwr_end - d.acked) / kMtu);
  d.packets(until_end - 1, always);
  REQUIRE(d.cuts.size() == 1);
  d.packets(1, always);
  REQUIRE(d.cuts.size() == 2);
  REQUIRE(d.cuts[1] == Approx(d.cuts[0] / 2));
}

TEST_CASE("dctcp: all-marked windows drive alpha to 1 as 1 - (1-g)^k", "[cc][dctcp]") {
  Sender d(0.0);
  d.packets(3000, always);
  const double g = d.p.dctcp.g;
  REQUIRE(d.alphas.size() >= 20);
  for (std::size_t k = 0; k < d.alphas.size(); ++k) {
    REQUIRE(d.alphas[k] == Approx(1 - std::pow(1 - g, static_cast<double>(k + 1))));
  }
  REQUIRE(d.s.dctcp.alpha > 0.7);
  // W never falls below one MTU.
  REQUIRE(window_bytes(d.s) >= kMtu);
}

TEST_CASE("dctcp: alpha follows the EWMA of the marked fraction", "[cc][dctcp]") {
  Sender d(0.5);
  const double g = d.p.dctcp.g;
  double alpha = 0.5;
  std::uint64_t acked = 0, marked = 0;
  std::size_t seen = 0;
  int n = 0;
  // Every third packet marked; the test keeps its own per-window tally.
  for (int i = 0; i < 3000; ++i) {
    const bool m = n++ % 3 == 0;
    acked += kMtu;
    if (m) marked += kMtu;
    d.packets(1, [m](int) { return m; });
    if (d.alphas.size() > seen) {
      seen = d.alphas.size();
      alpha = (1 - g) * alpha + g * static_cast<double>(marked) / static_cast<double>(acked);
      REQUIRE(d.alphas.back() == Approx(alpha).epsilon(1e-12));
      acked = marked = 0;
    }
  }
  REQUIRE(seen >= 10);
  REQUIRE(alpha == Approx(1.0 / 3).margin(0.05));
}

TEST_CASE("dctcp rate form: alpha cuts a paced rate once per window, +rate_ai per clean window",
          "[cc][dctcp]") {
  Params p;
  p.kind = Kind::kDctcp;
  p.dctcp.rate_based = true;
  State s;
  init(s, p, kLine, kRtt, kMtu);
  REQUIRE(window_bytes(s) == 0);  // paced, no window
  REQUIRE(rate(s) == kLine);
  AckInfo a;
  a.acked_bytes = kMtu;
  a.acked_seq = kMtu;
  a.snd_nxt = 10 * kMtu;
  on_ack(s, p, 0, a);  // opens the first window (alpha updates when byte 10 x MTU is acked)
  a.ecn_echo = true;
  a.acked_seq = 2 * kMtu;
  a.snd_nxt = 11 * kMtu;
  on_ack(s, p, 0, a);  // first echo: cut by alpha/2 = 1/2, then a reduction until 11 x MTU
  REQUIRE(rate(s) == kLine / 2);
  a.acked_seq = 3 * kMtu;
  on_ack(s, p, 0, a);  // inside the reduction: no second cut
  REQUIRE(rate(s) == kLine / 2);
  // The window closes with 2 of its ACKs marked: alpha = (1-g) + g F; the reduction ends at
  // 11 x MTU, and the first window boundary after it adds rate_ai.
  a.ecn_echo = false;
  a.acked_seq = 12 * kMtu;
  a.snd_nxt = 20 * kMtu;
  on_ack(s, p, 0, a);
  const double f = 2.0 / 4.0;  // 2 marked of the window's 4 acknowledged MTUs (boundary included)
  REQUIRE(s.dctcp.alpha == Approx((1 - p.dctcp.g) * 1.0 + p.dctcp.g * f));
  REQUIRE(rate(s) == kLine / 2 + p.dctcp.rate_ai);
}
