#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "net/cc/congestion_control.hpp"

using namespace fabricsim::net::cc;
using fabricsim::core::kMicrosecond;

namespace {
constexpr Bps kLine = 400'000'000'000ULL;
constexpr Time kRtt = 6 * kMicrosecond;
}  // namespace

TEST_CASE("cc: kind names round-trip and unknown names are rejected", "[cc]") {
  for (Kind k : {Kind::kNone, Kind::kDcqcn, Kind::kHpcc, Kind::kDctcp, Kind::kTimely}) {
    REQUIRE(parse_kind(name(k)) == k);
  }
  REQUIRE_THROWS_AS(parse_kind("DCQCN"), std::invalid_argument);
  REQUIRE_THROWS_WITH(parse_kind("swift"), Catch::Contains("swift") && Catch::Contains("hpcc"));
}

TEST_CASE("cc: the state is plain data", "[cc]") {
  STATIC_REQUIRE(std::is_trivially_copyable_v<State>);
  STATIC_REQUIRE(std::is_trivially_destructible_v<State>);
}

TEST_CASE("cc: none sends at line rate without a window and ignores every hook", "[cc]") {
  Params p;
  p.kind = Kind::kNone;
  State s;
  init(s, p, kLine, kRtt, 4096);
  AckInfo a;
  a.acked_bytes = 4096;
  a.ecn_echo = true;
  a.rtt = 10 * kRtt;
  advance(s, p, kRtt);
  on_cnp(s, p, kRtt);
  on_send(s, p, kRtt, 4096);
  on_ack(s, p, kRtt, a);
  REQUIRE(rate(s) == kLine);
  REQUIRE(window_bytes(s) == 0);
}

TEST_CASE("cc: each kind reacts only to its own signal", "[cc]") {
  AckInfo marked;
  marked.acked_bytes = 4096;
  marked.acked_seq = 4096;
  marked.snd_nxt = 1'000'000;
  marked.ecn_echo = true;
  for (Kind k : {Kind::kDcqcn, Kind::kHpcc, Kind::kDctcp, Kind::kTimely}) {
    Params p;
    p.kind = k;
    State s;
    init(s, p, kLine, kRtt, 4096);
    const Bps r0 = rate(s);
    const std::uint64_t w0 = window_bytes(s);
    REQUIRE(r0 == kLine);
    on_cnp(s, p, kRtt);
    // DCQCN (ConnectX) cuts on its next rate-reduce check, one period after the first CNP.
    advance(s, p, kRtt + p.dcqcn.rate_reduce_period);
    REQUIRE((rate(s) < r0) == (k == Kind::kDcqcn));
    on_ack(s, p, 2 * kRtt, marked);
    REQUIRE((window_bytes(s) < w0) == (k == Kind::kDctcp));
    // Window-based kinds expose the line-rate BDP at start, rate-based ones no window.
    const bool windowed = k == Kind::kHpcc || k == Kind::kDctcp;
    REQUIRE((w0 != 0) == windowed);
    if (windowed) REQUIRE(w0 == 300'000);  // 400 Gb/s x 6 us / 8
  }
}

TEST_CASE("cc: validate names the offending key", "[cc]") {
  Params p;
  REQUIRE(validate(p) == nullptr);
  p.dcqcn.alpha_period = 0;
  REQUIRE(std::string(validate(p)).find("alpha_period") != std::string::npos);
  p = Params{};
  p.kind = Kind::kHpcc;
  p.hpcc.eta = 1.5;
  REQUIRE(std::string(validate(p)).find("eta") != std::string::npos);
  p = Params{};
  p.kind = Kind::kTimely;
  p.timely.t_high = p.timely.t_low;
  REQUIRE(validate(p) != nullptr);
  p = Params{};
  p.kind = Kind::kDctcp;
  p.dctcp.g = 0;
  REQUIRE(validate(p) != nullptr);
}
