// Network transports: what each reports to NCCL's tuner, what a hop takes, and the tuner's
// choices that follow.
#include "collectives/transport.hpp"

#include <catch2/catch.hpp>

#include "collectives/protocol.hpp"
#include "collectives/tuning.hpp"
#include "layouts.hpp"

using namespace fabricsim::collectives;
using fabricsim::collectives::test::ndr_node;

TEST_CASE("every transport is found by its name", "[collectives]") {
  for (Transport t : {Transport::Ib, Transport::EfaP4d, Transport::EfaP5, Transport::EfaP5en}) {
    REQUIRE(find_transport(transport_facts(t).name) == t);
  }
  CHECK_FALSE(find_transport("efa").has_value());
  CHECK_FALSE(find_transport("").has_value());
  CHECK(transport_names() == "ib, efa-p4d, efa-p5, efa-p5en");
}

TEST_CASE("NCCL's IB transport keeps NCCL's own network hop latencies", "[collectives]") {
  for (Algo a : {Algo::Ring, Algo::Tree, Algo::NvlsTree}) {
    for (Proto p : {Proto::LL, Proto::LL128, Proto::Simple}) {
      CHECK(net_hop_latency_us(Transport::Ib, a, p, kNcclVersionModelled) ==
            hw_latency_us(a, p, Hop::Net, kNcclVersionModelled));
      CHECK(tuned_net_latency_us(Transport::Ib, a, p, kNcclVersionModelled) ==
            hw_latency_us(a, p, Hop::Net, kNcclVersionModelled));
    }
  }
}

TEST_CASE("EFA's hop is its message latency; its tuner sees the latency it reports",
          "[collectives]") {
  // aws-ofi-nccl's model for p5: 20 us per message, +3 us completion for Simple; p5 reports
  // 75 us, which NCCL adds per hop and again for Simple (tuning.cc "flush extra latency").
  CHECK(net_hop_latency_us(Transport::EfaP5, Algo::Tree, Proto::LL, kNcclVersionModelled) == 20.0);
  CHECK(net_hop_latency_us(Transport::EfaP5, Algo::Ring, Proto::Simple, kNcclVersionModelled) ==
        23.0);
  CHECK(tuned_net_latency_us(Transport::EfaP5, Algo::Tree, Proto::LL, kNcclVersionModelled) ==
        Approx(hw_latency_us(Algo::Tree, Proto::LL, Hop::Net, kNcclVersionModelled) + 75));
  CHECK(tuned_net_latency_us(Transport::EfaP5, Algo::Ring, Proto::Simple, kNcclVersionModelled) ==
        Approx(hw_latency_us(Algo::Ring, Proto::Simple, Hop::Net, kNcclVersionModelled) + 150));
  CHECK(tuned_net_latency_us(Transport::EfaP5en, Algo::Tree, Proto::LL128, kNcclVersionModelled) ==
        Approx(hw_latency_us(Algo::Tree, Proto::LL128, Hop::Net, kNcclVersionModelled) + 35));
}

TEST_CASE("the reported latency moves NCCL's choice away from Simple across hosts",
          "[collectives]") {
  // Two 8-GPU Hopper hosts with 8 x 400G NICs. Simple pays the reported latency twice per hop,
  // LL128 once, so over EFA LL128 keeps sizes that NVLSTree Simple takes over IB; inside one
  // host nothing changes.
  TuningInput in{Op::AllReduce, 8u << 20, 16, 2, ndr_node(Arch::Hopper, true)};
  const Choice ib = choose(in);
  in.hw.transport = Transport::EfaP5;
  const Choice efa = choose(in);
  CHECK(ib.proto == Proto::Simple);
  CHECK(efa.proto != Proto::Simple);
  // The model's latencies grow by the reported figure per network hop: the tree all-reduce
  // crosses 2 log2(nodes) = 2 hops.
  const auto tree_latency = [&](Transport t) {
    in.hw.transport = t;
    for (const AlgoTime& a : algo_times(in)) {
      if (a.algo == Algo::Tree && a.proto == Proto::LL) return a.latency_us;
    }
    return -1.0;
  };
  CHECK(tree_latency(Transport::EfaP5) - tree_latency(Transport::Ib) == Approx(2 * 75.0));
  // As run (the whole-transfer level's latency), the hop is the message latency instead.
  in.reported_latency = false;
  CHECK(tree_latency(Transport::EfaP5) - tree_latency(Transport::Ib) ==
        Approx(2 * (20.0 - hw_latency_us(Algo::Tree, Proto::LL, Hop::Net, kNcclVersionModelled))));
  TuningInput one_host{Op::AllReduce, 8u << 20, 8, 1, ndr_node(Arch::Hopper, true)};
  const Choice inside_ib = choose(one_host);
  one_host.hw.transport = Transport::EfaP5;
  CHECK(choose(one_host).algo == inside_ib.algo);
  CHECK(choose(one_host).proto == inside_ib.proto);
}

TEST_CASE("on p4d the plugin leaves NCCL only Simple unless the user chose a protocol",
          "[collectives]") {
  // Two 8-GPU A100 hosts with 4 x 100G EFA. On p4d the plugin sets NCCL_PROTO=simple, so every
  // size runs Simple; on p5's transport small sizes keep LL. A protocol the user forces stays.
  Hardware hw;
  hw.arch = Arch::Ampere;
  hw.nics_per_host = 4;
  hw.nic_gbps = 12.5;
  hw.transport = Transport::EfaP4d;
  for (std::uint64_t bytes = 8; bytes <= (1ull << 30); bytes *= 16) {
    CHECK(choose(TuningInput{Op::AllReduce, bytes, 16, 2, hw}).proto == Proto::Simple);
    CHECK(choose(TuningInput{Op::AllGather, bytes, 16, 2, hw}).proto == Proto::Simple);
  }
  CHECK(choose(TuningInput{Op::AllReduce, 8, 16, 2, hw}, Algo::Auto, Proto::LL).proto == Proto::LL);
  hw.transport = Transport::EfaP5;
  CHECK(choose(TuningInput{Op::AllReduce, 8, 16, 2, hw}).proto == Proto::LL);
}
