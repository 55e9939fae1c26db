#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>

#include "net/cc/congestion_control.hpp"

using namespace fabricsim::net::cc;
using fabricsim::core::kMicrosecond;

namespace {

constexpr Bps kLine = 100'000'000'000ULL;
constexpr Time kT = 10 * kMicrosecond;  // base RTT
constexpr std::uint32_t kMtu = 4096;
constexpr double kTs = 10e-6;  // kT in seconds

// One bottleneck hop at line rate, fed with a chosen utilisation per interval.
struct Path1 {
  Params p;
  State s;
  IntHop hop{0, 0, 0, kLine};
  std::uint64_t snd_nxt = 0;
  std::uint64_t acked = 0;
  Time now = 0;

  Path1() {
    p.kind = Kind::kHpcc;
    init(s, p, kLine, kT, kMtu);
    ack(0.0, 0, false);  // the first ACK only records telemetry
  }

  // An ACK whose hop reports txRate = tx_frac x B over the last `dt` and the given queue.
  // `new_rtt` makes acked_seq pass the last update point (reference-window update).
  void ack(double tx_frac, std::uint32_t qlen, bool new_rtt, Time dt = kT) {
    now += dt;
    hop.ts = now;
    hop.tx_bytes += static_cast<std::uint64_t>(std::llround(
        tx_frac * static_cast<double>(kLine) * (static_cast<double>(dt) * 1e-12) / 8.0));
    hop.qlen_bytes = qlen;
    AckInfo a;
    if (new_rtt) {
      acked = s.hpcc.last_update_seq + 1;
      snd_nxt = acked + window_bytes(s);
    }
    a.acked_bytes = kMtu;
    a.acked_seq = acked;
    a.snd_nxt = snd_nxt;
    a.hops = 1;
    a.int_hops[0] = hop;
    on_ack(s, p, now, a);
  }

  double w_init() const { return static_cast<double>(kLine) * kTs / 8.0; }
  double w_ai() const { return w_init() * p.hpcc.w_ai_fraction; }
  // Queue bytes that add q_frac to u: qlen / (B T).
  static std::uint32_t queue(double q_frac) {
    return static_cast<std::uint32_t>(
        std::llround(q_frac * static_cast<double>(kLine) * kTs / 8.0));
  }
};

}  // namespace

TEST_CASE("hpcc: starts at the line-rate BDP and paces at W/T", "[cc][hpcc]") {
  Path1 h;
  REQUIRE(static_cast<double>(window_bytes(h.s)) == Approx(h.w_init()).margin(1));
  REQUIRE(rate(h.s) == kLine);
}

TEST_CASE("hpcc: a hop at twice the target utilisation halves W", "[cc][hpcc]") {
  Path1 h;
  const double eta = h.p.hpcc.eta;
  // u = txRate/B + qlen/(B T) = 1 + (2 eta - 1) = 2 eta; qlen is min(now, previous).
  const std::uint32_t q = Path1::queue(2 * eta - 1);
  h.ack(1.0, q, false);  // previous sample of the queue
  h.ack(1.0, q, true);
  const double w = h.s.hpcc.w;
  REQUIRE(h.s.hpcc.u == Approx(2 * eta).epsilon(1e-4));
  REQUIRE(w == Approx(h.w_init() / (h.s.hpcc.u / eta) + h.w_ai()).epsilon(1e-12));
  REQUIRE(w == Approx(h.w_init() / 2).epsilon(1e-3));
  REQUIRE(h.s.hpcc.wc == w);
  REQUIRE(static_cast<double>(rate(h.s)) == Approx(w * 8 / kTs).epsilon(1e-9));
}

TEST_CASE("hpcc: with U = eta the window holds steady up to W_AI per RTT", "[cc][hpcc]") {
  Path1 h;
  const double eta = h.p.hpcc.eta;
  const std::uint32_t q = Path1::queue(2 * eta - 1);
  h.ack(1.0, q, false);
  h.ack(1.0, q, true);  // W ~ W_init / 2: away from the line-rate cap
  h.ack(eta, 0, false);
  const double w0 = h.s.hpcc.wc;
  for (int r = 1; r <= 20; ++r) {
    const double before = h.s.hpcc.wc;
    h.ack(eta, 0, true);
    REQUIRE(h.s.hpcc.u == Approx(eta).epsilon(1e-4));
    REQUIRE(h.s.hpcc.wc - before == Approx(h.w_ai()).epsilon(1e-3));
  }
  REQUIRE(h.s.hpcc.wc == Approx(w0 + 20 * h.w_ai()).epsilon(1e-4));
}

TEST_CASE("hpcc: additive steps for maxStage RTTs below target, then a multiplicative step",
          "[cc][hpcc]") {
  Path1 h;
  const double eta = h.p.hpcc.eta;
  const std::uint32_t q = Path1::queue(2 * eta - 1);
  h.ack(1.0, q, false);
  h.ack(1.0, q, true);
  const double low = 0.8 * eta;
  for (std::uint32_t r = 1; r <= h.p.hpcc.max_stage; ++r) {
    const double before = h.s.hpcc.wc;
    h.ack(low, 0, true);
    REQUIRE(h.s.hpcc.inc_stage == r);
    REQUIRE(h.s.hpcc.wc == Approx(before + h.w_ai()).epsilon(1e-12));
  }
  const double before = h.s.hpcc.wc;
  h.ack(low, 0, true);
  REQUIRE(h.s.hpcc.inc_stage == 0);
  REQUIRE(h.s.hpcc.wc == Approx(before / (h.s.hpcc.u / eta) + h.w_ai()).epsilon(1e-12));
  REQUIRE(h.s.hpcc.wc == Approx(before / 0.8).epsilon(1e-3));
}

TEST_CASE("hpcc: fast reaction moves W on every ACK, W_c only once per RTT", "[cc][hpcc]") {
  Path1 h;
  const double eta = h.p.hpcc.eta;
  const std::uint32_t q = Path1::queue(2 * eta - 1);
  h.ack(eta, 0, true);
  const double wc = h.s.hpcc.wc;
  h.ack(1.0, q, false);  // previous queue sample
  h.ack(1.0, q, false);  // same RTT: 2 eta
  REQUIRE(h.s.hpcc.w == Approx(wc / 2).epsilon(1e-3));
  REQUIRE(h.s.hpcc.wc == wc);
  h.ack(eta, 0, false);  // still the same RTT: W recomputed from the unchanged W_c
  REQUIRE(h.s.hpcc.w == Approx(std::min(wc + h.w_ai(), h.w_init())).epsilon(1e-6));
  REQUIRE(h.s.hpcc.wc == wc);
  h.ack(1.0, q, false);
  h.ack(1.0, q, true);  // next RTT: the reference follows
  REQUIRE(h.s.hpcc.wc == h.s.hpcc.w);
  REQUIRE(h.s.hpcc.wc == Approx(wc / 2).epsilon(1e-3));
}

TEST_CASE("hpcc: W never exceeds the line-rate BDP + W_AI nor drops below the floor",
          "[cc][hpcc]") {
  Path1 h;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> tx(0.0, 1.0);
  std::uniform_real_distribution<double> qf(0.0, 2.0);
  const double w_min = static_cast<double>(h.p.hpcc.min_rate) * kTs / 8.0;
  for (int i = 0; i < 20000; ++i) {
    const bool idle = (i / 500) % 2 == 1;  // alternate congested and idle phases
    const double f = idle ? 0.01 * tx(rng) : tx(rng);
    const auto q = idle ? 0u : Path1::queue(qf(rng));
    const Time dt = 1 + static_cast<Time>(rng() % (2 * kT));
    h.ack(f, q, rng() % 8 == 0, dt);
    REQUIRE(h.s.hpcc.w <= h.w_init() + h.w_ai());
    REQUIRE(h.s.hpcc.w >= w_min * (1 - 1e-12));
    REQUIRE(rate(h.s) <= kLine);
  }
}

TEST_CASE("hpcc: telemetry without a new interval leaves the window alone", "[cc][hpcc]") {
  Path1 h;
  h.ack(1.0, Path1::queue(0.9), true);
  const HpccState before = h.s.hpcc;
  AckInfo a;
  a.acked_seq = h.acked;
  a.snd_nxt = h.snd_nxt;
  a.hops = 1;
  a.int_hops[0] = h.hop;  // same timestamp as last time
  on_ack(h.s, h.p, h.now, a);
  REQUIRE(h.s.hpcc.w == before.w);
  REQUIRE(h.s.hpcc.u == before.u);
}
