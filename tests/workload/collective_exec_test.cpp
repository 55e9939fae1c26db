#include "workload/collective_exec.hpp"

#include <catch2/catch.hpp>

#include "collectives/busbw.hpp"
#include "collectives/protocol.hpp"
#include "collectives/whole_transfers.hpp"
#include "net/topology/build.hpp"
#include "net/topology/partition.hpp"
#include "net/wire.hpp"

using namespace fabricsim;
using namespace fabricsim::workload;
using collectives::Algo;
using collectives::Op;
using collectives::Proto;

namespace {

constexpr net::Bps kNvlink = 450ULL * 8 * net::kGbps;  // H100 NVLink4, per direction
constexpr net::Bps kNic = 400 * net::kGbps;

net::Topology hosts(std::uint32_t n, std::uint32_t gpus, bool sharp = false) {
  net::SingleParams p;
  p.hosts = n;
  p.host.gpus = gpus;
  p.host.nics = gpus;
  p.host.gpu_link_rate = kNvlink;
  p.host.gpu_link_latency = 0;
  p.nic = {kNic, core::kMicrosecond};
  p.sharp = sharp;
  return net::single(p);
}

// Rails of 4 H100s with 4 NICs per host, `per_group` hosts per rail leaf, meeting at two spines
// (that reduce, with `sharp`).
net::Topology rails(std::uint32_t n, std::uint32_t per_group, bool sharp = false) {
  net::RailParams p;
  p.hosts = n;
  p.hosts_per_group = per_group;
  p.spines = 2;
  p.host.gpus = 4;
  p.host.nics = 4;
  p.host.gpu_link_rate = kNvlink;
  p.nic = p.uplink = {kNic, core::kMicrosecond};
  p.sharp = sharp;
  return net::rail_optimized(p);
}

net::NetworkConfig config() {
  net::NetworkConfig cfg;
  cfg.cc.kind = net::cc::Kind::kNone;
  return cfg;
}

struct Outcome {
  CollectiveResult r;
  collectives::Plan plan;
};

Outcome run(const net::Topology& topo, Op op, std::uint64_t bytes, Algo algo, Proto proto,
            const ExecParams& params = {}, net::RunOptions opt = {}, bool nvls = false) {
  collectives::Hardware hw;
  hw.nvls = nvls;
  hw.collnet = topo.aggregators > 0;
  const collectives::RankLayout layout = rank_layout(topo, hw);
  collectives::Call call;
  call.op = op;
  call.bytes = bytes;
  call.algo = algo;
  call.proto = proto;
  Outcome o;
  o.plan = collectives::make_plan(call, layout);
  o.r = run_collective(topo, config(), o.plan, layout, params, opt);
  return o;
}

double seconds(core::Time t) {
  return double(t) * 1e-12;
}

// A ring LL all-reduce of `bytes` on `hw` as NCCL's tuning plans it (on `channels` if > 0).
core::Time ring_ll_time(const net::Topology& topo, const collectives::Hardware& hw,
                        std::uint64_t bytes, int channels = 0) {
  const collectives::RankLayout layout = rank_layout(topo, hw);
  collectives::Call call;
  call.bytes = bytes;
  call.algo = Algo::Ring;
  call.proto = Proto::LL;
  call.channels = channels;
  return run_collective(topo, config(), collectives::make_plan(call, layout), layout, {}, {}).time;
}

// A small PAT call on hosts() of one NIC each, us: its kernel's 8 us and 2.8 us per rank, then
// per distance a GPU step (tuning.cc) and a trip from host to NIC, over two 1 us links and from
// NIC to host.
double pat_latency_us(int ranks, int distances) {
  const double trip_us = 2 * 1.0 + 2 * seconds(ExecParams{}.host_delay) * 1e6;
  const double step_us = collectives::hw_latency_us(
      Algo::Pat, Proto::Simple, collectives::Hop::NVLink, collectives::kNcclVersionModelled);
  return collectives::base_latency_us(Algo::Pat, Proto::Simple, collectives::kNcclVersionModelled) +
         ranks * collectives::kPatRankLatencyUs + distances * (step_us + trip_us);
}

}  // namespace

TEST_CASE("a large ring all-reduce in one host is bound by each GPU's usable NVLink",
          "[workload]") {
  const net::Topology topo = hosts(1, 8);
  const std::uint64_t bytes = 256ULL << 20;
  const Outcome o = run(topo, Op::AllReduce, bytes, Algo::Ring, Proto::Simple);
  const ExecParams params;
  // Every GPU sends and receives 2(n-1)/n of the buffer over its own link.
  const double cap = double(kNvlink) / 8 * params.nvlink_efficiency;  // bytes/s
  const double bound = 2.0 * 7 / 8 * double(bytes) / cap;
  REQUIRE(o.r.time > 0);
  REQUIRE(seconds(o.r.time) >= bound);
  REQUIRE(seconds(o.r.time) <= bound * 1.10);
  REQUIRE(o.r.net_bytes == 0);
  REQUIRE(o.r.queue_pairs == 0);
  REQUIRE(o.r.nvlink_bytes == 8 * 2 * 7 * (bytes / 8));
}

TEST_CASE("a ring all-reduce between hosts is bound by the NICs' goodput", "[workload]") {
  // One GPU per host: every byte of the ring crosses a NIC.
  const net::Topology topo = hosts(4, 1);
  const std::uint64_t bytes = 64ULL << 20;
  const Outcome o = run(topo, Op::AllReduce, bytes, Algo::Ring, Proto::Simple);
  const double goodput = double(kNic) / 8 * 4096.0 / (4096 + 82);  // bytes/s, RoCEv2 framing
  const double bound = 2.0 * 3 / 4 * double(bytes) / goodput;
  REQUIRE(seconds(o.r.time) >= bound);
  REQUIRE(seconds(o.r.time) <= bound * 1.15);
  REQUIRE(o.r.net_bytes == 4 * 2 * 3 * (bytes / 4));
  REQUIRE(o.r.net.delivered == o.r.net_bytes);
  REQUIRE(o.r.net.dropped == 0);
}

TEST_CASE("every collective completes on two 4-GPU hosts", "[workload]") {
  const net::Topology topo = hosts(2, 4);
  const std::uint64_t bytes = 4ULL << 20;
  for (Op op : {Op::AllReduce, Op::AllGather, Op::ReduceScatter, Op::Broadcast, Op::Reduce,
                Op::AllToAll, Op::SendRecv}) {
    const bool p2p = op == Op::AllToAll || op == Op::SendRecv;
    for (Proto proto : {Proto::LL, Proto::LL128, Proto::Simple}) {
      if (p2p && proto != Proto::Simple) continue;  // NCCL runs P2P with Simple only
      const Algo algo = p2p ? Algo::P2P : Algo::Ring;
      CAPTURE(collectives::name(op), collectives::name(proto));
      const Outcome o = run(topo, op, bytes, algo, proto);
      REQUIRE(o.r.time > 0);
      std::uint64_t steps = 0;
      for (const auto& s : o.plan.steps) steps += s.size();
      REQUIRE(o.r.steps == steps);
      REQUIRE(o.r.net.delivered == o.r.net_bytes);
    }
  }
  const Outcome tree = run(topo, Op::AllReduce, bytes, Algo::Tree, Proto::Simple);
  REQUIRE(tree.r.time > 0);
}

TEST_CASE("LL doubles the wire bytes and is slower than Simple for large messages", "[workload]") {
  const net::Topology topo = hosts(1, 4);
  const std::uint64_t bytes = 64ULL << 20;
  const Outcome simple = run(topo, Op::AllReduce, bytes, Algo::Ring, Proto::Simple);
  const Outcome ll = run(topo, Op::AllReduce, bytes, Algo::Ring, Proto::LL);
  REQUIRE(ll.r.nvlink_bytes == 2 * simple.r.nvlink_bytes);
  REQUIRE(ll.r.time > simple.r.time * 3 / 2);
}

TEST_CASE("small collectives cost NCCL's latencies, and nothing without them", "[workload]") {
  const net::Topology topo = hosts(1, 8);
  const Outcome with = run(topo, Op::AllReduce, 1024, Algo::Ring, Proto::LL);
  ExecParams none;
  none.latencies = false;
  const Outcome without = run(topo, Op::AllReduce, 1024, Algo::Ring, Proto::LL, none);
  // Base 6.6 us plus 14 dependent NVLink steps of 0.6 us (LL ring; nccl-facts.md §4).
  const double lat = 6.6e-6 + 14 * 0.6e-6;
  REQUIRE(seconds(with.r.time) >= lat);
  REQUIRE(seconds(with.r.time) <= lat * 1.2);
  REQUIRE(seconds(without.r.time) < 1e-6);
}

TEST_CASE("a release's tuning constants change NCCL's choice, not what a step costs",
          "[workload]") {
  // NCCL 2.17.1 charged ring LL 3.6 us base and 0.47 us per NVLink hop in its model, 2.30.7
  // 6.6 and 0.6 for the same GPUs: the executor charges the latest calibration for every
  // release (collectives/tuner_constants.hpp), so a forced plan takes the same time.
  const net::Topology topo = hosts(2, 4);
  const auto time_at = [&](int version) {
    collectives::Hardware hw;
    hw.nccl_version = version;
    const collectives::RankLayout layout = rank_layout(topo, hw);
    collectives::Call call;
    call.bytes = 1024;
    call.algo = Algo::Ring;
    call.proto = Proto::LL;
    return run_collective(topo, config(), collectives::make_plan(call, layout), layout, {}, {})
        .time;
  };
  REQUIRE(time_at(21701) == time_at(collectives::kNcclVersionModelled));
}

TEST_CASE("PAT crosses the network log2(n) times where the ring crosses it n - 1 times",
          "[workload]") {
  // 16 hosts of one GPU, a 1 KiB all-gather on one channel: PAT pays its latency over four
  // distances (pat_latency_us); the ring's fifteen steps each cross the network.
  const net::Topology topo = hosts(16, 1);
  const collectives::RankLayout layout = rank_layout(topo, {});
  const auto time = [&](Algo algo) {
    const collectives::Call call{
        .op = Op::AllGather, .bytes = 1024, .algo = algo, .proto = Proto::Simple, .channels = 1};
    return seconds(
        run_collective(topo, config(), collectives::make_plan(call, layout), layout, {}, {}).time);
  };
  CHECK(time(Algo::Pat) == Approx(pat_latency_us(16, 4) * 1e-6).epsilon(0.01));
  CHECK(time(Algo::Ring) >= 15 *
                                collectives::hw_latency_us(Algo::Ring, Proto::Simple,
                                                           collectives::Hop::Net,
                                                           collectives::kNcclVersionModelled) *
                                1e-6);
  for (unsigned threads : {1u, 2u}) {
    net::RunOptions opt;
    opt.threads = threads;
    opt.lps = 4;
    const Outcome again = run(topo, Op::AllGather, 1 << 20, Algo::Pat, Proto::Simple, {}, opt);
    const Outcome ref = run(topo, Op::AllGather, 1 << 20, Algo::Pat, Proto::Simple);
    CAPTURE(threads);
    CHECK(again.r.time == ref.r.time);
    CHECK(again.r.net.kernel.events == ref.r.net.kernel.events);
  }
}

TEST_CASE("PAT groups run side by side each pay their own communicator's latency", "[workload]") {
  // Two rail groups (GPU g of each of 8 hosts, through NIC g) merged into one plan of 16 ranks:
  // each group is a PAT of 8 ranks, 2.8 us per rank of its own group, whether it runs alone or
  // beside the other.
  const net::Topology topo = hosts(8, 2);
  const collectives::RankLayout layout = rank_layout(topo, {});
  const collectives::Call call{
      .op = Op::AllGather, .bytes = 1024, .algo = Algo::Pat, .channels = 1};
  std::vector<collectives::Plan> plans;
  std::vector<std::vector<int>> groups(2);
  for (int g = 0; g < 2; ++g) {
    collectives::RankLayout sub;
    sub.hw = layout.hw;
    for (std::size_t r = 0; r < layout.ranks.size(); ++r) {
      if (layout.ranks[r].local != g) continue;
      sub.ranks.push_back(layout.ranks[r]);
      groups[g].push_back(static_cast<int>(r));
    }
    plans.push_back(collectives::make_plan(call, sub));
  }
  const collectives::Plan both = merge_plans(plans, groups, 16);
  const collectives::Plan one = merge_plans({plans[0]}, {groups[0]}, 16);
  REQUIRE(both.extra_latency_us == Approx(8 * collectives::kPatRankLatencyUs));
  const core::Time t_both = run_collective(topo, config(), both, layout, {}, {}).time;
  const core::Time t_one = run_collective(topo, config(), one, layout, {}, {}).time;
  CHECK(seconds(t_both) == Approx(seconds(t_one)).epsilon(0.02));
  // 8 ranks' latency and three distances: not 16 ranks' worth.
  CHECK(seconds(t_both) == Approx(pat_latency_us(8, 3) * 1e-6).epsilon(0.01));
}

TEST_CASE("SimAI's fixed latency once per ring step costs one latency per step, not per slice",
          "[workload]") {
  // One host of 8 GPUs, a small Simple ring all-reduce on one channel: 2 x 7 ring steps in a
  // chain, each moved as NCCL's slices. Per slice, every slice of a step pays the latency; per
  // ring step only the first, so the chain pays it 14 times.
  const net::Topology topo = hosts(1, 8);
  ExecParams per_slice;
  per_slice.fixed_step_latency = 3 * core::kMicrosecond;
  ExecParams per_step = per_slice;
  per_step.fixed_latency_per_ring_step = true;
  const Outcome slices = run(topo, Op::AllReduce, 8192, Algo::Ring, Proto::Simple, per_slice);
  const Outcome steps = run(topo, Op::AllReduce, 8192, Algo::Ring, Proto::Simple, per_step);
  const int slices_per_step = collectives::chunk_steps(Op::AllReduce, Algo::Ring, Proto::Simple) /
                              collectives::slice_steps(Op::AllReduce, Algo::Ring, Proto::Simple);
  REQUIRE(slices_per_step >= 2);  // else the two modes cannot differ
  REQUIRE(seconds(steps.r.time) >= 14 * 3e-6);
  REQUIRE(seconds(steps.r.time) < 14 * 3e-6 * 1.1);
  REQUIRE(seconds(slices.r.time) >= slices_per_step * 14 * 3e-6);
}

TEST_CASE("rings through each GPU's own NIC change rail between hosts; NCCL's stay on one",
          "[workload]") {
  const net::Topology topo = rails(2, 2);
  const auto spine_bytes = [&](const Outcome& o) {
    std::uint64_t bytes = 0;
    for (net::NodeId v = 0; v < topo.nodes.size(); ++v) {
      if (topo.nodes[v].tier != 1) continue;
      for (net::PortId q = 0; q < topo.nodes[v].ports.size(); ++q) {
        bytes += o.r.net.ports[o.r.net.port_base[v] + q].tx_data_bytes;
      }
    }
    return bytes;
  };
  const Outcome rail = run(topo, Op::AllReduce, 1 << 20, Algo::Ring, Proto::Simple);
  ExecParams own;
  own.own_nics = true;
  const Outcome changing = run(topo, Op::AllReduce, 1 << 20, Algo::Ring, Proto::Simple, own);
  REQUIRE(rail.r.net_bytes > 0);
  REQUIRE(spine_bytes(rail) == 0);
  // Every byte between the hosts now crosses a spine.
  REQUIRE(spine_bytes(changing) == changing.r.net.nic_data_sent);
}

TEST_CASE("a network hop's latency overlaps the next steps of its connection", "[workload]") {
  // Two hosts of 8 GPUs, a ring LL all-reduce of 4 KiB on one channel: 30 steps, two of them
  // across the network on every channel's ring. The proxy keeps several sends in flight, so
  // the chain pays NCCL's network latency on its inter-node hops only, not on every step of
  // the connection (which would cost 30 x 2.7 us).
  const net::Topology topo = hosts(2, 8);
  const Outcome o = run(topo, Op::AllReduce, 4096, Algo::Ring, Proto::LL);
  const double chain = 6.6e-6 + 28 * 0.6e-6 + 2 * 2.7e-6;  // nccl-facts.md §4
  const double serialized = 6.6e-6 + 30 * 2.7e-6;
  REQUIRE(seconds(o.r.time) >= chain);
  REQUIRE(seconds(o.r.time) < 0.6 * serialized);
}

TEST_CASE("a ring Simple step to another host waits for its thread block to write it",
          "[workload]") {
  // Two 1-GPU hosts whose 400 Gb/s NICs sit behind a 12 GB/s PCIe path: NCCL's network graph
  // runs its ring at 12 GB/s, and each channel's thread block writes its share of that before
  // the proxy posts a step. Every byte a rank sends (the buffer, over the two ring steps) is
  // written at the ring bandwidth, so the call takes at least bytes / 12 GB/s, four times what
  // the NICs alone would allow.
  const net::Topology topo = hosts(2, 1);
  collectives::Hardware hw;
  hw.nic_gbps = 50;
  hw.pci_gbps = 12;
  const collectives::RankLayout layout = rank_layout(topo, hw);
  collectives::Call call;
  call.bytes = 64ULL << 20;
  call.algo = Algo::Ring;
  call.proto = Proto::Simple;
  const collectives::Plan plan = collectives::make_plan(call, layout);
  REQUIRE(plan.channel_net_gbps * plan.channels == Approx(12.0));
  const double written = double(call.bytes) / 12e9;
  const double t = seconds(run_collective(topo, config(), plan, layout, {}, {}).time);
  CHECK(t >= written);
  // Beyond the writes: each 1 MiB slice's step latency and the last slice's time on the wire
  // (3% here), so the write is what sets the time.
  CHECK(t <= 1.25 * written);
  // SimAI's fixed step latency leaves the write out: the NICs bound the call again.
  ExecParams simai;
  simai.fixed_step_latency = 0;
  CHECK(seconds(run_collective(topo, config(), plan, layout, simai, {}).time) < 0.5 * written);
}

TEST_CASE("a GPU's proxy posts the network sends of its channels one after another", "[workload]") {
  // One GPU on each of two hosts, ring LL all-reduce of 4 KiB: every step crosses the network.
  // On 16 channels each rank has 16 sends to post at once per step, and its one proxy thread
  // takes NCCL's network post overhead for each (1 us; 2 us on AMD hosts): the last channel's
  // first send leaves 15 posts after the first one, and its second step queues behind them too.
  // On one channel nothing queues. The data (256 B per channel) takes no time to speak of.
  const net::Topology topo = hosts(2, 1);
  const auto time = [&](int channels, collectives::Cpu cpu) {
    collectives::Hardware hw;
    hw.cpu = cpu;
    return seconds(ring_ll_time(topo, hw, 4096, channels));
  };
  for (const auto& [cpu, post_us] :
       {std::pair{collectives::Cpu::Intel, 1.0}, std::pair{collectives::Cpu::Amd, 2.0}}) {
    const double queued = time(16, cpu) - time(1, cpu);
    CHECK(queued >= 15 * post_us * 1e-6);
    CHECK(queued <= 2 * 16 * post_us * 1e-6);
  }
}

TEST_CASE("NVLS beats the ring on one H100 host", "[workload]") {
  const net::Topology topo = hosts(1, 8);
  const std::uint64_t bytes = 1ULL << 30;
  const Outcome ring = run(topo, Op::AllReduce, bytes, Algo::Ring, Proto::Simple);
  const Outcome nvls = run(topo, Op::AllReduce, bytes, Algo::Nvls, Proto::Simple, {}, {}, true);
  REQUIRE(nvls.r.time < ring.r.time);
}

TEST_CASE("ACKs only at message ends move a collective as ACKs on every packet do", "[workload]") {
  // cc none reads no ACK; the requester completes each message on its last packet's ACK.
  // Coalescing the rest changes only the reverse traffic and the event count: every NIC sends
  // ring data and ACKs for the data it receives on one link, so a run bound by the NICs is
  // faster by at most the ACKs' share of that link.
  const net::Topology topo = hosts(2, 4);
  const collectives::RankLayout layout = rank_layout(topo, collectives::Hardware{});
  collectives::Call call;
  call.op = Op::AllReduce;
  call.bytes = 64ULL << 20;
  call.algo = Algo::Ring;
  call.proto = Proto::Simple;
  const collectives::Plan plan = collectives::make_plan(call, layout);
  net::NetworkConfig coalesced = config();
  coalesced.nic.ack_every = net::NicConfig::kAckMessageEnds;
  const CollectiveResult each = run_collective(topo, config(), plan, layout, {}, {});
  const CollectiveResult ends = run_collective(topo, coalesced, plan, layout, {}, {});
  REQUIRE(ends.net.delivered == each.net.delivered);
  REQUIRE(ends.net.dropped == 0);
  for (const net::FlowResult& f : ends.net.flows) REQUIRE(f.timeouts == 0);
  REQUIRE(ends.time <= each.time);
  const double ack_share = double(net::kAckWireBytes) / net::data_wire_bytes(4096);
  REQUIRE(seconds(each.time - ends.time) <= ack_share * seconds(each.time));
  // One ACK per 4 KiB packet before; one per message of up to 512 KiB now.
  REQUIRE(ends.net.kernel.events < each.net.kernel.events * 3 / 4);
}

TEST_CASE("collective results are identical for every thread count and partition",
          "[workload][determinism]") {
  const net::Topology topo = hosts(4, 2);
  // Ring Simple (network steps pipelined in the proxy), tree LL128 (per-channel ceilings) and
  // NVLSTree (a switch agent per host).
  const struct {
    Algo algo;
    Proto proto;
  } cases[] = {
      {Algo::Ring, Proto::Simple}, {Algo::Tree, Proto::LL128}, {Algo::NvlsTree, Proto::Simple}};
  for (const auto& c : cases) {
    CAPTURE(collectives::name(c.algo));
    const Outcome ref = run(topo, Op::AllReduce, 8ULL << 20, c.algo, c.proto, {}, {}, true);
    for (unsigned threads : {1u, 2u}) {
      for (std::uint32_t lps : {2u, 5u}) {
        net::RunOptions opt;
        opt.threads = threads;
        opt.lps = lps;
        const Outcome o = run(topo, Op::AllReduce, 8ULL << 20, c.algo, c.proto, {}, opt, true);
        CAPTURE(threads, lps);
        REQUIRE(o.r.time == ref.r.time);
        REQUIRE(o.r.net.kernel.events == ref.r.net.kernel.events);
        REQUIRE(o.r.net.delivered == ref.r.net.delivered);
      }
    }
  }
}

TEST_CASE("app flows without an app, and plans that do not fit the cluster, are refused",
          "[workload]") {
  const net::Topology topo = hosts(2, 1);
  net::FlowSpec f;
  f.src_nic = 0;
  f.dst_nic = 1;
  f.bytes = 100;
  f.messages = {40, 100};
  net::Network orphan(topo, config(), {f});
  REQUIRE_THROWS_WITH(orphan.run({}), Catch::Contains("need a HostApp"));
  f.messages = {60, 50};
  REQUIRE_THROWS_WITH(net::Network(topo, config(), {f}), Catch::Contains("must increase"));

  // A plan for 4 ranks on a cluster of 2 GPUs.
  collectives::Hardware hw;
  collectives::RankLayout four = rank_layout(hosts(4, 1), hw);
  collectives::Call call;
  call.bytes = 1 << 20;
  call.algo = Algo::Ring;
  call.proto = Proto::Simple;
  const collectives::Plan plan = collectives::make_plan(call, four);
  REQUIRE_THROWS_WITH(run_collective(topo, config(), plan, four, {}, {}), Catch::Contains("host"));

  // A run that ends before the collective does says so, not that the collective stalled.
  const collectives::RankLayout two = rank_layout(topo, hw);
  net::RunOptions early;
  early.end = 10 * core::kMicrosecond;
  REQUIRE_THROWS_WITH(
      run_collective(topo, config(), collectives::make_plan(call, two), two, {}, early),
      Catch::Contains("did not finish by the run's end (simulation.end = 10us)"));
  REQUIRE_NOTHROW(run_collective(topo, config(), collectives::make_plan(call, two), two, {}, {}));
}

TEST_CASE("CollNet reduces in the switch: each NIC carries the buffer once each way",
          "[workload]") {
  // One GPU per host: the head's NIC sends the whole buffer to the switch's aggregation node
  // and receives the sum, where a ring sends 2(n-1)/n of it.
  const net::Topology topo = hosts(4, 1, true);
  REQUIRE(topo.aggregators == 1);
  REQUIRE(topo.gpu_hosts() == 4);
  const std::uint64_t bytes = 64ULL << 20;
  const Outcome o = run(topo, Op::AllReduce, bytes, Algo::CollNetChain, Proto::Simple);
  const double goodput = double(kNic) / 8 * 4096.0 / (4096 + 82);  // bytes/s, RoCEv2 framing
  const double bound = double(bytes) / goodput;
  REQUIRE(seconds(o.r.time) >= bound);
  REQUIRE(seconds(o.r.time) <= bound * 1.15);
  REQUIRE(o.r.net_bytes == 2 * 4 * bytes);
  REQUIRE(o.r.net.delivered == o.r.net_bytes);
  const Outcome ring = run(topo, Op::AllReduce, bytes, Algo::Ring, Proto::Simple);
  REQUIRE(o.r.time < ring.r.time);
  // CollNetDirect with one GPU per host: the same traffic, the head sending straight out.
  const Outcome direct = run(topo, Op::AllReduce, bytes, Algo::CollNetDirect, Proto::Simple);
  REQUIRE(direct.r.net_bytes == 2 * 4 * bytes);
  REQUIRE(seconds(direct.r.time) >= bound);
  REQUIRE(seconds(direct.r.time) <= bound * 1.15);
}

TEST_CASE("NVLS across hosts with SHARP: each host sends the buffer once and gets the sum",
          "[workload]") {
  const net::Topology topo = hosts(2, 4, true);
  const std::uint64_t bytes = 64ULL << 20;
  const Outcome o = run(topo, Op::AllReduce, bytes, Algo::Nvls, Proto::Simple, {}, {}, true);
  std::uint64_t steps = 0;
  for (const auto& s : o.plan.steps) steps += s.size();
  REQUIRE(o.r.steps == steps);
  // Up from each host's heads and down to them: twice the buffer per host.
  REQUIRE(o.r.net_bytes == 2 * 2 * bytes);
  REQUIRE(o.r.net.delivered == o.r.net_bytes);
  // Four heads per host, each on its own 400G NIC: no faster than a quarter of the buffer
  // each way through one NIC.
  const double goodput = double(kNic) / 8 * 4096.0 / (4096 + 82);
  REQUIRE(seconds(o.r.time) >= double(bytes) / 4 / goodput);
}

TEST_CASE("CollNet chains run alike for every thread count and partition, and need SHARP",
          "[workload][determinism]") {
  // Rails meeting at two spines that reduce: the hosts, leaves and spines spread over LPs.
  const net::Topology topo = rails(4, 2, true);
  REQUIRE(net::partition_groups(topo) > 1);
  const Outcome ref = run(topo, Op::AllReduce, 8ULL << 20, Algo::CollNetChain, Proto::Simple);
  std::uint64_t steps = 0;
  for (const auto& s : ref.plan.steps) steps += s.size();
  REQUIRE(ref.r.steps == steps);
  for (unsigned threads : {1u, 2u}) {
    for (std::uint32_t lps : {2u, 4u}) {
      net::RunOptions opt;
      opt.threads = threads;
      opt.lps = lps;
      const Outcome o =
          run(topo, Op::AllReduce, 8ULL << 20, Algo::CollNetChain, Proto::Simple, {}, opt);
      CAPTURE(threads, lps);
      REQUIRE(o.r.time == ref.r.time);
      REQUIRE(o.r.net.kernel.events == ref.r.net.kernel.events);
    }
  }
  // The same plan on switches that do not reduce.
  const net::Topology plain = rails(4, 2);
  REQUIRE_THROWS_WITH(run_collective(plain, config(), ref.plan, rank_layout(plain, {}), {}, {}),
                      Catch::Contains("aggregation nodes"));
}

TEST_CASE("a hop between hosts takes the network transport's message latency", "[workload]") {
  // One GPU on each of two hosts, ring LL all-reduce of 8 bytes: two steps, one after the other,
  // each crossing the network once. Over EFA (p5) a hop is the plugin's 20 us message instead
  // of NCCL's IB ring LL figure, so the call is longer by twice the difference.
  const net::Topology topo = hosts(2, 1);
  const auto time = [&](collectives::Transport t) {
    collectives::Hardware hw;
    hw.transport = t;
    return ring_ll_time(topo, hw, 8);
  };
  const double extra_us =
      2 * (20.0 - collectives::hw_latency_us(Algo::Ring, Proto::LL, collectives::Hop::Net,
                                             collectives::kNcclVersionModelled));
  CHECK(seconds(time(collectives::Transport::EfaP5) - time(collectives::Transport::Ib)) ==
        Approx(extra_us * 1e-6).epsilon(0.01));
}

TEST_CASE("a whole-transfer step standing for several channels times as one step per channel",
          "[workload]") {
  // The whole form folds a collective's channels inside a host into one step each way
  // (Step::copies); unfolded again onto distinct channels, the run must take the same time and
  // move the same bytes.
  const net::Topology topo = hosts(2, 4);
  const collectives::RankLayout layout = rank_layout(topo, collectives::Hardware{});
  collectives::Call call;
  call.op = GENERATE(Op::AllReduce, Op::AllGather);
  call.bytes = 64ULL << 20;
  call.algo = Algo::Ring;
  call.proto = Proto::Simple;
  const collectives::Plan folded =
      collectives::whole_transfers(collectives::make_plan(call, layout), layout);
  collectives::Plan unfolded = folded;
  bool any = false;
  for (std::vector<collectives::Step>& steps : unfolded.steps) {
    std::vector<collectives::Step> out;
    for (const collectives::Step& s : steps) {
      for (int k = 0; k < s.copies; ++k) {
        collectives::Step one = s;
        one.copies = 1;
        one.channel = s.channel + 1000 * k;  // a connection of its own
        out.push_back(one);
      }
      any = any || s.copies > 1;
    }
    steps = std::move(out);
  }
  REQUIRE(any);
  const CollectiveResult a = run_collective(topo, config(), folded, layout, {}, {});
  const CollectiveResult b = run_collective(topo, config(), unfolded, layout, {}, {});
  REQUIRE(a.time == b.time);
  REQUIRE(a.nvlink_bytes == b.nvlink_bytes);
  REQUIRE(a.net_bytes == b.net_bytes);
}
