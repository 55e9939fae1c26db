// Training on the shared fabric (workload/training_fabric.hpp) against the isolated path: where
// communications cannot meet they agree; where they share a link they slow each other down.
#include "workload/training_fabric.hpp"

#include <array>
#include <catch2/catch.hpp>

#include "compute/gpu.hpp"
#include "net/topology/build.hpp"
#include "tests/workload/test_clusters.hpp"
#include "tests/workload/test_models.hpp"
#include "workload/training_run.hpp"

using namespace fabricsim;
using namespace fabricsim::workload;

namespace {

using test::gpt;

using test::fat_tree;
using test::single_switch;

struct Job {
  int tp = 1, pp = 1, dp = 1;
};

TrainingReport run(const net::Topology& topo, Job job, CommMode mode, unsigned threads = 1,
                   std::uint32_t lps = 1, std::vector<double> slowdown = {},
                   const net::NetworkConfig& cfg = {}, core::Time end = core::kTimeMax) {
  static const compute::KernelDb db;
  TrainingInputs in;
  in.model = gpt(4, 512, 8, 256, 1024);
  in.config.tp = job.tp;
  in.config.pp = job.pp;
  in.config.dp = job.dp;
  in.config.micro_batch = 1;
  in.config.global_batch = 4 * job.dp;
  in.gpu = *compute::find_gpu("H100");
  in.kernels = &db;
  in.topology = &topo;
  in.network = &cfg;
  in.comm = mode;
  in.slowdown = std::move(slowdown);
  in.run.threads = threads;
  in.run.lps = lps;
  in.run.end = end;
  return simulate_training(in);
}

// The longest data-parallel communication of rank r.
core::Time longest_dp(const TrainingReport& r, std::size_t rank) {
  core::Time t = 0;
  for (const Op& op : r.dag.ranks[rank].ops) {
    if (op.kind == OpKind::Collective && op.stream == Stream::Dp) {
      t = std::max(t, r.comm_time[op.item]);
    }
  }
  return t;
}

// How much longer rank 0's longest data-parallel communication took in `r` than in `base`.
double dp_slowdown(const TrainingReport& r, const TrainingReport& base) {
  return static_cast<double>(longest_dp(r, 0)) / static_cast<double>(longest_dp(base, 0));
}

}  // namespace

TEST_CASE("training on the fabric: where communications never meet, packet and isolated agree",
          "[workload][training][fabric]") {
  // Tensor parallelism alone inside one host (NVLink), and data parallelism alone across two
  // hosts (the network): one communication at a time, so nothing contends.
  const auto [topo, job] = GENERATE(std::pair{single_switch(1, 4), Job{4, 1, 1}},
                                    std::pair{single_switch(2, 1), Job{1, 1, 2}});
  const TrainingReport iso = run(topo, job, CommMode::Isolated);
  const TrainingReport pkt = run(topo, job, CommMode::Packet);
  REQUIRE(iso.comm == CommMode::Isolated);
  REQUIRE(pkt.comm == CommMode::Packet);
  REQUIRE(pkt.network_events > 0);
  CAPTURE(iso.iteration_s, pkt.iteration_s);
  REQUIRE(pkt.iteration_s == Approx(iso.iteration_s).epsilon(0.01));
}

TEST_CASE("training: a run that ends before the iteration says so, at every level",
          "[workload][training][fabric]") {
  const net::Topology topo = single_switch(2, 2);
  const Job job{2, 1, 2};
  for (const CommMode mode : {CommMode::Packet, CommMode::Analytical}) {
    const TrainingReport whole = run(topo, job, mode);
    const auto half = static_cast<core::Time>(whole.iteration_s * 0.5e12);
    // Cut off mid-iteration: not a stalled DAG (packet), not an iteration past its end
    // (timed apart from the fabric).
    REQUIRE_THROWS_WITH(run(topo, job, mode, 1, 1, {}, {}, half),
                        Catch::Contains("did not finish by the run's end (simulation.end"));
    REQUIRE_NOTHROW(run(topo, job, mode, 1, 1, {}, {}, 2 * half + 1'000'000));
  }
}

TEST_CASE("training on the fabric: data-parallel rings that share an uplink slow each other down",
          "[workload][training][fabric]") {
  // Two GPUs per host, one host per leaf, tp 2 inside the host and dp 2 across two leaves: the
  // two tensor-parallel ranks' gradient rings leave each leaf over the same uplinks. At 4:1 the
  // two rings' 800 Gb/s meet 200 Gb/s of uplink; alone, each gets it all.
  const net::Topology shared = fat_tree(2, 2, 4.0);
  const TrainingReport iso = run(shared, Job{2, 1, 2}, CommMode::Isolated);
  const TrainingReport pkt = run(shared, Job{2, 1, 2}, CommMode::Packet);
  const double slowdown = dp_slowdown(pkt, iso);
  CAPTURE(slowdown, iso.iteration_s, pkt.iteration_s);
  // Two rings on one bottleneck: about twice as long (ring steps that do not overlap exactly
  // and the isolated run's own idle moments make it somewhat less).
  REQUIRE(slowdown > 1.5);
  REQUIRE(slowdown < 2.3);
  REQUIRE(pkt.iteration_s > iso.iteration_s);

  // One switch: nothing shared but the NICs' own links, so the same rings do not slow down.
  const net::Topology flat = single_switch(2, 2);
  const TrainingReport iso_flat = run(flat, Job{2, 1, 2}, CommMode::Isolated);
  const TrainingReport pkt_flat = run(flat, Job{2, 1, 2}, CommMode::Packet);
  const double flat_ratio = dp_slowdown(pkt_flat, iso_flat);
  CAPTURE(flat_ratio);
  REQUIRE(flat_ratio == Approx(1.0).epsilon(0.02));
  REQUIRE(pkt_flat.iteration_s == Approx(iso_flat.iteration_s).epsilon(0.02));
}

TEST_CASE("training on the fabric: a 3D job is slower on an oversubscribed fat tree",
          "[workload][training][fabric]") {
  const Job job{2, 2, 2};
  // One switch: the isolated times hold within 2%.
  const net::Topology flat = single_switch(4, 2);
  const TrainingReport iso_flat = run(flat, job, CommMode::Isolated);
  const TrainingReport pkt_flat = run(flat, job, CommMode::Packet);
  CAPTURE(iso_flat.iteration_s, pkt_flat.iteration_s);
  REQUIRE(pkt_flat.iteration_s == Approx(iso_flat.iteration_s).epsilon(0.02));
  // 4:1 fat tree, a host per leaf: pipeline sends and both stages' gradient rings cross the
  // uplinks at once; the isolated path never lets them meet.
  const net::Topology tree = fat_tree(4, 2, 4.0);
  const TrainingReport iso = run(tree, job, CommMode::Isolated);
  const TrainingReport pkt = run(tree, job, CommMode::Packet);
  CAPTURE(iso.iteration_s, pkt.iteration_s);
  REQUIRE(pkt.iteration_s > 1.02 * iso.iteration_s);
}

TEST_CASE("training on the fabric: identical results for every thread count and partition",
          "[workload][training][fabric]") {
  const net::Topology tree = fat_tree(4, 2, 4.0);
  const Job job{2, 2, 2};
  const TrainingReport ref = run(tree, job, CommMode::Packet);
  for (const auto& [threads, lps] :
       {std::pair{1u, 4u}, std::pair{2u, 4u}, std::pair{2u, 7u}, std::pair{5u, 12u}}) {
    CAPTURE(threads, lps);
    const TrainingReport r = run(tree, job, CommMode::Packet, threads, lps);
    REQUIRE(r.network_events == ref.network_events);
    REQUIRE(r.comm_time == ref.comm_time);
    REQUIRE(r.timeline.iteration == ref.timeline.iteration);
    for (std::size_t k = 0; k < ref.timeline.ops.size(); ++k) {
      for (std::size_t i = 0; i < ref.timeline.ops[k].size(); ++i) {
        REQUIRE(r.timeline.ops[k][i].start == ref.timeline.ops[k][i].start);
        REQUIRE(r.timeline.ops[k][i].end == ref.timeline.ops[k][i].end);
      }
    }
  }
}

TEST_CASE("training: a straggler GPU holds its data-parallel group back by its own compute",
          "[workload][training][fabric]") {
  // Data parallelism over two hosts of one GPU each; rank 1's kernels take 1.5x as long.
  const net::Topology topo = single_switch(2, 1);
  const double f = 1.5;
  for (const CommMode mode : {CommMode::Isolated, CommMode::Packet}) {
    CAPTURE(name(mode));
    const TrainingReport base = run(topo, Job{1, 1, 2}, mode);
    const TrainingReport slow = run(topo, Job{1, 1, 2}, mode, 1, 1, {1.0, f});
    const double compute_s = static_cast<double>(base.timeline.ranks[1].compute) * 1e-12;
    CAPTURE(base.iteration_s, slow.iteration_s, compute_s);
    // The slow rank's kernels alone take f x its compute; the gradient all-reduce waits for
    // them. Nothing else scales, so the iteration grows by less than the factor.
    REQUIRE(slow.iteration_s >= f * compute_s);
    REQUIRE(slow.iteration_s <= f * base.iteration_s);
    REQUIRE(slow.iteration_s > base.iteration_s + 0.25 * compute_s);
    // The healthy rank waits for it: bubble, not compute.
    REQUIRE(slow.timeline.ranks[0].compute == base.timeline.ranks[0].compute);
    REQUIRE(slow.timeline.ranks[0].bubble > base.timeline.ranks[0].bubble);
  }
}

TEST_CASE("training on the fabric: a DAG whose ops and groups disagree is refused before the run",
          "[workload][training][fabric]") {
  // Rank 1 joins all-reduce 0, whose group holds rank 0 only.
  Dag dag;
  dag.comms.push_back(Comm{collectives::Op::AllReduce, 1 << 20, 0});
  dag.groups.push_back({0});
  dag.ranks.resize(2);
  Op op;
  op.kind = OpKind::Collective;
  op.stream = Stream::Dp;
  dag.ranks[1].ops.push_back(op);
  const net::Topology topo = single_switch(2, 1);
  collectives::Hardware hw;
  REQUIRE_THROWS_WITH(
      run_training_on_fabric(dag, {}, topo, net::NetworkConfig{}, rank_layout(topo, hw),
                             ExecParams{}, net::RunOptions{}),
      Catch::Contains("rank 1 op 0 joins communication 0, whose group does not "
                      "hold it"));
}

TEST_CASE("training on the fabric: a degraded uplink slows the gradient rings that cross it",
          "[workload][training][fabric]") {
  // dp 2 across two leaves (tp 2 inside each host); non-blocking until every uplink of leaf 0
  // is cut to a quarter of its rate.
  net::Topology topo = fat_tree(2, 2, 1.0);
  const TrainingReport full = run(topo, Job{2, 1, 2}, CommMode::Packet);
  for (net::Link& l : topo.links) {
    const std::string a = topo.nodes[l.a].name, b = topo.nodes[l.b].name;
    if ((a == "leaf0" && b.rfind("spine", 0) == 0) || (b == "leaf0" && a.rfind("spine", 0) == 0)) {
      l.rate /= 4;
    }
  }
  const TrainingReport slow = run(topo, Job{2, 1, 2}, CommMode::Packet);
  const double ratio = dp_slowdown(slow, full);
  CAPTURE(ratio, full.iteration_s, slow.iteration_s);
  // The ring's bottleneck rate falls 4x; its latency parts do not, so somewhat less than 4x.
  REQUIRE(ratio > 2.5);
  REQUIRE(ratio < 4.2);
  REQUIRE(slow.iteration_s > full.iteration_s);
}

TEST_CASE("training on the fabric: a spine link that fails mid-collective loses no byte for good",
          "[workload][training][fabric][outage]") {
  // dp 2 across two leaves; the leaf0 uplink the gradients use fails halfway through rank 0's
  // longest data-parallel collective and stays down.
  const net::Topology topo = fat_tree(2, 2, 1.0);
  const TrainingReport full = run(topo, Job{2, 1, 2}, CommMode::Packet);
  const auto& ops = full.timeline.ops[0];
  core::Time mid = 0, longest = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = full.dag.ranks[0].ops[i];
    if (op.kind == OpKind::Collective && op.stream == Stream::Dp &&
        ops[i].end - ops[i].start > longest) {
      longest = ops[i].end - ops[i].start;
      mid = ops[i].start + longest / 2;
    }
  }
  REQUIRE(longest > 0);
  net::LinkId busiest = 0;
  std::uint64_t most = 0;
  for (net::LinkId l = 0; l < topo.links.size(); ++l) {
    const net::Link& k = topo.links[l];
    if (topo.nodes[k.a].name != "leaf0" || topo.nodes[k.b].name.rfind("spine", 0) != 0) continue;
    const std::uint64_t b = full.fabric.ports[full.fabric.port_base[k.a] + k.port_a].tx_bytes;
    if (b > most) most = b, busiest = l;
  }
  REQUIRE(most > 0);
  net::NetworkConfig cfg;
  cfg.outages = {{busiest, mid}};
  const TrainingReport cut = run(topo, Job{2, 1, 2}, CommMode::Packet, 1, 1, {}, cfg);
  const net::NetworkResult& r = cut.fabric;
  std::uint64_t lost = 0;
  for (const net::PortStats& p : r.ports) lost += p.lost;
  CAPTURE(lost, full.iteration_s, cut.iteration_s);
  REQUIRE(lost > 0);
  // Every byte a NIC sent arrived or was lost on the link, and what was lost was sent again: the
  // iteration completes, later than without the failure.
  REQUIRE(r.nic_data_sent == r.nic_data_received + r.dropped);
  REQUIRE(r.dropped > 0);
  REQUIRE(cut.iteration_s > full.iteration_s);
}

namespace {

// Two hosts per leaf, two GPUs per host, uplinks at 4:1: GPUs 0-3 on leaf 0, 4-7 on leaf 1.
net::Topology two_leaves() {
  net::FatTreeParams p;
  p.leaves = 2;
  p.hosts_per_leaf = 2;
  p.oversubscription = 4.0;
  p.host = test::h100_host(2);
  p.nic = test::link(400);
  p.uplink = test::link(100);
  return net::fat_tree(p);
}

// tp 2 inside a host, dp 2 across the two hosts `a` and `b`, starting at `start`.
TrainingJob job_on(const char* name, int a, int b, core::Time start = 0) {
  TrainingJob j;
  j.name = name;
  j.model = gpt(4, 512, 8, 256, 1024);
  j.config.tp = 2;
  j.config.dp = 2;
  j.config.micro_batch = 1;
  j.config.global_batch = 8;
  j.gpus = {2 * a, 2 * a + 1, 2 * b, 2 * b + 1};
  j.start = start;
  return j;
}

JobsReport run_jobs(const net::Topology& topo, const std::vector<TrainingJob>& jobs,
                    unsigned threads = 1, std::uint32_t lps = 1) {
  static const compute::KernelDb db;
  static const net::NetworkConfig cfg;
  TrainingInputs in;
  in.gpu = *compute::find_gpu("H100");
  in.kernels = &db;
  in.topology = &topo;
  in.network = &cfg;
  in.run.threads = threads;
  in.run.lps = lps;
  return simulate_jobs(in, jobs);
}

}  // namespace

TEST_CASE("several jobs on one fabric: slower together only where they share links",
          "[workload][training][fabric]") {
  const net::Topology topo = two_leaves();
  // Across the leaves (hosts 0+2 and 1+3): both jobs' gradient rings take the same uplinks.
  const JobsReport a_alone = run_jobs(topo, {job_on("a", 0, 2)});
  const JobsReport b_alone = run_jobs(topo, {job_on("b", 1, 3)});
  const JobsReport both = run_jobs(topo, {job_on("a", 0, 2), job_on("b", 1, 3)});
  REQUIRE(both.jobs.size() == 2);
  CAPTURE(a_alone.jobs[0].iteration_s, b_alone.jobs[0].iteration_s, both.jobs[0].iteration_s,
          both.jobs[1].iteration_s);
  REQUIRE(both.jobs[0].iteration_s > 1.1 * a_alone.jobs[0].iteration_s);
  REQUIRE(both.jobs[1].iteration_s > 1.1 * b_alone.jobs[0].iteration_s);
  // The slowdown is exposed data-parallel communication, not compute.
  REQUIRE(both.jobs[0].compute_s == a_alone.jobs[0].compute_s);
  REQUIRE(both.jobs[0].exposed_s[static_cast<int>(Stream::Dp)] >
          a_alone.jobs[0].exposed_s[static_cast<int>(Stream::Dp)]);

  // Every port counts each job's data: some uplinks carry both jobs.
  const auto ports_with_both = [](const JobsReport& r) {
    REQUIRE(r.fabric.tags == 2);
    int n = 0;
    for (std::size_t p = 0; p < r.fabric.ports.size(); ++p) {
      const std::uint64_t a = r.fabric.tag_bytes[2 * p], b = r.fabric.tag_bytes[2 * p + 1];
      REQUIRE(a + b == r.fabric.ports[p].tx_data_bytes);
      n += a > 0 && b > 0;
    }
    return n;
  };
  REQUIRE(ports_with_both(both) > 0);

  // Inside one leaf each (hosts 0+1 and 2+3): nothing shared, nothing changes.
  const JobsReport c_alone = run_jobs(topo, {job_on("c", 0, 1)});
  const JobsReport apart = run_jobs(topo, {job_on("c", 0, 1), job_on("d", 2, 3)});
  REQUIRE(apart.jobs[0].timeline.iteration == c_alone.jobs[0].timeline.iteration);
  REQUIRE(apart.jobs[0].comm_time == c_alone.jobs[0].comm_time);
  REQUIRE(ports_with_both(apart) == 0);
  REQUIRE(c_alone.fabric.tags == 0);  // one job: nothing to tell apart, all its data is tag 0's
  for (std::size_t p = 0; p < c_alone.fabric.ports.size(); ++p) {
    REQUIRE(c_alone.fabric.data_bytes(p, 0) == c_alone.fabric.ports[p].tx_data_bytes);
    REQUIRE(c_alone.fabric.data_bytes(p, 1) == 0);
  }

  // A job that starts later is counted from its own start.
  const JobsReport late = run_jobs(topo, {job_on("c", 0, 1), job_on("d", 2, 3, 5'000'000'000)});
  REQUIRE(late.jobs[1].timeline.iteration == apart.jobs[1].timeline.iteration);
  REQUIRE(late.end == 5'000'000'000 + apart.jobs[1].timeline.iteration);

  // Overlapping jobs and too few GPUs are refused.
  REQUIRE_THROWS_WITH(run_jobs(topo, {job_on("a", 0, 2), job_on("b", 2, 3)}),
                      Catch::Contains("both use GPU 4"));
  TrainingJob small = job_on("e", 0, 1);
  small.gpus.pop_back();
  REQUIRE_THROWS_WITH(run_jobs(topo, {small}), Catch::Contains("it is given 3 GPUs"));
}

TEST_CASE("several jobs on one fabric: identical for every thread count and partition",
          "[workload][training][fabric]") {
  const net::Topology topo = two_leaves();
  const std::vector<TrainingJob> jobs{job_on("a", 0, 2), job_on("b", 1, 3, 1'000'000'000)};
  const JobsReport ref = run_jobs(topo, jobs);
  for (const auto& [threads, lps] : {std::pair{2u, 4u}, std::pair{5u, 12u}}) {
    CAPTURE(threads, lps);
    const JobsReport r = run_jobs(topo, jobs, threads, lps);
    REQUIRE(r.end == ref.end);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      REQUIRE(r.jobs[j].comm_time == ref.jobs[j].comm_time);
      REQUIRE(r.jobs[j].timeline.iteration == ref.jobs[j].timeline.iteration);
    }
  }
}

TEST_CASE("training on the fabric: kernels back to back run as one event, each with its own times",
          "[workload][training][fabric]") {
  // One GPU, no communication: the isolated executor runs every kernel as its own step; the
  // fabric's agent runs each string of kernels that follow one another straight on as one event.
  const net::Topology topo = single_switch(1, 1);
  const TrainingReport iso = run(topo, Job{}, CommMode::Isolated);
  const TrainingReport pkt = run(topo, Job{}, CommMode::Packet);
  REQUIRE(pkt.timeline.ops.size() == 1);
  REQUIRE(pkt.timeline.ops[0].size() == iso.timeline.ops[0].size());
  for (std::size_t i = 0; i < iso.timeline.ops[0].size(); ++i) {
    CAPTURE(i);
    REQUIRE(pkt.timeline.ops[0][i].start == iso.timeline.ops[0][i].start);
    REQUIRE(pkt.timeline.ops[0][i].end == iso.timeline.ops[0][i].end);
  }
  REQUIRE(pkt.network_events < pkt.timeline.ops[0].size() / 2);
}

TEST_CASE(
    "training on the fabric: every op starts the moment its dependencies and its stream allow",
    "[workload][training][fabric]") {
  // The agent runs strings of kernels, and a kernel's end with the communication it leads into,
  // as one event each; every op must still start when the last of its dependencies and the
  // op before it on its stream (list order) have ended, not a picosecond later, and a kernel
  // last its own time.
  const net::Topology topo = single_switch(2, 4);
  const TrainingReport r = run(topo, Job{2, 2, 2}, CommMode::Packet);
  std::size_t comm_ops = 0;
  for (std::size_t rank = 0; rank < r.dag.ranks.size(); ++rank) {
    const RankDag& rd = r.dag.ranks[rank];
    const std::vector<OpTiming>& t = r.timeline.ops[rank];
    std::array<core::Time, static_cast<int>(Stream::Count)> stream_free{};
    for (std::size_t i = 0; i < rd.ops.size(); ++i) {
      const Op& op = rd.ops[i];
      core::Time ready = 0;
      for (std::uint32_t d = op.deps_begin; d < op.deps_end; ++d) {
        ready = std::max(ready, t[rd.deps[d]].end);
      }
      if (op.kind != OpKind::Recv) {
        core::Time& free = stream_free[static_cast<int>(op.stream)];
        ready = std::max(ready, free);
        free = t[i].end;
      }
      CAPTURE(rank, i);
      REQUIRE(t[i].start == ready);
      if (op.kind == OpKind::Compute) {
        REQUIRE(t[i].end - t[i].start == r.kernel_time[op.item]);
      } else {
        REQUIRE(t[i].end >= t[i].start);
      }
      comm_ops += op.kind == OpKind::Compute ? 0 : 1;
    }
  }
  REQUIRE(comm_ops > 0);
}

TEST_CASE(
    "training on the fabric: the tensor-parallel ranks of a host end their kernels in one "
    "event",
    "[workload][training][fabric]") {
  // Four ranks of one host run the same kernels and meet in every tensor-parallel collective:
  // their kernels end together, and the host's events fold into one what would be four (one
  // per rank and collective at least), with every op's times unchanged (the test above).
  static const compute::KernelDb db;
  const net::Topology topo = single_switch(1, 4);
  const net::NetworkConfig cfg;
  TrainingInputs in;
  in.model = gpt(4, 512, 8, 256, 1024);
  in.config.tp = 4;
  in.config.micro_batch = 1;
  in.config.global_batch = 4;
  in.gpu = *compute::find_gpu("H100");
  in.kernels = &db;
  in.topology = &topo;
  in.network = &cfg;
  in.comm = CommMode::Packet;
  in.exec.whole_transfers = true;  // a collective's transfers as one each, not in steps
  const TrainingReport r = simulate_training(in);
  std::size_t collectives = 0;
  for (const Comm& c : r.dag.comms) collectives += r.dag.groups[c.group].size() == 4 ? 1 : 0;
  REQUIRE(collectives > 0);
  CAPTURE(r.network_events, collectives);
  REQUIRE(r.network_events < 4 * collectives);
}
