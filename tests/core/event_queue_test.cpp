#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "core/event_queue.hpp"
#include "core/rng.hpp"

using namespace fabricsim::core;

namespace {
struct P {
  int tag;
};
using E = Event<P>;
}  // namespace

TEST_CASE("event queue pops in (time, source, sequence) order", "[event_queue]") {
  Rng rng(42, 0);
  std::vector<E> all;
  // Few distinct times and sources, so ties on time and on source are common.
  for (int i = 0; i < 5000; ++i) {
    all.push_back(E{Time(rng.below(20)), rng.below(8), 0, rng.next() % 1000, 0, {i}});
  }
  EventQueue<E> q;
  for (const E& e : all) q.push(e);
  REQUIRE(q.size() == all.size());
  std::stable_sort(all.begin(), all.end(), [](const E& a, const E& b) { return before(a, b); });
  for (const E& expect : all) {
    const E got = q.pop();
    REQUIRE(got.time == expect.time);
    REQUIRE(got.src == expect.src);
    REQUIRE(got.seq == expect.seq);
  }
  REQUIRE(q.empty());
  REQUIRE(q.next_time() == kTimeMax);
}

TEST_CASE("event queue interleaves pushes and pops correctly", "[event_queue]") {
  Rng rng(7, 1);
  EventQueue<E> q;
  std::vector<E> ref;
  std::uint64_t seq = 0;
  Time now = 0;
  for (int step = 0; step < 20000; ++step) {
    if (ref.empty() || rng.below(3) != 0) {
      E e{now + Time(rng.below(100)), rng.below(4), 0, seq++, 0, {step}};
      q.push(e);
      ref.push_back(e);
    } else {
      auto it = std::min_element(ref.begin(), ref.end(),
                                 [](const E& a, const E& b) { return before(a, b); });
      const E got = q.pop();
      REQUIRE(got.payload.tag == it->payload.tag);
      now = got.time;
      ref.erase(it);
    }
    REQUIRE(q.size() == ref.size());
  }
}
