// Plans are checked by running them symbolically (symbolic_executor.hpp): the final contributor
// sets must be what the collective promises, no rank reduces a contribution twice, every
// receive meets its send, and the plan does not deadlock under the credit rule.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "collectives/pat.hpp"
#include "collectives/plan.hpp"
#include "layouts.hpp"
#include "symbolic_executor.hpp"

using namespace fabricsim::collectives;
using namespace fabricsim::collectives::test;

namespace {

constexpr int kSizes[] = {2, 3, 4, 7, 8, 16, 64};

Execution run(const Plan& plan, int root = 0) {
  return execute(plan, initial_state(plan, root));
}

void check_semantics(const Call& call, const RankLayout& layout) {
  const Plan plan = make_plan(call, layout);
  const Execution ex = run(plan, call.root);
  INFO(std::string(name(call.op)) << " " << name(plan.algo) << "/" << name(plan.proto)
                                  << " n=" << layout.ranks.size() << " channels=" << plan.channels
                                  << " bytes=" << call.bytes);
  CHECK(check_result(plan, ex, call.root) == "");
}

}  // namespace

TEST_CASE("ring collectives reduce and gather every chunk exactly once", "[collectives]") {
  for (int n : kSizes) {
    for (int channels : {1, 2, 3}) {
      for (Op op : {Op::AllReduce, Op::ReduceScatter, Op::AllGather}) {
        Call call{.op = op, .algo = Algo::Ring, .proto = Proto::Simple, .channels = channels};
        call.bytes = static_cast<std::uint64_t>(n) * 4096 * channels + (op == Op::AllReduce);
        // A small chunk forces several loops per channel, so pipelining and credits matter.
        call.chunk_bytes = n <= 16 ? 512 : 4096;
        // n = 64 runs on the realistic layout only (8 GPUs per host), to keep the suite fast.
        if (n < 64) check_semantics(call, layout_one_host(n));
        check_semantics(call, layout_hosts(n, n < 64 ? 4 : 8));
      }
    }
  }
}

TEST_CASE("ring broadcast and reduce reach the root's chain", "[collectives]") {
  for (int n : kSizes) {
    for (int channels : {1, 4}) {
      for (Op op : {Op::Broadcast, Op::Reduce}) {
        for (int root : {0, n - 1, n / 2}) {
          Call call{.op = op,
                    .bytes = 100000,
                    .root = root,
                    .algo = Algo::Ring,
                    .proto = Proto::LL,
                    .channels = channels,
                    .chunk_bytes = 8192};
          check_semantics(call, layout_hosts(n, 8));
        }
      }
    }
  }
}

TEST_CASE("double binary tree all-reduce sums over all ranks", "[collectives]") {
  for (int n : kSizes) {
    for (int channels : {1, 2, 5}) {
      for (int ppn : {1, 4, 8}) {
        Call call{.op = Op::AllReduce,
                  .bytes = 300000,
                  .algo = Algo::Tree,
                  .proto = Proto::Simple,
                  .channels = channels,
                  .chunk_bytes = 16384};
        check_semantics(call, layout_hosts(n, ppn));
      }
    }
  }
}

TEST_CASE("NVLS all-reduce reduces in the switch", "[collectives]") {
  for (int n : {2, 3, 4, 7, 8}) {
    for (int channels : {2, 4}) {
      Call call{.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::Nvls, .channels = channels};
      check_semantics(call, layout_one_host(n, true));
    }
  }
}

TEST_CASE("NVLSTree all-reduce: NVLS in every host, trees between the heads", "[collectives]") {
  for (int hosts : {2, 3, 4, 5}) {
    for (int ppn : {2, 4}) {
      for (int channels : {2, 3}) {
        Call call{.op = Op::AllReduce,
                  .bytes = 1 << 20,
                  .algo = Algo::NvlsTree,
                  .channels = channels,
                  .chunk_bytes = 16384};
        const RankLayout layout = layout_hosts(hosts * ppn, ppn, true);
        check_semantics(call, layout);
        const Plan plan = make_plan(call, layout);
        CHECK(plan.switch_host.size() == static_cast<std::size_t>(hosts));
      }
    }
  }
}

TEST_CASE("NVLSTree sends each head's share across the network once up and once down",
          "[collectives]") {
  // Two hosts: one tree edge per head index and channel; every byte of the buffer crosses it
  // once reduced (up) and once summed (down).
  const int hosts = 2, ppn = 4;
  const std::uint64_t s = 1 << 20;
  Call call{.op = Op::AllReduce, .bytes = s, .algo = Algo::NvlsTree, .channels = 2};
  const Plan plan = make_plan(call, layout_hosts(hosts * ppn, ppn, true));
  std::uint64_t across = 0;
  for (int r = 0; r < hosts * ppn; ++r) {
    for (const Step& st : plan.steps[r]) {
      if (st.dir == Dir::Send && st.rail != kNoRail) across += st.bytes;
    }
  }
  CHECK(across == 2 * s);
}

TEST_CASE("CollNet all-reduce: chains or heads in every host, the sum in the switches",
          "[collectives]") {
  for (Algo algo : {Algo::CollNetChain, Algo::CollNetDirect}) {
    for (int hosts : {2, 3, 5}) {
      for (int ppn : {1, 2, 4, 8}) {
        for (int channels : {1, 3}) {
          Call call{.op = Op::AllReduce,
                    .bytes = 1 << 20,
                    .algo = algo,
                    .channels = channels,
                    .chunk_bytes = 16384};
          RankLayout layout = layout_hosts(hosts * ppn, ppn);
          layout.hw.collnet = true;
          check_semantics(call, layout);
          const Plan plan = make_plan(call, layout);
          // Chain: one aggregation agent per channel, on the channel's rail. Direct: one per
          // channel and head, each head on its own NIC.
          const int agents = algo == Algo::CollNetChain ? channels : channels * ppn;
          REQUIRE(plan.sharp_rails.size() == static_cast<std::size_t>(agents));
          for (int k = 0; k < agents; ++k) CHECK(plan.sharp_rails[k] == k % ppn);
        }
      }
    }
  }
  // Two GPUs per NIC: one head per NIC, each on its rail.
  RankLayout shared = layout_hosts(16, 8);
  for (RankInfo& r : shared.ranks) r.nic = r.local / 2;
  shared.hw.collnet = true;
  const Call call{.op = Op::AllReduce,
                  .bytes = 1 << 20,
                  .algo = Algo::CollNetDirect,
                  .channels = 2,
                  .chunk_bytes = 16384};
  check_semantics(call, shared);
  const Plan plan = make_plan(call, shared);
  CHECK(plan.sharp_rails == std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3});
}

TEST_CASE("CollNetChain sends each byte to the switches once and gets it back once",
          "[collectives]") {
  // Per host: its head sends the host's sum up and receives the total; nothing else crosses
  // the network, and no two GPUs of a host talk to each other across it.
  const int hosts = 3, ppn = 4;
  const std::uint64_t s = 1 << 20;
  Call call{.op = Op::AllReduce, .bytes = s, .algo = Algo::CollNetChain, .channels = 2};
  RankLayout layout = layout_hosts(hosts * ppn, ppn);
  layout.hw.collnet = true;
  const Plan plan = make_plan(call, layout);
  std::uint64_t up = 0, down = 0;
  for (std::size_t p = 0; p < plan.steps.size(); ++p) {
    for (const Step& st : plan.steps[p]) {
      if (st.dir != Dir::Send || st.rail == kNoRail) continue;
      if (p < static_cast<std::size_t>(plan.n_ranks)) {
        CHECK(st.peer >= plan.n_ranks);  // only to the switches
        up += st.bytes;
      } else {
        down += st.bytes;
      }
    }
  }
  CHECK(up == hosts * s);
  CHECK(down == hosts * s);
}

TEST_CASE("NVLS across hosts: NVLS in every host, the heads' sums reduced in the switches",
          "[collectives]") {
  for (int hosts : {2, 3}) {
    for (int ppn : {2, 4}) {
      for (int channels : {2, 3}) {
        Call call{.op = Op::AllReduce,
                  .bytes = 1 << 20,
                  .algo = Algo::Nvls,
                  .channels = channels,
                  .chunk_bytes = 16384};
        RankLayout layout = layout_hosts(hosts * ppn, ppn, true);
        layout.hw.collnet = true;
        check_semantics(call, layout);
        const Plan plan = make_plan(call, layout);
        CHECK(plan.switch_host.size() == static_cast<std::size_t>(hosts));
        // One aggregation agent per channel and head, on the head's NIC.
        REQUIRE(plan.sharp_rails.size() == static_cast<std::size_t>(channels * ppn));
        for (std::size_t k = 0; k < plan.sharp_rails.size(); ++k) {
          CHECK(plan.sharp_rails[k] == static_cast<int>(k) % ppn);
        }
        // Each host's heads send the host's sum once and receive the total once.
        std::uint64_t up = 0;
        for (int r = 0; r < plan.n_ranks; ++r) {
          for (const Step& st : plan.steps[r]) {
            if (st.dir == Dir::Send && st.rail != kNoRail) up += st.bytes;
          }
        }
        CHECK(up == static_cast<std::uint64_t>(hosts) * call.bytes);
      }
    }
  }
  // Without CollNet NVLS stays inside one host.
  const Call call{.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::Nvls};
  CHECK_THROWS_AS(make_plan(call, layout_hosts(8, 4, true)), PlanError);
}

TEST_CASE("CollNetChain is refused where NCCL would not run it", "[collectives]") {
  RankLayout two = layout_hosts(16, 8);
  const Call call{.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::CollNetChain};
  CHECK_THROWS_AS(make_plan(call, two), PlanError);  // collnet not enabled
  two.hw.collnet = true;
  CHECK_NOTHROW(make_plan(call, two));
  RankLayout one = layout_one_host(8);
  one.hw.collnet = true;
  CHECK_THROWS_AS(make_plan(call, one), PlanError);  // one host
  RankLayout wide = layout_hosts(32, 16);
  wide.hw.collnet = true;
  CHECK_THROWS_AS(make_plan(call, wide), PlanError);  // more than 8 GPUs per host
  Call gather = call;
  gather.op = Op::AllGather;
  CHECK_THROWS_AS(make_plan(gather, two), PlanError);
  Call ll = call;
  ll.proto = Proto::LL;
  CHECK_THROWS_AS(make_plan(ll, two), PlanError);
}

TEST_CASE("PAT all-gather and reduce-scatter deliver every block over binomial trees",
          "[collectives]") {
  for (int n : {2, 3, 4, 5, 6, 7, 8, 9, 16, 33, 64}) {
    for (int channels : {1, 3}) {
      for (Op op : {Op::AllGather, Op::ReduceScatter}) {
        // NCCL's chunk packs a rank's small share with others' into one message; a 1 KiB chunk
        // cuts the larger share into loops of one piece per message.
        for (std::uint64_t chunk : {std::uint64_t{0}, std::uint64_t{1024}}) {
          Call call{.op = op,
                    .algo = Algo::Pat,
                    .proto = Proto::Simple,
                    .channels = channels,
                    .chunk_bytes = chunk};
          call.bytes = static_cast<std::uint64_t>(n) * channels * (chunk > 0 ? 3000 : 256);
          check_semantics(call, layout_hosts(n, 1));
        }
      }
    }
  }
}

TEST_CASE("PAT sends (n-1)/n of the buffer, in log2(n) messages when the pieces are small",
          "[collectives]") {
  for (int n : {2, 4, 8, 16, 64}) {
    for (Op op : {Op::AllGather, Op::ReduceScatter}) {
      const int channels = 2;
      int dims = 0;
      while ((1 << dims) < n) ++dims;
      // Small: 64 B per rank and channel, far below half of NCCL's 512 KiB chunk: each distance
      // is one message. Large: 1 KiB chunks, three loops: one message per piece.
      for (const bool small : {true, false}) {
        Call call{.op = op, .algo = Algo::Pat, .channels = channels};
        call.chunk_bytes = small ? 0 : 1024;
        call.bytes = static_cast<std::uint64_t>(n) * channels * (small ? 64 : 3 * 1024);
        const Plan plan = make_plan(call, layout_hosts(n, 1));
        const Execution ex = run(plan);
        REQUIRE(check_result(plan, ex, 0) == "");
        for (int r = 0; r < n; ++r) {
          CHECK(ex.sent_bytes[r] == call.bytes / n * (n - 1));
          const std::uint64_t messages =
              small ? dims : static_cast<std::uint64_t>(n - 1) * 3;  // per channel
          CHECK(ex.sends[r] == messages * channels);
        }
      }
    }
  }
}

TEST_CASE("PAT packs as many pieces into a message as fit its chunk", "[collectives]") {
  // 16 ranks, a chunk of four pieces: distance 1's eight pieces take two messages, distances 2,
  // 4 and 8 (four, two and one piece) one each.
  CHECK(pat_per_post(4096, 1024, 16) == 4);
  CHECK(pat_per_post(4095, 1024, 16) == 2);
  CHECK(pat_per_post(1 << 19, 64, 16) == 8);  // at most n / 2
  CHECK(pat_per_post(1024, 1024, 16) == 1);
  for (Op op : {Op::AllGather, Op::ReduceScatter}) {
    const Call call{
        .op = op, .bytes = 16 * 1024, .algo = Algo::Pat, .channels = 1, .chunk_bytes = 4096};
    const Plan plan = make_plan(call, layout_hosts(16, 1));
    const Execution ex = run(plan);
    REQUIRE(check_result(plan, ex, 0) == "");
    for (int r = 0; r < 16; ++r) CHECK(ex.sends[r] == 5);
  }
}

TEST_CASE("PAT groups a distance's pieces into messages as NCCL's schedule does", "[collectives]") {
  // 16 ranks, four pieces per message. Over distance 1 all-gather packs consecutive offsets
  // (rank 0 sends rank 15 the blocks of ranks 0, 2, 4, 6, then 8 ... 14); reduce-scatter,
  // walking its classes bit-reversed, packs offsets of equal residue mod 4 (rank 0 sends rank 1
  // its partial sums for ranks 1, 5, 9, 13 and for 3, 7, 11, 15). NCCL 2.30.7's schedule
  // (PatAGAlgorithm, PatRSAlgorithm) gives these messages.
  const auto messages = [](Op op, int peer) {
    const Call call{
        .op = op, .bytes = 16 * 1024, .algo = Algo::Pat, .channels = 1, .chunk_bytes = 4096};
    const Plan plan = make_plan(call, layout_hosts(16, 1));
    std::set<std::set<int>> out;
    for (const Step& s : plan.steps[0]) {
      if (s.dir != Dir::Send || s.peer != peer) continue;
      std::set<int> owners;
      if (s.bundle < 0) owners.insert(plan.chunks[s.chunk].owner);
      for (const int c : s.bundle < 0 ? std::vector<int>{} : plan.bundles[s.bundle]) {
        owners.insert(plan.chunks[c].owner);
      }
      out.insert(owners);
    }
    return out;
  };
  CHECK(messages(Op::AllGather, 15) == std::set<std::set<int>>{{0, 2, 4, 6}, {8, 10, 12, 14}});
  CHECK(messages(Op::ReduceScatter, 1) == std::set<std::set<int>>{{1, 5, 9, 13}, {3, 7, 11, 15}});
}

TEST_CASE("PAT is refused where NCCL would not run it", "[collectives]") {
  const Call call{.op = Op::AllGather, .bytes = 1 << 20, .algo = Algo::Pat};
  CHECK_NOTHROW(make_plan(call, layout_hosts(8, 1)));
  CHECK_THROWS_AS(make_plan(call, layout_hosts(16, 2)), PlanError);  // two GPUs per node
  Call reduce = call;
  reduce.op = Op::AllReduce;
  CHECK_THROWS_AS(make_plan(reduce, layout_hosts(8, 1)), PlanError);
  Call ll = call;
  ll.proto = Proto::LL;
  CHECK_THROWS_AS(make_plan(ll, layout_hosts(8, 1)), PlanError);
  Call average{.op = Op::ReduceScatter, .bytes = 1 << 20, .algo = Algo::Pat};
  average.average = true;
  CHECK_THROWS_AS(make_plan(average, layout_hosts(8, 1)), PlanError);
  RankLayout old = layout_hosts(8, 1);
  old.hw.nccl_version = 22203;  // 2.22.3: before PAT
  CHECK_THROWS_AS(make_plan(call, old), PlanError);
}

TEST_CASE("all-to-all and send/recv deliver every block", "[collectives]") {
  for (int n : kSizes) {
    for (int channels : {1, 2}) {
      Call call{.op = Op::AllToAll, .algo = Algo::P2P, .channels = channels, .chunk_bytes = 1000};
      call.bytes = static_cast<std::uint64_t>(n) * 3000;
      check_semantics(call, layout_hosts(n, 8));
      Call sr{.op = Op::SendRecv,
              .bytes = 5000,
              .root = n - 1,
              .peer = 0,
              .channels = channels,
              .chunk_bytes = 1000};
      check_semantics(sr, layout_hosts(n, 8));
      // nccl-tests' sendrecv_perf: every rank sends its buffer to the next at once.
      sr.peer = Call::kShift;
      check_semantics(sr, layout_hosts(n, 8));
      const Plan shift = make_plan(sr, layout_hosts(n, 8));
      for (int r = 0; r < n; ++r) {
        std::uint64_t out = 0, in = 0;
        for (const Chunk& ch : shift.chunks) {
          out += ch.owner == r ? ch.bytes : 0;
          in += ch.dest == r ? ch.bytes : 0;
        }
        CAPTURE(n, r);
        REQUIRE(out == 5000);
        REQUIRE(in == 5000);
      }
    }
  }
  Call one{.op = Op::SendRecv, .bytes = 8, .peer = Call::kShift};
  CHECK_THROWS_WITH(make_plan(one, layout_hosts(1, 8)), Catch::Contains("needs two ranks"));
}

TEST_CASE("automatic choices produce valid plans", "[collectives]") {
  for (int n : {2, 8, 16}) {
    for (std::uint64_t bytes : {std::uint64_t{8} << 10, std::uint64_t{4} << 20}) {
      for (Op op : {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::Broadcast, Op::Reduce}) {
        Call call{.op = op, .bytes = bytes};
        check_semantics(call, layout_hosts(n, 8, n <= 8));
      }
    }
  }
}

TEST_CASE("hosts with different GPU counts get neither NVLS, NVLSTree nor CollNet by default",
          "[collectives]") {
  // Hosts of 2, 1 and 3 GPUs (6 ranks: a multiple of the host count, which the tuner once took
  // for "the same count on every host"), and of 2 and 4: the automatic choice must be one the
  // plans can run, as a forced NVLSTree is refused there.
  for (const std::vector<int>& gpus : {std::vector<int>{2, 1, 3}, std::vector<int>{2, 4}}) {
    RankLayout layout = layout_hosts(0, 1);
    for (int h = 0; h < static_cast<int>(gpus.size()); ++h) {
      for (int g = 0; g < gpus[h]; ++g) layout.ranks.push_back(RankInfo{h, g, 0});
    }
    layout.hw = ndr_node(Arch::Hopper, true);
    layout.hw.collnet = true;
    for (std::uint64_t bytes : {std::uint64_t{2} << 20, std::uint64_t{64} << 20}) {
      const Call call{.op = Op::AllReduce, .bytes = bytes};
      INFO(gpus.size() << " hosts, " << bytes << " bytes");
      const Plan plan = make_plan(call, layout);
      CHECK(plan.algo != Algo::NvlsTree);
      CHECK(plan.algo != Algo::Nvls);
      CHECK(plan.algo != Algo::CollNetChain);
      CHECK(plan.algo != Algo::CollNetDirect);
      check_semantics(call, layout);
    }
    CHECK_THROWS_AS(
        make_plan(Call{.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::NvlsTree}, layout),
        PlanError);
  }
}

TEST_CASE("CollNetDirect is offered only where its heads share rails on every host",
          "[collectives]") {
  // Four hosts of 4 GPUs with SHARP: one NIC per GPU on all, then host 0's GPUs paired on two
  // NICs. NCCL's heads (a GPU per rail) then differ between the hosts, and a forced
  // CollNetDirect is refused there: the automatic choice must not take it either.
  const auto four_hosts = [](std::vector<int> nics0) {
    RankLayout l = layout_hosts(0, 1);
    for (int g = 0; g < 4; ++g) l.ranks.push_back(RankInfo{0, g, nics0[g], 4});
    for (int h = 1; h < 4; ++h) {
      for (int g = 0; g < 4; ++g) l.ranks.push_back(RankInfo{h, g, g, 4});
    }
    l.hw = ndr_node(Arch::Hopper);
    l.hw.collnet = true;
    return l;
  };
  const RankLayout same = four_hosts({0, 1, 2, 3}), paired = four_hosts({0, 0, 1, 1});
  bool offered = false;
  for (int log2 = 10; log2 <= 30; log2 += 2) {
    const Call call{.op = Op::AllReduce, .bytes = std::uint64_t{1} << log2};
    offered |= make_plan(call, same).algo == Algo::CollNetDirect;
    CHECK(make_plan(call, paired).algo != Algo::CollNetDirect);
  }
  REQUIRE(offered);  // else this test shows nothing
  CHECK_THROWS_AS(
      make_plan(Call{.op = Op::AllReduce, .bytes = 1 << 20, .algo = Algo::CollNetDirect}, paired),
      PlanError);
}

TEST_CASE("all-to-all between hosts of different NIC counts uses rails both ends have",
          "[collectives]") {
  // Host 0's four GPUs share NIC 0; host 1 has a NIC per GPU. PXN would send to GPU 3 of host
  // 1 on rail 3, which host 0 does not have.
  RankLayout layout = layout_hosts(0, 1);
  for (int g = 0; g < 4; ++g) layout.ranks.push_back(RankInfo{0, g, 0, 1});
  for (int g = 0; g < 4; ++g) layout.ranks.push_back(RankInfo{1, g, g, 4});
  const Call call{.op = Op::AllToAll, .bytes = 8 << 20};
  check_semantics(call, layout);
  const Plan plan = make_plan(call, layout);
  for (const std::vector<Step>& steps : plan.steps) {
    for (const Step& s : steps) CHECK((s.rail == kNoRail || s.rail == 0));
  }
  // Hosts that have every NIC keep PXN's rail, the receiver's, whichever GPUs the group holds:
  // GPU 0 of one host to GPU 3 of another goes on rail 3.
  RankLayout pair = layout_hosts(0, 1);
  pair.ranks = {RankInfo{0, 0, 0, 4}, RankInfo{1, 3, 3, 4}};
  const Plan sendrecv = make_plan(Call{.op = Op::SendRecv, .bytes = 1 << 20}, pair);
  for (const Step& s : sendrecv.steps[0]) CHECK(s.rail == 3);
}

TEST_CASE("ring step counts are (n-1) or 2(n-1) per slice", "[collectives]") {
  for (int n : kSizes) {
    const int channels = 2;
    const std::uint64_t loops = 3, slices = 2;  // ring Simple: chunk = 2 slices
    const std::uint64_t chunk = 1024;
    for (Op op : {Op::AllReduce, Op::ReduceScatter, Op::AllGather}) {
      Call call{.op = op,
                .algo = Algo::Ring,
                .proto = Proto::Simple,
                .channels = channels,
                .chunk_bytes = chunk};
      call.bytes = static_cast<std::uint64_t>(n) * channels * chunk * loops;
      const Plan plan = make_plan(call, layout_hosts(n, 8));
      const std::uint64_t per_slice = op == Op::AllReduce ? 2 * (n - 1) : n - 1;
      for (int r = 0; r < n; ++r) {
        std::uint64_t sends = 0, recvs = 0;
        for (const Step& s : plan.steps[r]) (s.dir == Dir::Send ? sends : recvs) += 1;
        CHECK(sends == per_slice * loops * slices * channels);
        CHECK(recvs == sends);
      }
    }
  }
}

TEST_CASE("bytes each rank sends match the algorithm's formula", "[collectives]") {
  for (int n : kSizes) {
    const int channels = 2;
    // Divisible by n, channels, loops and slices, so every piece has the same size.
    const std::uint64_t s = static_cast<std::uint64_t>(n) * channels * 4 * 1024;
    const auto sent = [&](const Call& call, const RankLayout& layout) {
      const Plan plan = make_plan(call, layout);
      return run(plan, call.root);
    };
    const RankLayout layout = layout_hosts(n, 8);
    const Execution ar = sent({.op = Op::AllReduce,
                               .bytes = s,
                               .algo = Algo::Ring,
                               .proto = Proto::Simple,
                               .channels = channels,
                               .chunk_bytes = 2048},
                              layout);
    const Execution rs = sent({.op = Op::ReduceScatter,
                               .bytes = s,
                               .algo = Algo::Ring,
                               .proto = Proto::LL128,
                               .channels = channels},
                              layout);
    const Execution ag = sent({.op = Op::AllGather,
                               .bytes = s,
                               .algo = Algo::Ring,
                               .proto = Proto::LL,
                               .channels = channels},
                              layout);
    const Execution a2a = sent({.op = Op::AllToAll, .bytes = s, .channels = channels}, layout);
    const Execution bc = sent({.op = Op::Broadcast,
                               .bytes = s,
                               .root = 1,
                               .algo = Algo::Ring,
                               .proto = Proto::Simple,
                               .channels = 1},
                              layout);
    const Execution red = sent({.op = Op::Reduce,
                                .bytes = s,
                                .root = 1,
                                .algo = Algo::Ring,
                                .proto = Proto::Simple,
                                .channels = 1},
                               layout);
    const Execution tree = sent({.op = Op::AllReduce,
                                 .bytes = s,
                                 .algo = Algo::Tree,
                                 .proto = Proto::Simple,
                                 .channels = channels},
                                layout);
    std::uint64_t tree_total = 0;
    int bc_senders = 0;
    for (int r = 0; r < n; ++r) {
      CHECK(ar.sent_bytes[r] == 2 * (n - 1) * s / n);
      CHECK(rs.sent_bytes[r] == (n - 1) * s / n);
      CHECK(ag.sent_bytes[r] == (n - 1) * s / n);
      CHECK(a2a.sent_bytes[r] == (n - 1) * s / n);
      CHECK(red.sent_bytes[r] == (r == 1 ? 0 : s));
      if (bc.sent_bytes[r] != 0) {
        CHECK(bc.sent_bytes[r] == s);
        ++bc_senders;
      }
      tree_total += tree.sent_bytes[r];
    }
    CHECK(bc_senders == n - 1);            // all but the chain's last rank
    CHECK(tree_total == 2 * (n - 1) * s);  // every tree edge carries the data up and down
  }
}

TEST_CASE("NVLS traffic: each GPU sends its data once and its head share once", "[collectives]") {
  const int n = 8;
  const std::uint64_t s = n * 4 * 128 * 1024;
  Call call{.op = Op::AllReduce, .bytes = s, .algo = Algo::Nvls, .channels = 4};
  const Plan plan = make_plan(call, layout_one_host(n, true));
  REQUIRE(plan.steps.size() == n + 1);
  CHECK(plan.switch_host == std::vector<int>{0});
  const Execution ex = run(plan);
  REQUIRE(check_result(plan, ex, 0) == "");
  for (int r = 0; r < n; ++r) CHECK(ex.sent_bytes[r] == s + s / n);
  CHECK(ex.sent_bytes[n] == s + s * n);  // the switch: sums to heads, multicast to all
}

TEST_CASE("credits bound slices in flight and still never deadlock", "[collectives]") {
  Call call{.op = Op::AllReduce,
            .bytes = 64ull << 20,
            .algo = Algo::Ring,
            .proto = Proto::Simple,
            .channels = 1};
  Plan plan = make_plan(call, layout_one_host(8));
  CHECK(plan.credits == 4);                 // NCCL_STEPS 8 / ALLREDUCE_SLICESTEPS 2
  CHECK(plan.slice_bytes == (1ull << 20));  // 2 x 512 KiB steps
  CHECK(check_result(plan, run(plan), 0) == "");
  plan.credits = 1;  // the tightest window must still make progress
  CHECK(check_result(plan, run(plan), 0) == "");
  call.proto = Proto::LL;
  call.bytes = 1 << 20;
  const Plan ll = make_plan(call, layout_one_host(8));
  CHECK(ll.credits == 8);
  CHECK(ll.slice_bytes == 32 * 1024);
  for (const Step& s : ll.steps[0]) CHECK(s.wire_bytes == 2 * s.bytes);
}

TEST_CASE("every receive is matched and dependencies point backwards", "[collectives]") {
  Call call{.op = Op::AllReduce,
            .bytes = 1 << 16,
            .algo = Algo::Tree,
            .proto = Proto::LL128,
            .channels = 4};
  const Plan plan = make_plan(call, layout_hosts(16, 4));
  for (const auto& steps : plan.steps) {
    for (std::size_t i = 0; i < steps.size(); ++i) {
      for (std::uint32_t d : steps[i].deps) CHECK(d < i);
    }
  }
  // A broken plan is caught: drop one receive and the executor reports it.
  Plan broken = plan;
  for (auto& steps : broken.steps) {
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (steps[i].dir == Dir::Recv && steps[i].deps.empty()) {
        steps[i].dir = Dir::Send;
        steps[i].combine = Combine::None;
        break;
      }
    }
  }
  CHECK(run(broken).error != "");
}

TEST_CASE("ring plans are the same for every thread count and partition of the ranks",
          "[collectives]") {
  // Large ring plans are built on several threads, each taking every threads-th rank.
  const auto same = [](const Step& a, const Step& b) {
    return a.peer == b.peer && a.dir == b.dir && a.combine == b.combine && a.channel == b.channel &&
           a.chunk == b.chunk && a.bytes == b.bytes && a.wire_bytes == b.wire_bytes &&
           a.seq == b.seq && a.rail == b.rail &&
           std::equal(a.deps.begin(), a.deps.end(), b.deps.begin(), b.deps.end());
  };
  for (Op op : {Op::AllReduce, Op::ReduceScatter, Op::AllGather}) {
    Call call{
        .op = op, .bytes = 3 << 20, .algo = Algo::Ring, .proto = Proto::Simple, .channels = 3};
    call.chunk_bytes = 8192;
    const RankLayout layout = layout_hosts(24, 8);
    const Plan one = make_plan(call, layout, 1);
    for (unsigned threads : {2u, 3u, 5u, 64u}) {
      const Plan many = make_plan(call, layout, threads);
      REQUIRE(many.chunks.size() == one.chunks.size());
      REQUIRE(many.slice_bytes == one.slice_bytes);
      REQUIRE(many.steps.size() == one.steps.size());
      for (std::size_t r = 0; r < one.steps.size(); ++r) {
        INFO(name(op) << " threads " << threads << " rank " << r);
        REQUIRE(many.steps[r].size() == one.steps[r].size());
        for (std::size_t i = 0; i < one.steps[r].size(); ++i) {
          REQUIRE(same(many.steps[r][i], one.steps[r][i]));
        }
      }
    }
  }
}

TEST_CASE("a plan built for part of the ranks holds their steps and briefs the others",
          "[collectives]") {
  // What an MPI rank builds (Plan::held): the held ranks' steps as in the whole plan; of each
  // other one its step count, and its connections in the order its steps first use them with the
  // traffic of its sends on each.
  const auto conn = [](int self, const Step& s) {
    return s.dir == Dir::Send ? ConnBrief{self, s.peer, s.channel, s.rail, 0, 0}
                              : ConnBrief{s.peer, self, s.channel, s.rail, 0, 0};
  };
  const RankLayout layout = layout_hosts(16, 4);
  std::vector<bool> held(16);
  for (std::size_t r = 0; r < held.size(); ++r) held[r] = r % 3 == 1;
  for (const auto& [op, algo] : {std::pair{Op::AllReduce, Algo::Ring},
                                 {Op::AllReduce, Algo::Tree},
                                 {Op::AllGather, Algo::Ring},
                                 {Op::AllToAll, Algo::Auto}}) {
    Call call{.op = op, .bytes = 1 << 20, .algo = algo, .channels = 2};
    const Plan whole = make_plan(call, layout, 2);
    const Plan part = make_plan(call, layout, 2, ~std::uint64_t{0}, false, &held);
    REQUIRE(part.steps.size() == whole.steps.size());
    REQUIRE(part.briefs.size() == whole.steps.size());
    for (std::size_t p = 0; p < whole.steps.size(); ++p) {
      INFO(name(op) << " participant " << p);
      const std::vector<Step>& all = whole.steps[p];
      if (p >= held.size() || held[p]) {
        REQUIRE(part.steps[p].size() == all.size());
        for (std::size_t i = 0; i < all.size(); ++i) {
          REQUIRE(part.steps[p][i].seq == all[i].seq);
          REQUIRE(part.steps[p][i].wire_bytes == all[i].wire_bytes);
          REQUIRE(part.steps[p][i].deps.size() == all[i].deps.size());
        }
        continue;
      }
      REQUIRE(part.steps[p].empty());
      const Brief& brief = part.briefs[p];
      REQUIRE(brief.steps == all.size());
      std::vector<ConnBrief> expected;
      for (const Step& s : all) {
        const ConnBrief first = conn(static_cast<int>(p), s);
        auto it = std::find_if(expected.begin(), expected.end(),
                               [&](const ConnBrief& c) { return c.key() == first.key(); });
        if (it == expected.end()) it = expected.insert(expected.end(), first);
        if (s.dir == Dir::Send) {
          ++it->messages;
          it->bytes += std::max<std::uint64_t>(1, s.wire_bytes) * s.copies;
        }
      }
      REQUIRE(brief.conns.size() == expected.size());
      for (std::size_t c = 0; c < expected.size(); ++c) {
        REQUIRE(brief.conns[c].key() == expected[c].key());
        REQUIRE(brief.conns[c].rail == expected[c].rail);
        REQUIRE(brief.conns[c].messages == expected[c].messages);
        REQUIRE(brief.conns[c].bytes == expected[c].bytes);
      }
    }
  }
}
