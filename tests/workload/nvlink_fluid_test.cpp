#include "workload/nvlink_fluid.hpp"

#include <catch2/catch.hpp>

#include "core/error.hpp"

using namespace fabricsim;
using fabricsim::workload::kSwitchEnd;
using fabricsim::workload::NvlinkFluid;

TEST_CASE("one transfer runs at the full capacity", "[workload]") {
  NvlinkFluid f(2, 1.0);  // 1 byte per ps
  f.add(0, 0, 1, 1000, 7);
  REQUIRE(f.next_finish() == 1000);
  std::vector<std::uint64_t> done;
  f.finish(999, done);
  REQUIRE(done.empty());
  f.finish(1000, done);
  REQUIRE(done == std::vector<std::uint64_t>{7});
  REQUIRE(f.idle());
}

TEST_CASE("transfers share a port max-min fairly", "[workload]") {
  NvlinkFluid f(3, 1.0);
  // Two transfers out of GPU 0 share its egress; a third into GPU 2 from GPU 1 takes what the
  // ingress of GPU 2 has left: 0.5.
  f.add(0, 0, 1, 1000, 1);
  f.add(0, 0, 2, 1000, 2);
  f.add(0, 1, 2, 1000, 3);
  REQUIRE(f.next_finish() == 2000);
  std::vector<std::uint64_t> done;
  f.finish(2000, done);
  REQUIRE(done.size() == 3);
}

TEST_CASE("a finished transfer hands its share to the others", "[workload]") {
  NvlinkFluid f(2, 1.0);
  f.add(0, 0, 1, 500, 1);
  f.add(0, 0, 1, 1500, 2);
  REQUIRE(f.next_finish() == 1000);  // both at 0.5
  std::vector<std::uint64_t> done;
  f.finish(1000, done);
  REQUIRE(done == std::vector<std::uint64_t>{1});
  // 1000 bytes left on the second, now alone at 1 byte/ps.
  REQUIRE(f.next_finish() == 2000);
}

TEST_CASE("the switch end of an NVLS transfer is not a constraint", "[workload]") {
  NvlinkFluid f(2, 1.0);
  f.add(0, 0, kSwitchEnd, 1000, 1);
  f.add(0, kSwitchEnd, 1, 1000, 2);
  REQUIRE(f.next_finish() == 1000);
  REQUIRE_THROWS(f.add(0, kSwitchEnd, kSwitchEnd, 10, 3));
  REQUIRE_THROWS(f.add(0, 0, 5, 10, 3));
}

TEST_CASE("nvlink fluid: a transfer that would end past the largest time is an error",
          "[workload]") {
  // 1e18 bytes at 1 byte/ps: 1e18 ps, fine; at 1e-3 byte/ps (1 GB/s) it would take 1e21 ps.
  NvlinkFluid ok(2, 1.0);
  ok.add(0, 0, 1, 1e18, 1);
  REQUIRE(ok.next_finish() == 1'000'000'000'000'000'000);
  NvlinkFluid slow(2, 1e-3);
  REQUIRE_THROWS_AS(
      [&] {
        slow.add(0, 0, 1, 1e18, 1);
        return slow.next_finish();
      }(),
      core::HorizonError);
}

TEST_CASE("a transfer's own rate bound holds it below its fair share; the others take the rest",
          "[workload]") {
  NvlinkFluid f(3, 1.0);
  // Both leave GPU 0 (fair share 0.5 each); the first may not exceed 0.25, so the second gets
  // the remaining 0.75 of the egress.
  f.add(0, 0, 1, 250, 1, 0.25);
  f.add(0, 0, 2, 750, 2);
  REQUIRE(f.next_finish() == 1000);
  std::vector<std::uint64_t> done;
  f.finish(1000, done);
  REQUIRE(done.size() == 2);
  // A bound above the fair share changes nothing.
  f.add(1000, 0, 1, 500, 3, 0.9);
  f.add(1000, 0, 2, 500, 4);
  REQUIRE(f.next_finish() == 2000);
  REQUIRE_THROWS(f.add(2000, 0, 1, 10, 5, 0.0));
}

TEST_CASE("nvlink fluid: alike transfers started together share as separate ones and end together",
          "[workload]") {
  // Three alike transfers 0 -> 1 (a collective's channels) and one 0 -> 2, all at t = 0: GPU 0's
  // egress is shared four ways, so all end at 4000 ps; tags come back in the order added.
  NvlinkFluid f(3, 1.0);
  f.add(0, 0, 1, 1000, 10);
  f.add(0, 0, 2, 1000, 20);
  f.add(0, 0, 1, 1000, 11);
  f.add(0, 0, 1, 1000, 12);
  REQUIRE(f.next_finish() == 4000);
  std::vector<std::uint64_t> done;
  f.finish(4000, done);
  REQUIRE(done == std::vector<std::uint64_t>{10, 20, 11, 12});
  REQUIRE(f.idle());
  // Alike ends but another size or bound: transfers of their own. The bounded one runs at 0.25,
  // the other two at 0.375 each: 500 bytes take 1334 ps (rounded up).
  f.add(4000, 0, 1, 1500, 1);
  f.add(4000, 0, 1, 500, 2);
  f.add(4000, 0, 1, 1500, 3, 0.25);
  REQUIRE(f.next_finish() == 4000 + 1334);
  done.clear();
  f.finish(4000 + 1334, done);
  REQUIRE(done == std::vector<std::uint64_t>{2});
}
