#include <barrier>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "core/mailbox.hpp"

using namespace fabricsim::core;

TEST_CASE("mailbox delivers round r's events in round r+1, in order, across threads", "[mailbox]") {
  // A producer and a consumer thread run rounds separated by a barrier, as LPs do. In round r
  // the producer pushes r events numbered from a running counter while the consumer drains what
  // was pushed in round r-1, concurrently.
  constexpr std::uint64_t kRounds = 2000;
  Mailbox<std::uint64_t> box;
  std::barrier sync(2);
  std::uint64_t received = 0, bad = 0, next_expected = 0;
  std::thread producer([&] {
    std::uint64_t counter = 0;
    for (std::uint64_t r = 1; r <= kRounds; ++r) {
      for (std::uint64_t i = 0; i < r % 17; ++i) box.push(r, counter++);
      sync.arrive_and_wait();
    }
  });
  std::thread consumer([&] {
    for (std::uint64_t r = 1; r <= kRounds + 1; ++r) {
      box.drain(r, [&](std::uint64_t v) {
        if (v != next_expected) ++bad;
        next_expected = v + 1;
        ++received;
      });
      if (r <= kRounds) sync.arrive_and_wait();
    }
  });
  producer.join();
  consumer.join();
  std::uint64_t sent = 0;
  for (std::uint64_t r = 1; r <= kRounds; ++r) sent += r % 17;
  REQUIRE(bad == 0);
  REQUIRE(received == sent);
}

TEST_CASE("mailbox drain does not see the current round's pushes", "[mailbox]") {
  Mailbox<int> box;
  box.push(5, 1);
  int seen = 0;
  REQUIRE(box.drain(5, [&](int) { ++seen; }) == 0);
  REQUIRE(box.drain(6, [&](int) { ++seen; }) == 1);
  REQUIRE(seen == 1);
  REQUIRE(box.drain(7, [&](int) { ++seen; }) == 0);
}
