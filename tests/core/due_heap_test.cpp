#include "core/due_heap.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>
#include <utility>

using fabricsim::core::DueHeap;
using fabricsim::core::Time;

TEST_CASE("due heap: earliest first, ties by id, as an ordered set of (time, id) gives them",
          "[due_heap]") {
  DueHeap heap;
  std::set<std::pair<Time, std::uint32_t>> ref;
  std::map<std::uint32_t, Time> at;  // the reference's current time per id
  std::mt19937_64 rng(7);
  constexpr std::uint32_t kIds = 64;
  for (int step = 0; step < 20000; ++step) {
    const auto id = static_cast<std::uint32_t>(rng() % kIds);
    const int what = static_cast<int>(rng() % 4);
    if (what <= 1) {  // set: insert, or move earlier or later (few distinct times: many ties)
      const Time t = static_cast<Time>(rng() % 50);
      if (at.count(id)) ref.erase({at[id], id});
      at[id] = t;
      ref.insert({t, id});
      heap.set(id, t);
    } else if (what == 2) {
      if (at.count(id)) ref.erase({at[id], id});
      at.erase(id);
      heap.erase(id);
    } else if (!ref.empty()) {
      const auto [t, i] = *ref.begin();
      REQUIRE(heap.top() != nullptr);
      CHECK(heap.top()->at == t);
      CHECK(heap.top()->id == i);
      ref.erase(ref.begin());
      at.erase(i);
      heap.pop();
    }
    if (ref.empty()) {
      REQUIRE(heap.top() == nullptr);
    } else {
      REQUIRE(heap.top() != nullptr);
      REQUIRE(heap.top()->at == ref.begin()->first);
      REQUIRE(heap.top()->id == ref.begin()->second);
    }
  }
}
