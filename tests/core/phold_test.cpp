#include <catch2/catch.hpp>

#include "core/phold.hpp"

using namespace fabricsim::core;

namespace {
PholdParams small(std::uint32_t lps, unsigned threads) {
  PholdParams p;
  p.nodes = 256;
  p.events_per_node = 4;
  p.end = 40 * kMicrosecond;
  p.lps = lps;
  p.threads = threads;
  p.seed = 11;
  p.trace_hash = true;
  return p;
}
}  // namespace

TEST_CASE("PHOLD trace is bit-identical for every thread count and partition",
          "[phold][determinism]") {
  const PholdResult reference = run_phold(small(1, 1));  // sequential reference: one LP
  REQUIRE(reference.stats.windows == 1);
  REQUIRE(reference.stats.events > 10000);
  for (unsigned threads : {1u, 2u, 4u, 8u}) {
    for (std::uint32_t lps : {1u, 4u, 64u}) {
      CAPTURE(threads, lps);
      const PholdResult r = run_phold(small(lps, threads));
      REQUIRE(r.stats.events == reference.stats.events);
      REQUIRE(r.trace_hash == reference.trace_hash);
      if (lps > 1) {
        REQUIRE(r.stats.windows > 1);
        REQUIRE(r.stats.mailbox_events > 0);
      }
    }
  }
}

TEST_CASE("PHOLD trace hash sees a different seed", "[phold][determinism]") {
  PholdParams p = small(4, 2);
  const auto a = run_phold(p);
  p.seed = 12;
  const auto b = run_phold(p);
  REQUIRE(a.trace_hash != b.trace_hash);
}

TEST_CASE("PHOLD keeps its event population and its windows honour the lookahead", "[phold]") {
  // Every event makes exactly one, so the population stays N*E; with a fixed delay of at least
  // the lookahead, each node handles about end / (lookahead + mean) * E events.
  PholdParams p = small(8, 2);
  const auto r = run_phold(p);
  const double expected =
      double(p.nodes) * p.events_per_node * double(p.end) / double(p.lookahead + p.mean_delay);
  REQUIRE(double(r.stats.events) > 0.85 * expected);
  REQUIRE(double(r.stats.events) < 1.15 * expected);
  REQUIRE(r.stats.lookahead == p.lookahead);
  // Windows are L wide; the span is end, so there are at most end/L + 1 of them.
  REQUIRE(r.stats.windows <= std::uint64_t(p.end / p.lookahead) + 1);
  REQUIRE(r.stats.end_time < p.end);
}
