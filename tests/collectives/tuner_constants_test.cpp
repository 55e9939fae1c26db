// NCCL's tuning constants by release (collectives/tuner_constants.hpp): figures read from the
// NVIDIA/nccl tags, and the choices they change.
#include <catch2/catch.hpp>

#include "collectives/protocol.hpp"
#include "collectives/tuner_constants.hpp"
#include "collectives/tuning.hpp"
#include "layouts.hpp"

using namespace fabricsim::collectives;
using namespace fabricsim::collectives::test;

namespace {

constexpr std::size_t kNet = static_cast<std::size_t>(Hop::Net);
constexpr std::size_t kBlackwell = static_cast<std::size_t>(Arch::Blackwell);

Choice two_h100_nodes(std::uint64_t bytes, int version) {
  Hardware hw = ndr_node(Arch::Hopper, true);
  hw.nccl_version = version;
  return choose(TuningInput{Op::AllReduce, bytes, 16, 2, hw});
}

}  // namespace

TEST_CASE("hop latencies are each release's tuning.cc figures", "[collectives]") {
  // NVLSTree over the network: 19 us in 2.18, 14 from 2.19.1, 20.9 from 2.28.9.
  CHECK(hw_latency_us(Algo::NvlsTree, Proto::Simple, Hop::Net, 21803) == 19);
  CHECK(base_latency_us(Algo::NvlsTree, Proto::Simple, 21803) == 23);
  CHECK(hw_latency_us(Algo::NvlsTree, Proto::Simple, Hop::Net, 22602) == 14);
  CHECK(hw_latency_us(Algo::NvlsTree, Proto::Simple, Hop::Net, 22807) == 14);
  CHECK(hw_latency_us(Algo::NvlsTree, Proto::Simple, Hop::Net, 22809) == 20.9);
  CHECK(hw_latency_us(Algo::NvlsTree, Proto::Simple, Hop::Net, kNcclVersionModelled) == 20.9);
  // NVLS over NVLink: 0 (2.18: in the base latency), 23 (2.19-2.20), 25 from 2.21.
  CHECK(hw_latency_us(Algo::Nvls, Proto::Simple, Hop::NVLink, 21806) == 0);
  CHECK(hw_latency_us(Algo::Nvls, Proto::Simple, Hop::NVLink, 22005) == 23);
  CHECK(hw_latency_us(Algo::Nvls, Proto::Simple, Hop::NVLink, 22105) == 25);
  // Tree Simple: 28 us on every hop with no base in 2.19-2.22; 8.4 + 4 / 4 / 14 from 2.23.
  CHECK(hw_latency_us(Algo::Tree, Proto::Simple, Hop::NVLink, 22203) == 28);
  CHECK(base_latency_us(Algo::Tree, Proto::Simple, 22203) == 0);
  CHECK(hw_latency_us(Algo::Tree, Proto::Simple, Hop::PCI, 21803) == 6);
  CHECK(hw_latency_us(Algo::Tree, Proto::Simple, Hop::NVLink, 22304) == 4);
  CHECK(base_latency_us(Algo::Tree, Proto::Simple, 22304) == 8.4);
  // Ring Simple over the network: 9.6 us in 2.17, 14 after; P2P reads the ring's row.
  CHECK(hw_latency_us(Algo::Ring, Proto::Simple, Hop::Net, 21701) == 9.6);
  CHECK(hw_latency_us(Algo::P2P, Proto::Simple, Hop::Net, 21801) == 14);
  // Versions before the oldest ported take its figures.
  CHECK(hw_latency_us(Algo::Ring, Proto::LL, Hop::NVLink, 21000) == 0.47);
}

TEST_CASE("bandwidth caps and model rules change where NCCL changed them", "[collectives]") {
  // Hopper's own LL row from 2.21 (Ampere's figures before); ring LL at a quarter before 2.21.
  CHECK(tuner_constants(22005).ll_max_bw[2][0] == 87.7);
  CHECK(tuner_constants(22105).ll_max_bw[2][0] == 141.0);
  CHECK(tuner_constants(22005).ring_ll_quarter);
  CHECK_FALSE(tuner_constants(22105).ring_ll_quarter);
  CHECK(tuner_constants(22203).ring_ar_all_nodes);
  CHECK_FALSE(tuner_constants(22304).ring_ar_all_nodes);
  // Blackwell: twice Hopper's caps in 2.25-2.27, its own from 2.28.3; ring LL128 34.6 at two
  // nodes from 2.28.7, 34.5 from 2.29.2, 40 from 2.29.7.
  CHECK(tuner_constants(22602).tree_ll128[kBlackwell][1] == 73.4);
  CHECK(tuner_constants(22803).tree_ll128[kBlackwell][1] == 31.67);
  CHECK(tuner_constants(22807).ring_ll128[kBlackwell][1] == 34.6);
  CHECK(tuner_constants(22902).ring_ll128[kBlackwell][0] == 34.5);
  CHECK(tuner_constants(kNcclVersionModelled).ring_ll128[kBlackwell][0] == 40.0);
  CHECK(tuner_constants(22809).nvls_tree[kBlackwell][2] == 43.8);
  CHECK(tuner_constants(kNcclVersionModelled).nvls_tree[kBlackwell][2] == 80.0);
  CHECK(table_algo(Algo::P2P) == TableAlgo::Ring);
  CHECK(hw_latency_us(Algo::Nvls, Proto::Simple, Hop::Net, 22602) ==
        tuner_constants(22602).hw_lat[kNet][static_cast<std::size_t>(TableAlgo::Nvls)][2]);
}

TEST_CASE("the release's constants steer the choice", "[collectives]") {
  // Two 8-GPU H100 nodes: with NVLSTree's 14 us network hop (2.19-2.28.7) NCCL's model prefers
  // it from 1 MiB; with 20.9 us (2.28.9 on) tree LL128 keeps 1-2 MiB.
  for (const int v : {22105, 22602, 22707}) {
    CHECK(two_h100_nodes(1u << 20, v).algo == Algo::NvlsTree);
    CHECK(two_h100_nodes(2u << 20, v).algo == Algo::NvlsTree);
  }
  CHECK(two_h100_nodes(1u << 20, kNcclVersionModelled).algo == Algo::Tree);
  CHECK(two_h100_nodes(2u << 20, kNcclVersionModelled).algo == Algo::Tree);
  // NVLSTree came with 2.18: 2.17 keeps the tree.
  CHECK(two_h100_nodes(4u << 20, 21701).algo != Algo::NvlsTree);
  CHECK(two_h100_nodes(4u << 20, 21801).algo == Algo::NvlsTree);
  // One GPU per node: from 2.23 a ring's network hop takes the tree's figure (5 us for LL where
  // the ring's is 2.7), and 2.17 took LL's NVLink hops x 1.8 across nodes (none here).
  const auto ring_ll_latency = [](int version) {
    Hardware hw = ndr_node(Arch::Hopper);
    hw.nccl_version = version;
    for (const AlgoTime& t : algo_times(TuningInput{Op::AllReduce, 1024, 2, 2, hw}))
      if (t.algo == Algo::Ring && t.proto == Proto::LL) return t.latency_us;
    return 0.0;
  };
  CHECK(ring_ll_latency(22304) == Approx(6.6 + 2 * 5.0));
  // Before 2.23: the ring's own hop, and 2 x nodes network steps out of 2 (n - 1), so NCCL's
  // sum takes two intra-node hops (at the 1 us network overhead floor) away.
  CHECK(ring_ll_latency(22203) == Approx(6.6 - 2 * 1.0 + 4 * 2.7));
  // Ring LL on one 8-GPU A100 host: half the bus bandwidth from 2.21, a quarter before (on
  // links slow enough that LL's cap does not bind).
  Hardware hw;
  hw.arch = Arch::Ampere;
  hw.bw_intra_gbps = 5;
  hw.nccl_version = 22005;
  const auto ring_ll = [](const TuningInput& in) {
    for (const AlgoTime& t : algo_times(in))
      if (t.algo == Algo::Ring && t.proto == Proto::LL) return t.algbw_gbps;
    return 0.0;
  };
  TuningInput in{Op::AllReduce, 1u << 20, 8, 1, hw};
  const double quarter = ring_ll(in);
  in.hw.nccl_version = 22105;
  CHECK(ring_ll(in) == Approx(2 * quarter));
}
