#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
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

TEST_CASE("event queue stays exact with far events and pushes earlier than a peek",
          "[event_queue]") {
  // Delays spanning seven orders of magnitude; now and then the queue is peeked at and an event
  // earlier than the peeked one is pushed, as the kernel does after a window.
  Rng rng(99, 0);
  EventQueue<E> q;
  std::vector<E> ref;
  std::uint64_t seq = 0;
  Time now = 0;
  auto add = [&](Time t) {
    const E e{t, rng.below(3), 0, seq++, 0, {int(seq)}};
    q.push(e);
    ref.push_back(e);
  };
  for (int i = 0; i < 3000; ++i) add(Time(rng.exponential(1e3)));
  for (int step = 0; step < 30000; ++step) {
    auto it = std::min_element(ref.begin(), ref.end(),
                               [](const E& a, const E& b) { return before(a, b); });
    REQUIRE(q.next_time() == it->time);
    const E got = q.pop();
    REQUIRE(got.payload.tag == it->payload.tag);
    ref.erase(it);
    now = got.time;
    const double scale = std::pow(10.0, double(rng.below(8)));
    add(now + Time(rng.exponential(scale)));
    if (rng.below(4) == 0) {
      const Time peek = q.next_time();
      if (peek > now)
        add(now + Time(rng.below(std::uint32_t(std::min<Time>(peek - now, 1 << 30)))));
    }
  }
  REQUIRE(q.size() == ref.size());
}

TEST_CASE("a popped event stays in place while more are pushed, until released", "[event_queue]") {
  // The kernel hands handlers the event in its slot; the handler pushes new events meanwhile.
  EventQueue<E> q;
  q.push(E{5, 1, 2, 0, 3, {77}});
  const std::uint32_t slot = q.pop_slot();
  const E& held = q.at(slot);
  for (int i = 0; i < 5000; ++i) q.push(E{Time(10 + i), 0, 0, std::uint64_t(i), 0, {i}});
  REQUIRE(held.time == 5);
  REQUIRE(held.src == 1);
  REQUIRE(held.payload.tag == 77);
  q.release(slot);
  q.push(E{1, 0, 0, 9999, 0, {-1}});  // reuses the released slot
  REQUIRE(q.pop().payload.tag == -1);
  REQUIRE(q.pop().payload.tag == 0);
}
