#include "core/parallel.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

using namespace fabricsim::core;

TEST_CASE("parallel_for calls every index once and returns when all are done", "[parallel]") {
  for (unsigned threads : {1u, 2u, 4u}) {
    for (std::size_t n : {0, 1, 7, 100}) {
      std::vector<int> ran(n, 0);  // each call writes only its own entry
      parallel_for(threads, n, [&](std::size_t i) { ++ran[i]; });
      REQUIRE(ran == std::vector<int>(n, 1));
    }
  }
}

TEST_CASE("parallel_for never runs more calls at once than its threads", "[parallel]") {
  std::atomic<int> running{0}, most{0};
  parallel_for(2, 64, [&](std::size_t) {
    const int now = ++running;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    volatile double x = 0;
    for (int k = 0; k < 20000; ++k) x = x + k;
    --running;
  });
  REQUIRE(most <= 2);
}

TEST_CASE("parallel_for rethrows the error of the lowest failing index", "[parallel]") {
  // One thread: indices run in order, so index 1 fails first and 3 is skipped.
  std::vector<int> ran(4, 0);
  const auto f = [&](std::size_t i) {
    ++ran[i];
    if (i == 1) throw std::runtime_error("index 1");
    if (i == 3) throw std::logic_error("index 3");
  };
  REQUIRE_THROWS_WITH(parallel_for(1, 4, f), "index 1");
  REQUIRE(ran == std::vector<int>{1, 1, 0, 0});
  // Several threads: indices start in order and a started call always finishes, so index 2
  // has run whenever 5 did, and its error is the one reported.
  const auto both = [](std::size_t i) {
    if (i == 2 || i == 5) throw std::runtime_error("index " + std::to_string(i));
  };
  for (int round = 0; round < 20; ++round) {
    try {
      parallel_for(4, 6, both);
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      REQUIRE(std::string(e.what()) == "index 2");
    }
  }
}
