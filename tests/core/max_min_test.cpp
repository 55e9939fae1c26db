#include "core/max_min.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "core/rng.hpp"

using fabricsim::core::MaxMinShares;

namespace {

bool contains(const std::vector<std::uint32_t>& v, std::uint32_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST_CASE("max-min shares: the classic example", "[core][maxmin]") {
  // Resources 0 and 1 of capacity 1. A uses both, B only 0, C only 1, D only 1: resource 1 is
  // the tighter (three users), so A, C and D get 1/3 and B takes the rest of resource 0, 2/3.
  MaxMinShares s({1.0, 1.0});
  const std::uint32_t both[] = {0, 1}, r0[] = {0}, r1[] = {1};
  const std::uint32_t a = s.add(both, 2), b = s.add(r0, 1), c = s.add(r1, 1), d = s.add(r1, 1);
  REQUIRE_FALSE(s.settled());
  const std::vector<std::uint32_t> changed = s.settle();
  REQUIRE(changed.size() == 4);
  REQUIRE(s.settled());
  REQUIRE(s.rate(a) == Approx(1.0 / 3));
  REQUIRE(s.rate(b) == Approx(2.0 / 3));
  REQUIRE(s.rate(c) == Approx(1.0 / 3));
  REQUIRE(s.rate(d) == Approx(1.0 / 3));
  // D leaves: A and C split resource 1, B keeps resource 0's other half.
  s.remove(d);
  const std::vector<std::uint32_t> after = s.settle();
  REQUIRE(s.rate(a) == Approx(0.5));
  REQUIRE(s.rate(b) == Approx(0.5));
  REQUIRE(s.rate(c) == Approx(0.5));
  REQUIRE(after.size() == 3);
  // Its id is handed out again.
  REQUIRE(s.add(r1, 1) == d);
}

TEST_CASE("max-min shares: a flow's own limit, and parts that do not touch", "[core][maxmin]") {
  MaxMinShares s({1.0, 1.0, 4.0});
  const std::uint32_t r0[] = {0}, r1[] = {1}, r2[] = {2};
  const std::uint32_t capped = s.add(r0, 1, 0.25), free0 = s.add(r0, 1);
  const std::uint32_t other = s.add(r1, 1);
  s.settle();
  REQUIRE(s.rate(capped) == Approx(0.25));
  REQUIRE(s.rate(free0) == Approx(0.75));
  REQUIRE(s.rate(other) == Approx(1.0));
  // A change on resource 1 re-shares only what shares resource 1.
  const std::uint32_t second = s.add(r1, 1);
  const std::vector<std::uint32_t> changed = s.settle();
  REQUIRE(contains(changed, other));
  REQUIRE(contains(changed, second));
  REQUIRE_FALSE(contains(changed, capped));
  REQUIRE_FALSE(contains(changed, free0));
  REQUIRE(s.rate(other) == Approx(0.5));
  // A flow held by its limit alone, on a roomy resource, and one with no resource at all.
  const std::uint32_t slow = s.add(r2, 1, 1.5);
  const std::uint32_t none = s.add(nullptr, 0, 2.0);
  s.settle();
  REQUIRE(s.rate(slow) == Approx(1.5));
  REQUIRE(s.rate(none) == 2.0);
  REQUIRE_THROWS(s.add(nullptr, 0));  // neither a resource nor a limit
  REQUIRE_THROWS(s.add(r0, 1, 0.0));
  s.remove(none);
  REQUIRE_THROWS(s.remove(none));
}

TEST_CASE("max-min shares: a flow grown by k shares out exactly as k flows added one by one",
          "[core][maxmin]") {
  // Random flows over 6 resources, each either added k times or added once and grown by k - 1:
  // every rate must be the same double, through adds, removals and settles.
  fabricsim::core::Rng rng(7, 0);
  for (int trial = 0; trial < 50; ++trial) {
    const std::vector<double> capacity{1.0, 2.0, 0.5, 3.0, 1.5, 1.0};
    MaxMinShares apart(capacity), grouped(capacity);
    struct Group {
      std::vector<std::uint32_t> apart;  // its k flows in `apart`
      std::uint32_t grouped;             // the one flow carrying them in `grouped`
    };
    std::vector<Group> groups;
    for (int step = 0; step < 12; ++step) {
      if (!groups.empty() && rng.below(4) == 0) {  // one group leaves
        const std::size_t g = rng.below(static_cast<std::uint32_t>(groups.size()));
        for (const std::uint32_t id : groups[g].apart) apart.remove(id);
        grouped.remove(groups[g].grouped);
        groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(g));
      } else {
        std::uint32_t res[2] = {rng.below(6), rng.below(6)};
        const std::uint32_t count = res[0] == res[1] ? 1 : 2;
        const double limit = rng.below(3) == 0 ? 0.1 + rng.uniform() : MaxMinShares::kUnlimited;
        const std::uint32_t k = 1 + rng.below(5);
        Group g;
        for (std::uint32_t i = 0; i < k; ++i) g.apart.push_back(apart.add(res, count, limit));
        g.grouped = grouped.add(res, count, limit);
        if (k > 1) grouped.grow(g.grouped, k - 1);
        groups.push_back(g);
      }
      if (rng.below(2) == 0) continue;  // several changes before one settle, sometimes
      apart.settle();
      grouped.settle();
      for (const Group& g : groups) {
        for (const std::uint32_t id : g.apart) REQUIRE(apart.rate(id) == grouped.rate(g.grouped));
      }
    }
  }
}
