// The kernel over MPI ranks (core/ranks.hpp). ctest runs this under mpirun with 2 and 4 ranks,
// and once alone (one rank): every rank runs the same cases, each first computing its own
// single-process reference, and the job's results must equal it bit for bit.
#include <catch2/catch.hpp>

#include "core/phold.hpp"
#include "core/ranks.hpp"
#include "tests/core/streams_model.hpp"

using namespace fabricsim::core;

TEST_CASE("PHOLD over MPI ranks processes the same events as one process", "[ranks]") {
  PholdParams p;
  p.nodes = 96;
  p.events_per_node = 4;
  p.end = 40 * kMicrosecond;
  p.trace_hash = true;
  p.lps = 6;
  const PholdResult reference = run_phold(p);
  REQUIRE(reference.stats.events > 5000);
  for (unsigned threads : {1u, 2u}) {
    p.threads = threads;
    p.ranks = &Ranks::world();
    const PholdResult r = run_phold(p);
    REQUIRE(r.stats.events == reference.stats.events);
    REQUIRE(r.stats.mailbox_events == reference.stats.mailbox_events);
    REQUIRE(r.stats.windows == reference.stats.windows);
    REQUIRE(r.stats.end_time == reference.stats.end_time);
    REQUIRE(r.trace_hash == reference.trace_hash);
  }
}

TEST_CASE("FIFO channels and their attachments cross MPI ranks in order", "[ranks]") {
  std::uint64_t reference_hash = 0;
  const auto reference = fabricsim::core::test::run_streams(true, {0, 0, 0, 0}, 1, &reference_hash);
  const Ranks& ranks = Ranks::world();
  for (const auto& [lps, threads] : {std::pair<std::vector<LpId>, unsigned>{{0, 1, 2, 3}, 1},
                                     {{0, 1, 2, 3}, 2},
                                     {{0, 0, 1, 1}, 2},
                                     {{0, 1, 2, 2}, 1}}) {
    const LpId n_lps = lps.back() + 1;
    if (n_lps < static_cast<LpId>(ranks.size())) continue;  // every rank needs an LP
    std::uint64_t hash = 0;
    const auto got = fabricsim::core::test::run_streams(true, lps, threads, &hash, &ranks);
    REQUIRE(hash == reference_hash);
    // Each rank holds what its own nodes received: exactly the reference's.
    for (NodeId v = 0; v < lps.size(); ++v) {
      const bool mine =
          static_cast<int>(std::uint64_t{lps[v]} * static_cast<std::uint64_t>(ranks.size()) /
                           n_lps) == ranks.rank();
      if (mine) REQUIRE(got[v] == reference[v]);
    }
  }
}

TEST_CASE("more MPI ranks than logical processes is an error that says so", "[ranks]") {
  PholdParams p;
  p.nodes = 8;
  p.lps = 1;
  p.ranks = &Ranks::world();
  if (Ranks::world().size() == 1) {
    REQUIRE(run_phold(p).stats.events > 0);
  } else {
    REQUIRE_THROWS_WITH(run_phold(p),
                        Catch::Contains("1 logical processes for") && Catch::Contains("MPI ranks"));
  }
}
