#include <catch2/catch.hpp>
#include <cstdint>
#include <random>

#include "net/cc/congestion_control.hpp"

using namespace fabricsim::net::cc;
using fabricsim::core::kMicrosecond;

namespace {

constexpr Bps kLine = 100'000'000'000ULL;
constexpr Time kRtt = 10 * kMicrosecond;
constexpr std::uint32_t kMtu = 4000;

// The paper variant: per-segment updates (its completion events), each complete() one update.
struct Flow {
  Params p;
  State s;
  explicit Flow() {
    p.kind = Kind::kTimely;
    p.timely = timely_paper();
    init(s, p, kLine, kRtt, kMtu);
  }
  // One completion event (a whole segment acknowledged) with this RTT sample.
  void complete(Time rtt) {
    AckInfo a;
    a.acked_bytes = p.timely.segment_bytes;
    a.rtt = rtt;
    on_ack(s, p, 0, a);
  }
  double r() const { return s.timely.rate; }
};

constexpr Time us(std::int64_t n) {
  return n * kMicrosecond;
}

}  // namespace

TEST_CASE("timely: starts at line rate without a window", "[cc][timely]") {
  Flow f;
  REQUIRE(rate(f.s) == kLine);
  REQUIRE(window_bytes(f.s) == 0);
}

TEST_CASE("timely: above T_high the rate drops by beta (1 - T_high/rtt)", "[cc][timely]") {
  Flow f;
  f.complete(us(100));  // the first completion only records the RTT
  REQUIRE(f.r() == static_cast<double>(kLine));
  const double beta = f.p.timely.beta;
  for (Time rtt : {us(1000), us(600), us(2000)}) {
    const double before = f.r();
    f.complete(rtt);
    const double factor =
        1 - beta * (1 - static_cast<double>(f.p.timely.t_high) / static_cast<double>(rtt));
    REQUIRE(f.r() == Approx(before * factor).epsilon(1e-12));
  }
}

TEST_CASE("timely: below T_low the rate grows additively by delta", "[cc][timely]") {
  Flow f;
  f.complete(us(100));
  f.complete(us(1000));  // line x 0.6
  const double delta = static_cast<double>(f.p.timely.delta);
  for (int i = 0; i < 20; ++i) {
    const double before = f.r();
    f.complete(us(30));  // no hyper increase below T_low, whatever the gradient
    REQUIRE(f.r() == Approx(before + delta).epsilon(1e-12));
  }
}

TEST_CASE("timely: between thresholds, a rising RTT cuts by beta x gradient", "[cc][timely]") {
  Flow f;
  f.complete(us(100));
  f.complete(us(110));
  // rtt_diff = a x 10 us (from 0), gradient = rtt_diff / minRTT
  const double a = f.p.timely.ewma_alpha;
  const double grad = a * 10.0 / 20.0;
  REQUIRE(f.r() == Approx(static_cast<double>(kLine) * (1 - f.p.timely.beta * grad)));
  // The EWMA carries over: the same RTT again leaves rtt_diff = (1 - a) x previous > 0.
  const double before = f.r();
  f.complete(us(110));
  const double grad2 = (1 - a) * a * 10.0 / 20.0;
  REQUIRE(f.r() == Approx(before * (1 - f.p.timely.beta * grad2)));
}

TEST_CASE("timely: a falling RTT increases by delta, by N x delta after N such events",
          "[cc][timely]") {
  Flow f;
  f.complete(us(100));
  f.complete(us(1000));  // make room below line rate; gradient positive here
  const double delta = static_cast<double>(f.p.timely.delta);
  const std::uint32_t n = f.p.timely.hai_after;
  f.complete(us(100));  // gradient now negative
  std::vector<double> steps;
  for (std::uint32_t i = 0; i < n + 3; ++i) {
    const double before = f.r();
    f.complete(us(100));
    steps.push_back(f.r() - before);
  }
  // Completions with gradient <= 0 so far: 1 (the fall) + i; HAI once n preceded.
  for (std::uint32_t i = 0; i < steps.size(); ++i) {
    const double expect = (1 + i >= n ? f.p.timely.hai_factor : 1) * delta;
    REQUIRE(steps[i] == Approx(expect).epsilon(1e-6));
  }
}

// The reference model's rules (HPCC-ns3 UpdateRateTimely with run.py's settings), one update per
// round trip: each call acknowledges past the previous update's snd_nxt.
struct Ns3Flow {
  Params p;
  State s;
  std::uint64_t seq = 0;
  explicit Ns3Flow(Bps line) {
    p.kind = Kind::kTimely;
    init(s, p, line, kRtt, kMtu);
  }
  void update(Time rtt) {
    AckInfo a;
    a.acked_bytes = kMtu;
    a.rtt = rtt;
    seq += kMtu;
    a.acked_seq = seq;
    a.snd_nxt = seq;
    on_ack(s, p, 0, a);
  }
  double r() const { return s.timely.rate; }
};

TEST_CASE("timely hpcc_ns3: the step is 1/1000 of the line rate, the floor 1 Gb/s",
          "[cc][timely]") {
  for (Bps line : {Bps{25'000'000'000}, kLine, Bps{400'000'000'000}}) {
    Ns3Flow f(line);
    REQUIRE(f.p.timely.variant == TimelyVariant::kHpccNs3);
    f.update(us(100));   // records the RTT
    f.update(us(5000));  // far above T_high: a deep cut
    f.update(us(5000));
    const double before = f.r();
    f.update(us(10));  // below T_low: the first increase of a run
    REQUIRE(f.r() - before == Approx(static_cast<double>(line) / 1000).epsilon(1e-9));
  }
  Ns3Flow f(kLine);
  f.update(us(100));
  for (int i = 0; i < 50; ++i) f.update(us(100'000));  // rtt 200 x T_high: cut by ~0.8 each time
  REQUIRE(rate(f.s) == 1'000'000'000);
}

TEST_CASE("timely hpcc_ns3: after five increases in a row every increase is hyper, below T_low too",
          "[cc][timely]") {
  Ns3Flow f(kLine);
  f.update(us(100));
  f.update(us(1000));  // line x 0.6, run reset
  const double delta = static_cast<double>(kLine) / 1000;
  const std::uint32_t hai_after = f.p.timely.hai_after;
  for (int round = 0; round < 2; ++round) {
    for (std::uint32_t i = 0; i < hai_after + 3; ++i) {
      const double before = f.r();
      f.update(us(10));  // below T_low
      REQUIRE(f.r() - before == Approx((i >= hai_after ? f.p.timely.hai_factor : 1) * delta));
    }
    f.update(us(1000));  // a decrease ends the run: the next increases start at delta again
  }
}

TEST_CASE("timely: one update per segment of acknowledged bytes", "[cc][timely]") {
  Flow f;
  const std::uint64_t seg = f.p.timely.segment_bytes;
  const auto acks = static_cast<int>(seg / kMtu);
  AckInfo a;
  a.acked_bytes = kMtu;
  a.rtt = us(100);
  for (int i = 0; i < acks; ++i) on_ack(f.s, f.p, 0, a);  // first completion: record
  a.rtt = us(1000);
  for (int i = 0; i < acks - 1; ++i) on_ack(f.s, f.p, 0, a);
  REQUIRE(f.r() == static_cast<double>(kLine));
  on_ack(f.s, f.p, 0, a);
  REQUIRE(f.r() == Approx(static_cast<double>(kLine) * 0.6));
}

TEST_CASE("timely: per round trip, one update per ACK past the last update's snd_nxt",
          "[cc][timely]") {
  Params p;
  p.kind = Kind::kTimely;
  REQUIRE(p.timely.per_rtt);  // the default, as HPCC-ns3
  State s;
  init(s, p, kLine, kRtt, kMtu);
  AckInfo a;
  a.acked_bytes = kMtu;
  a.rtt = us(100);
  a.acked_seq = kMtu;
  a.snd_nxt = 10 * kMtu;
  on_ack(s, p, 0, a);  // first update: records the RTT, next update after byte 10 x MTU
  a.rtt = us(1000);
  for (std::uint64_t k = 2; k <= 10; ++k) {
    a.acked_seq = k * kMtu;
    a.snd_nxt = (10 + k) * kMtu;
    on_ack(s, p, 0, a);
    REQUIRE(s.timely.rate == static_cast<double>(kLine));  // same round trip: no update
  }
  // The acknowledgement of the first byte sent after that update completes the round trip, at
  // any rate: a flow at its floor updates as often as one at line rate.
  a.acked_seq = 11 * kMtu;
  on_ack(s, p, 0, a);
  REQUIRE(s.timely.rate == Approx(static_cast<double>(kLine) * 0.6));
}

TEST_CASE("timely: rate stays within [min_rate, line rate]", "[cc][timely]") {
  Flow f;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    f.complete(static_cast<Time>(rng() % us(3000)) + 1);
    REQUIRE(rate(f.s) >= f.p.timely.min_rate);
    REQUIRE(rate(f.s) <= kLine);
  }
}
