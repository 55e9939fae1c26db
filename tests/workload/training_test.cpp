#include "workload/training.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "compute/gpu.hpp"
#include "net/topology/build.hpp"
#include "tests/workload/test_models.hpp"
#include "workload/rank_progress.hpp"
#include "workload/training_exec.hpp"
#include "workload/training_run.hpp"

using namespace fabricsim;
using namespace fabricsim::workload;

namespace {

using test::gpt;

double rank_flops(const Dag& dag, std::size_t r) {
  double f = 0;
  for (const Op& op : dag.ranks[r].ops) {
    if (op.kind == OpKind::Compute) f += compute::flops(dag.kernels[op.item]);
  }
  return f;
}

std::string op_name(const Op& op) {
  return kOpNames[op.name];
}

// Bytes of every collective of a name that a rank takes part in.
std::map<std::string, std::pair<int, double>> comm_totals(const Dag& dag, std::size_t r) {
  std::map<std::string, std::pair<int, double>> out;
  for (const Op& op : dag.ranks[r].ops) {
    if (op.kind == OpKind::Compute) continue;
    auto& t = out[op_name(op)];
    ++t.first;
    t.second += static_cast<double>(dag.comms[op.item].bytes);
  }
  return out;
}

// Per-layer forward GEMM FLOPs of a GPT layer, Narayanan et al. eq. 3 / Korthikanti eq. 7.
double layer_forward_flops(double b, double s, double h) {
  return 24 * b * s * h * h + 4 * b * s * s * h;
}

TrainingTimeline run_free(const Dag& dag, const std::vector<core::Time>& kt) {
  return execute_training(dag, kt, std::vector<core::Time>(dag.comms.size(), 0));
}

}  // namespace

TEST_CASE("training DAG: FLOPs per rank match the analytic count of a GPT layer",
          "[workload][training]") {
  const ModelSpec m = gpt(4, 256, 8, 128, 1024);
  const double b = 2, s = 128, h = 256, V = 1024, L = 4;
  for (const Recompute rc : {Recompute::None, Recompute::Selective, Recompute::Full}) {
    for (const int tp : {1, 2, 4}) {
      TrainingConfig c;
      c.tp = tp;
      c.micro_batch = 2;
      c.global_batch = 6;  // three micro-batches
      c.recompute = rc;
      const Dag dag = build_training(m, c);
      // Forward + 2x backward of every layer and of the logits; recomputation adds a forward
      // of each layer (full) or of its attention core, 4bs^2h (selective).
      double per_mb = 3 * (L * layer_forward_flops(b, s, h) + 2 * b * s * h * V);
      if (rc == Recompute::Full) per_mb += L * layer_forward_flops(b, s, h);
      if (rc == Recompute::Selective) per_mb += L * 4 * b * s * s * h;
      const double expected = 3 * per_mb / tp;
      CAPTURE(tp, static_cast<int>(rc));
      for (std::size_t r = 0; r < dag.ranks.size(); ++r) {
        REQUIRE(rank_flops(dag, r) == Approx(expected).epsilon(1e-12));
      }
      REQUIRE(dag.hardware_flops == Approx(expected * tp).epsilon(1e-12));
      // MFU's numerator never counts recomputation.
      REQUIRE(
          dag.model_flops ==
          Approx(3 * 3 * (L * layer_forward_flops(b, s, h) + 2 * b * s * h * V)).epsilon(1e-12));
    }
  }
}

TEST_CASE("training DAG: tensor-parallel traffic matches Megatron's formulas",
          "[workload][training]") {
  const ModelSpec m = gpt(4, 256, 8, 128, 1024);
  const double act = 2.0 * 128 * 256 * 2;  // b s h x 2 bytes
  const int mbs = 3, L = 4;
  TrainingConfig c;
  c.tp = 4;
  c.micro_batch = 2;
  c.global_batch = 6;
  SECTION("without sequence parallelism: 2 all-reduces per layer forward and 2 backward") {
    const auto t = comm_totals(build_training(m, c), 0);
    // + the embedding's forward all-reduce and the logits' backward one.
    REQUIRE(t.at("tp_allreduce").first == mbs * (4 * L + 2));
    REQUIRE(t.at("tp_allreduce").second == mbs * (4 * L + 2) * act);
    REQUIRE(t.count("tp_allgather") == 0);
  }
  SECTION("full recomputation repeats the forward's two") {
    c.recompute = Recompute::Full;
    const auto t = comm_totals(build_training(m, c), 0);
    REQUIRE(t.at("tp_allreduce").first == mbs * (6 * L + 2));
  }
  SECTION("sequence parallelism: an all-gather and a reduce-scatter in place of each") {
    c.sequence_parallel = true;
    const auto t = comm_totals(build_training(m, c), 0);
    REQUIRE(t.count("tp_allreduce") == 0);
    REQUIRE(t.at("tp_allgather").first == mbs * (4 * L + 2));
    REQUIRE(t.at("tp_reducescatter").first == mbs * (4 * L + 2));
    REQUIRE(t.at("tp_allgather").second == mbs * (4 * L + 2) * act);
  }
}

TEST_CASE("training DAG: fewer KV heads than tp ranks gather the QKV projection's output",
          "[workload][training]") {
  // Megatron-Core splits the projection by columns and all-gathers its output over the tp
  // ranks (transformer/attention.py): no rank computes a KV head twice, and the backward
  // reduce-scatters the gradient.
  ModelSpec m = gpt(4, 256, 8, 128, 1024);  // head_dim 32
  const double b = 2, s = 128, h = 256, d = 32, L = 4, mbs = 3;
  TrainingConfig c;
  c.tp = 4;
  c.micro_batch = 2;
  c.global_batch = 6;
  for (const int kv : {8, 4, 2, 1}) {
    m.kv_heads = kv;
    CAPTURE(kv);
    const Dag dag = build_training(m, c);
    // The KV projections shrink from 2 h^2 to 2 kv d h multiply-adds per token.
    const double saved = 2 * b * s * h * 2 * (8 - kv) * d;
    const double per_mb = 3 * (L * (layer_forward_flops(b, s, h) - saved) + 2 * b * s * h * 1024);
    REQUIRE(rank_flops(dag, 0) == Approx(mbs * per_mb / c.tp).epsilon(1e-12));
    const auto t = comm_totals(dag, 0);
    if (kv >= c.tp) {
      REQUIRE(t.count("tp_allgather") == 0);
      REQUIRE(t.count("tp_reducescatter") == 0);
      continue;
    }
    const double gathered = b * s * (8 + 2.0 * kv) * d * 2;  // every rank's columns, 2 bytes
    REQUIRE(t.at("tp_allgather").first == mbs * L);
    REQUIRE(t.at("tp_allgather").second == mbs * L * gathered);
    REQUIRE(t.at("tp_reducescatter").first == mbs * L);
    REQUIRE(t.at("tp_reducescatter").second == mbs * L * gathered);
  }
  // 9 query and 3 KV heads of 32 make (9 + 2 x 3) x 32 = 480 columns, which 9 ranks cannot split.
  m = gpt(4, 288, 9, 128, 1024);
  m.kv_heads = 3;
  c.tp = 9;
  REQUIRE_THROWS_WITH(build_training(m, c),
                      Catch::Contains("tp (9) must divide the QKV projection's 480 columns"));
}

TEST_CASE("training DAG: pipeline and data-parallel traffic", "[workload][training]") {
  const ModelSpec m = gpt(8, 256, 8, 128, 1024);
  TrainingConfig c;
  c.tp = 2;
  c.pp = 4;
  c.dp = 2;
  c.micro_batch = 1;
  c.global_batch = 16;  // 8 micro-batches per replica
  c.bucket_params = 100'000;
  const Dag dag = build_training(m, c);
  REQUIRE(dag.ranks.size() == 16);
  const double pp_bytes = 1.0 * 128 * 256 * 2 / 2;  // b s h x 2 bytes / t (scatter/gather)
  // Stage 1 (rank tp0, dp0, pp1 = 4): receives and sends every micro-batch both ways.
  const auto mid = comm_totals(dag, 4);
  REQUIRE(mid.at("pp_send").first == 2 * 8);
  REQUIRE(mid.at("pp_recv").first == 2 * 8);
  REQUIRE(mid.at("pp_send").second == 2 * 8 * pp_bytes);
  // Data parallelism: the stage's gradients (FP32) once, in buckets.
  const double stage_params = 2 * layer_params(m) / c.tp;
  const auto& dp = mid.at("dp_allreduce");
  REQUIRE(dp.first > 1);
  REQUIRE(dp.second <= stage_params * 4);
  REQUIRE(dp.second >= stage_params * 4 - dp.first * c.dp);
  // The first stage also reduces the embedding: its share of the word embedding and the whole
  // position table, which every tensor-parallel rank holds; and sums it with the last stage's.
  const auto first = comm_totals(dag, 0);
  const double first_params = stage_params + (1024.0 / c.tp + 128) * 256;
  REQUIRE(embedding_params(m, c.tp) == (1024.0 / c.tp + 128) * 256);
  REQUIRE(first.at("dp_allreduce").second <= first_params * 4);
  REQUIRE(first.at("dp_allreduce").second >= first_params * 4 - first.at("dp_allreduce").first * 2);
  REQUIRE(first.at("embedding_allreduce").first == 1);
  REQUIRE(mid.count("embedding_allreduce") == 0);
  // The last stage (rank tp0, dp0, pp3 = 12) holds the word embedding, not the position table.
  const auto last = comm_totals(dag, 12);
  const double last_params = stage_params + 1024.0 / c.tp * 256;
  REQUIRE(last.at("dp_allreduce").second <= last_params * 4);
  REQUIRE(last.at("dp_allreduce").second >= last_params * 4 - last.at("dp_allreduce").first * 2);
}

TEST_CASE("training DAG: rotary position embeddings have no weights to reduce",
          "[workload][training]") {
  ModelSpec m = gpt(4, 256, 8, 128, 1024);
  TrainingConfig c;
  c.dp = 2;
  c.micro_batch = 1;
  c.global_batch = 2;
  const double learned = comm_totals(build_training(m, c), 0).at("dp_allreduce").second;
  for (const PositionEmbedding p : {PositionEmbedding::Rope, PositionEmbedding::None}) {
    m.positions = p;
    const double none = comm_totals(build_training(m, c), 0).at("dp_allreduce").second;
    REQUIRE(learned - none == Approx(128.0 * 256 * 4).margin(2));  // seq x hidden, FP32
    REQUIRE(total_params(m) == 4 * layer_params(m) + 1024.0 * 256 + 2 * 256);
  }
}

TEST_CASE("training DAG: ZeRO moves the gradient and parameter traffic", "[workload][training]") {
  const ModelSpec m = gpt(4, 256, 8, 128, 1024);
  TrainingConfig c;
  c.dp = 4;
  c.micro_batch = 1;
  c.global_batch = 8;
  c.zero = 1;
  auto t = comm_totals(build_training(m, c), 0);
  REQUIRE(t.count("dp_allreduce") == 0);
  const double params = 4 * layer_params(m) + embedding_params(m);
  REQUIRE(t.at("dp_reducescatter").second == Approx(params * 4).epsilon(1e-4));
  REQUIRE(t.at("dp_allgather").second == Approx(params * 2).epsilon(1e-4));
  c.zero = 3;
  t = comm_totals(build_training(m, c), 0);
  // Every layer and the embedding gathered before its forward and its backward, per
  // micro-batch (2 here), the word embedding once more for the logits it ties to; every
  // gradient reduce-scattered once per micro-batch (the tied one once, with pp = 1).
  REQUIRE(t.at("dp_allgather").first == 2 * 2 * (4 + 2));
  REQUIRE(t.at("dp_reducescatter").first == 2 * (4 + 1));
  const double word = 1024.0 * 256;
  REQUIRE(t.at("dp_allgather").second == Approx(2 * 2 * (params + word) * 2).epsilon(1e-4));
  REQUIRE(t.at("dp_reducescatter").second == Approx(2 * params * 4).epsilon(1e-4));
  // Two stages: the last one's word embedding (tied to the first's) is gathered for the logits
  // and its gradient reduce-scattered there, per micro-batch; the two stages then sum their
  // shards of it, not the whole.
  c.pp = 2;
  c.dp = 2;
  const Dag two = build_training(m, c);
  const auto last = comm_totals(two, 2);  // tp fastest, then dp: rank 2 is stage 1's first
  REQUIRE(last.at("embedding_allreduce").second == Approx(word * 4 / 2).epsilon(1e-4));
}

TEST_CASE("training DAG: MoE layers exchange tokens over the expert-parallel group",
          "[workload][training]") {
  ModelSpec m = gpt(2, 256, 8, 128, 1024);
  m.experts = 8;
  m.top_k = 2;
  TrainingConfig c;
  c.dp = 4;
  c.ep = 4;
  c.micro_batch = 1;
  c.global_batch = 4;
  const Dag dag = build_training(m, c);
  const auto t = comm_totals(dag, 0);
  // Dispatch and combine, forward and backward, per layer.
  REQUIRE(t.at("ep_alltoall").first == 4 * 2);
  REQUIRE(t.at("ep_alltoall").second == 4 * 2 * (128.0 * 2 * 256 * 2));
  c.ep = 3;
  REQUIRE_THROWS_WITH(build_training(m, c), Catch::Contains("ep (3) must divide dp (4)"));
}

TEST_CASE("training DAG: expert gradients are reduced over the ranks that hold the same experts",
          "[workload][training]") {
  // Megatron-Core reduces, shards and gathers expert parameters over the expert-data-parallel
  // group (dp / ep ranks), the rest over the whole data-parallel group.
  ModelSpec m = gpt(2, 256, 8, 128, 1024);
  m.experts = 8;
  m.top_k = 2;
  const double expert = 256.0 * 1024 * 2;  // h x ffn x 2 (no SwiGLU) per expert
  const double dense = 2 * (layer_params(m) - 8 * expert) + embedding_params(m);
  TrainingConfig c;
  c.dp = 4;
  c.micro_batch = 1;
  c.global_batch = 4;
  c.grad_bytes = 2;
  c.one_replica = false;
  for (const int zero : {0, 1, 3}) {
    for (const int ep : {1, 2, 4}) {
      c.zero = zero;
      c.ep = ep;
      CAPTURE(zero, ep);
      const double local = 2 * expert * 8 / ep;  // two layers of 8 / ep experts
      const Dag dag = build_training(m, c);
      const std::string reduce = zero == 0 ? "dp_allreduce" : "dp_reducescatter";
      for (const int r : {0, 1}) {
        // Bytes this rank reduces and gathers, by the data-parallel indices of the group.
        std::map<std::vector<int>, std::pair<double, double>> by_group;
        for (const Op& op : dag.ranks[r].ops) {
          if (op.kind == OpKind::Compute) continue;
          const std::string n = op_name(op);
          if (n != reduce && n != "dp_allgather") continue;
          const Comm& cm = dag.comms[op.item];
          auto& t = by_group[dag.groups[cm.group]];
          (n == reduce ? t.first : t.second) += static_cast<double>(cm.bytes);
        }
        const std::vector<int> all{0, 1, 2, 3};
        std::vector<int> same;
        for (int d = r % ep; d < 4; d += ep) same.push_back(d);
        CAPTURE(r);
        // Reduce-scatters round down to the group size; the rest is exact.
        const double dense_bytes = by_group[all].first;
        if (ep == 1) {  // every rank holds every expert: one group for all
          REQUIRE(by_group.size() == 1);
          REQUIRE(dense_bytes == Approx(2 * (dense + local)).margin(4 * 2 * 16));
          continue;
        }
        REQUIRE(dense_bytes == Approx(2 * dense).margin(4 * 2 * 16));
        if (same.size() == 1) {
          REQUIRE(by_group.size() == 1);  // nobody else holds these experts
          continue;
        }
        REQUIRE(by_group.size() == 2);
        REQUIRE(by_group.at(same).first == Approx(2 * local).margin(2 * 2 * 16));
        if (zero == 0) REQUIRE(by_group.at(same).second == 0);
        if (zero > 0) REQUIRE(by_group.at(same).second > 0);
      }
      // ZeRO shards the experts' optimizer state over dp / ep ranks only.
      const MemoryEstimate e = estimate_memory(m, c);
      const double params = dense + local;
      const double sharded = dense / 4 + local / (4.0 / ep);
      REQUIRE(e.optimizer == Approx(12 * (zero >= 1 ? sharded : params)));
      REQUIRE(e.weights == Approx(2 * (zero >= 3 ? sharded : params)));
    }
  }
}

TEST_CASE("training schedules: with free communication the iteration is the schedule's formula",
          "[workload][training]") {
  // Uniform stages: everything but the transformer layers' own kernels costs nothing.
  const ModelSpec m = gpt(16, 256, 8, 128, 1024);
  for (const auto& [schedule, chunks] :
       {std::pair{Schedule::GPipe, 1}, std::pair{Schedule::OneFOneB, 1},
        std::pair{Schedule::Interleaved, 2}, std::pair{Schedule::Interleaved, 4}}) {
    for (const int p : {1, 2, 4}) {
      if (schedule == Schedule::Interleaved && p == 1) continue;  // refused: no pipeline
      TrainingConfig c;
      c.pp = p;
      c.schedule = schedule;
      c.virtual_stages = chunks;
      c.micro_batch = 1;
      c.global_batch = 8;
      const Dag dag = build_training(m, c);
      std::vector<core::Time> kt(dag.kernels.size());
      for (std::size_t k = 0; k < kt.size(); ++k) {
        kt[k] = static_cast<core::Time>(1000 + 37 * k);  // distinct, deterministic
      }
      for (const RankDag& rd : dag.ranks) {
        for (const Op& op : rd.ops) {
          const std::string n = op_name(op);
          if (op.kind == OpKind::Compute &&
              (n == "layernorm" || n == "embedding" || n == "logits" || n == "cross_entropy" ||
               n == "optimizer" || n == "grad_unscale" || n == "grad_norm" || n == "zero_grad" ||
               n == "grad_cast")) {
            kt[op.item] = 0;
          }
        }
      }
      // t_f, t_b: one micro-batch through one rank's layers.
      core::Time tf = 0, tb = 0;
      for (const Op& op : dag.ranks[0].ops) {
        if (op.kind != OpKind::Compute || op.micro_batch != 0) continue;
        (op.phase == Phase::Forward ? tf : tb) += kt[op.item];
      }
      const TrainingTimeline tl = run_free(dag, kt);
      const core::Time mb = c.micro_batches();
      CAPTURE(static_cast<int>(schedule), chunks, p, tf, tb);
      // t_f and t_b cover all of a rank's chunks: per chunk they are 1/v of that.
      const core::Time expected = mb * (tf + tb) + (p - 1) * (tf + tb) / chunks;
      REQUIRE(tl.iteration == expected);
      // The bubble is what the formula says: (p - 1) / v of one micro-batch's work.
      for (const RankBreakdown& b : tl.ranks) {
        REQUIRE(b.compute + b.bubble + b.exposed_total() == tl.iteration);
        REQUIRE(b.exposed_total() == 0);
        REQUIRE(b.bubble == (p - 1) * (tf + tb) / chunks);
      }
    }
  }
}

TEST_CASE("training executor: exposed communication and bubble add up", "[workload][training]") {
  const ModelSpec m = gpt(4, 256, 8, 128, 1024);
  TrainingConfig c;
  c.tp = 2;
  c.pp = 2;
  c.dp = 2;
  c.micro_batch = 1;
  c.global_batch = 8;
  const Dag dag = build_training(m, c);
  std::vector<core::Time> kt(dag.kernels.size(), 5000);
  std::vector<core::Time> ct(dag.comms.size());
  for (std::size_t i = 0; i < ct.size(); ++i) ct[i] = static_cast<core::Time>(700 + 13 * (i % 7));
  const TrainingTimeline tl = execute_training(dag, kt, ct);
  REQUIRE(tl.iteration > 0);
  for (std::size_t r = 0; r < tl.ranks.size(); ++r) {
    if (!dag.ranks[r].simulated) continue;
    const RankBreakdown& b = tl.ranks[r];
    REQUIRE(b.compute + b.bubble + b.exposed_total() == tl.iteration);
    REQUIRE(b.exposed[static_cast<int>(Stream::Tp)] > 0);  // TP all-reduces block compute
  }
  // Every op ran, in dependency order.
  for (std::size_t r = 0; r < dag.ranks.size(); ++r) {
    const RankDag& rd = dag.ranks[r];
    for (std::size_t i = 0; i < rd.ops.size(); ++i) {
      REQUIRE(tl.ops[r][i].end >= tl.ops[r][i].start);
      for (std::uint32_t k = rd.ops[i].deps_begin; k < rd.ops[i].deps_end; ++k) {
        REQUIRE(tl.ops[r][rd.deps[k]].end <= tl.ops[r][i].start);
      }
    }
  }
  // Same inputs, same timeline.
  const TrainingTimeline again = execute_training(dag, kt, ct);
  REQUIRE(again.iteration == tl.iteration);
  // Replicas are identical when communications are timed alone: running them all changes
  // nothing but the cost.
  c.one_replica = false;
  const Dag full = build_training(m, c);
  REQUIRE(full.kernels.size() == dag.kernels.size());
  REQUIRE(full.comms.size() > dag.comms.size());
  std::vector<core::Time> full_ct(full.comms.size());
  for (std::size_t i = 0; i < full.comms.size(); ++i) {
    // The same duration for the same kind of communication as above.
    const Comm& cm = full.comms[i];
    for (std::size_t j = 0; j < dag.comms.size(); ++j) {
      if (dag.comms[j].op == cm.op && dag.comms[j].bytes == cm.bytes &&
          dag.groups[dag.comms[j].group].size() == full.groups[cm.group].size()) {
        full_ct[i] = 2000 + static_cast<core::Time>(cm.bytes % 997);
      }
    }
  }
  std::vector<core::Time> one_ct(dag.comms.size());
  for (std::size_t j = 0; j < dag.comms.size(); ++j) {
    one_ct[j] = 2000 + static_cast<core::Time>(dag.comms[j].bytes % 997);
  }
  const TrainingTimeline all = execute_training(full, kt, full_ct);
  const TrainingTimeline one = execute_training(dag, kt, one_ct);
  REQUIRE(all.iteration == one.iteration);
  for (std::size_t r = 0; r < dag.ranks.size(); ++r) {
    if (!dag.ranks[r].simulated) continue;
    REQUIRE(all.ranks[r].bubble == one.ranks[r].bubble);
    REQUIRE(all.ranks[r].compute == one.ranks[r].compute);
  }
}

TEST_CASE("training memory estimate: a hand-computed case", "[workload][training]") {
  ModelSpec m = gpt(2, 64, 4, 128, 1000);
  TrainingConfig c;
  c.tp = 2;
  c.micro_batch = 2;
  c.global_batch = 2;
  // Layer: attention 64x192 + 192 + 64x64 + 64 = 16640; FFN 64x256x2 + 256 + 64 = 33088; two
  // norms 256: 49984. Embeddings: the word table 1000 x 64 split over the two ranks, the
  // position table 128 x 64 whole on each. Per rank 2 x 49984 / 2 + 32000 + 8192.
  const double params = 90176;
  const MemoryEstimate e = estimate_memory(m, c);
  REQUIRE(e.weights == Approx(params * 2));
  REQUIRE(e.gradients == Approx(params * 4));
  REQUIRE(e.optimizer == Approx(params * 12));
  // s b h = 16384 per layer x (10 + 24/2 + 5 a s / (h t) = 20) = 688128; two layers in flight.
  REQUIRE(e.activations == Approx(2 * 688128.0));
  c.zero = 3;
  c.dp = 1;
  REQUIRE(estimate_memory(m, c).weights == Approx(params * 2));
}

TEST_CASE("training memory estimate: the interleaved schedule's chunks in flight",
          "[workload][training]") {
  // Stage 0 holds p v + p - 1 chunks of L / (p v) layers (Megatron's warm-up plus one), so
  // L (1 + (p - 1) / (p v)) layers' worth against 1F1B's L; never more than all its chunks.
  const ModelSpec m = gpt(16, 64, 4, 128, 1000);
  TrainingConfig c;
  c.pp = 4;
  c.global_batch = 16;
  const double one_f_one_b = estimate_memory(m, c).activations;  // 4 micro-batches x 4 layers
  c.schedule = Schedule::Interleaved;
  for (const int v : {2, 4}) {
    c.virtual_stages = v;
    CAPTURE(v);
    REQUIRE(estimate_memory(m, c).activations == Approx(one_f_one_b * (1 + 3.0 / (4.0 * v))));
  }
  // Four micro-batches of two chunks: all eight chunks (4 x 2 of 2 layers), 16 layers' worth,
  // against p v + p - 1 = 11 with many micro-batches.
  c.virtual_stages = 2;
  c.global_batch = 4;
  REQUIRE(estimate_memory(m, c).activations == Approx(one_f_one_b));
  c.global_batch = 64;
  REQUIRE(estimate_memory(m, c).activations == Approx(one_f_one_b * 11 / 8));
}

TEST_CASE("optimizer step: 16-bit gradients are cast to FP32 before the unscale and the norm",
          "[workload][training]") {
  // Same model as the memory case: 90176 parameters per rank.
  const ModelSpec m = gpt(2, 64, 4, 128, 1000);
  const double params = 90176;
  TrainingConfig c;
  c.tp = 2;
  c.micro_batch = 2;
  c.global_batch = 2;
  c.dtype = compute::Dtype::FP16;
  const auto bytes_of = [&](const TrainingConfig& cfg) {
    std::map<std::string, double> out;
    const Dag dag = build_training(m, cfg);
    for (const Op& op : dag.ranks[0].ops) {
      if (op.kind == OpKind::Compute && op.phase == Phase::Optimizer) {
        out[op_name(op)] += static_cast<double>(dag.kernels[op.item].bytes);
      }
    }
    return out;
  };
  // FP32 gradients: nothing to cast; the unscale reads and writes them, the norm reads them.
  auto fp32 = bytes_of(c);
  REQUIRE(fp32.count("grad_cast") == 0);
  REQUIRE(fp32["grad_unscale"] == Approx(8 * params).epsilon(1e-6));
  REQUIRE(fp32["grad_norm"] == Approx(4 * params).epsilon(1e-6));
  REQUIRE(fp32["zero_grad"] == Approx(4 * params).epsilon(1e-6));
  // FP16 gradients: a read of 2 and a write of 4 bytes each, then the FP32 copies as above;
  // only the 16-bit gradient buffer is zeroed.
  c.grad_bytes = 2;
  auto fp16 = bytes_of(c);
  REQUIRE(fp16["grad_cast"] == Approx(6 * params).epsilon(1e-6));
  REQUIRE(fp16["grad_unscale"] == Approx(8 * params).epsilon(1e-6));
  REQUIRE(fp16["grad_norm"] == Approx(4 * params).epsilon(1e-6));
  REQUIRE(fp16["zero_grad"] == Approx(2 * params).epsilon(1e-6));
}

TEST_CASE("training DAG: the memory kernels' class marks every memory-bound kernel and no other",
          "[workload][training]") {
  const ModelSpec m = gpt(2, 64, 4, 128, 1000);
  TrainingConfig c;
  c.tp = 2;
  c.micro_batch = 2;
  c.global_batch = 2;
  const Dag tuned = build_training(m, c);
  c.memory_kernels = compute::MemoryImpl::Compiled;
  const Dag compiled = build_training(m, c);
  REQUIRE(compiled.kernels.size() == tuned.kernels.size());
  int memory = 0;
  for (std::size_t i = 0; i < compiled.kernels.size(); ++i) {
    const compute::Kernel& k = compiled.kernels[i];
    const bool mem = k.kind == compute::KernelKind::MemoryBound;
    memory += mem ? 1 : 0;
    REQUIRE(tuned.kernels[i].memory_impl == compute::MemoryImpl::Tuned);
    REQUIRE(k.memory_impl == (mem ? compute::MemoryImpl::Compiled : compute::MemoryImpl::Tuned));
  }
  REQUIRE(memory > 0);
}

TEST_CASE("training run: a configuration that does not fit errors with the numbers",
          "[workload][training]") {
  ModelSpec m = gpt(96, 12288, 96, 2048, 51200);
  net::SingleParams p;
  p.hosts = 1;
  p.host.gpus = 8;
  p.host.nics = 8;
  p.host.gpu_link_rate = 300ULL * 8 * net::kGbps;
  const net::Topology topo = net::single(p);
  const net::NetworkConfig cfg;
  const compute::KernelDb db;
  TrainingInputs in;
  in.model = m;
  in.config.tp = 8;
  in.gpu = *compute::find_gpu("A100-80GB");
  in.kernels = &db;
  in.topology = &topo;
  in.network = &cfg;
  REQUIRE_THROWS_WITH(simulate_training(in),
                      Catch::Contains("does not fit in GPU memory") && Catch::Contains("80 GB"));
  in.config.tp = 4;
  REQUIRE_THROWS_WITH(simulate_training(in), Catch::Contains("4 ranks, but the cluster has 8"));
  // A DAG larger than memory is refused before it is built (2^30 micro-batches of a small
  // model: estimated from builds of one and two).
  in.model = gpt(2, 256, 8, 128, 1024);
  in.config.tp = 8;
  in.config.global_batch = 1 << 30;
  REQUIRE_THROWS_WITH(simulate_training(in),
                      Catch::Contains("the training DAG of 1073741824 micro-batches per replica "
                                      "needs about") &&
                          Catch::Contains("lower training.global_batch"));
}

TEST_CASE("training DAG: bad configurations are refused with the numbers", "[workload][training]") {
  const ModelSpec m = gpt(6, 256, 8, 128, 1024);
  TrainingConfig c;
  c.pp = 4;
  REQUIRE_THROWS_WITH(build_training(m, c), Catch::Contains("must divide the layers (6)"));
  c.pp = 2;
  c.tp = 3;
  REQUIRE_THROWS_WITH(build_training(m, c), Catch::Contains("tp (3) must divide the heads (8)"));
  c.tp = 1;
  c.global_batch = 3;
  c.dp = 2;
  REQUIRE_THROWS_WITH(build_training(m, c), Catch::Contains("multiple of micro_batch x dp"));
  // Grouped-query attention: Megatron-Core takes KV heads that are a multiple or a divisor of
  // tp (2 over 4 ranks), not 6 or 3 over 4.
  ModelSpec gqa = gpt(6, 384, 24, 128, 1024);
  TrainingConfig t4;
  t4.tp = 4;
  t4.global_batch = 1;
  for (const int kv : {6, 3}) {
    gqa.kv_heads = kv;
    REQUIRE_THROWS_WITH(build_training(gqa, t4),
                        Catch::Contains("kv_heads (" + std::to_string(kv) +
                                        ") must be a multiple or a divisor of tp (4)"));
  }
  gqa.kv_heads = 2;
  REQUIRE_NOTHROW(build_training(gqa, t4));
  // One stage has no pipeline to interleave (Megatron refuses it too).
  c.global_batch = 4;
  c.pp = 1;
  c.dp = 1;
  c.schedule = Schedule::Interleaved;
  c.virtual_stages = 2;
  REQUIRE_THROWS_WITH(build_training(m, c), Catch::Contains("interleaved schedule needs pp > 1"));
}

TEST_CASE("training executor: waiting for queued gradient buckets is exposed communication",
          "[workload][training]") {
  // No pipeline and no tensor parallelism: nothing but data-parallel buckets to wait for, and
  // they queue on one stream behind each other.
  const ModelSpec m = gpt(8, 256, 8, 128, 1024);
  TrainingConfig c;
  c.dp = 2;
  c.micro_batch = 1;
  c.global_batch = 2;
  c.bucket_params = 100'000;
  const Dag dag = build_training(m, c);
  REQUIRE(comm_totals(dag, 0).at("dp_allreduce").first > 2);
  const std::vector<core::Time> kt(dag.kernels.size(), 1000);
  const std::vector<core::Time> ct(dag.comms.size(), 50'000);  // far longer than the backward
  const TrainingTimeline tl = execute_training(dag, kt, ct);
  const RankBreakdown& b = tl.ranks[0];
  REQUIRE(b.compute + b.bubble + b.exposed_total() == tl.iteration);
  REQUIRE(b.bubble == 0);
  REQUIRE(b.exposed[static_cast<int>(Stream::Dp)] > 2 * 50'000);
}

TEST_CASE("training executor: with pipeline stages, gradient buckets still overlap the backward",
          "[workload][training]") {
  // Both stages hold the tied embedding. Its all-reduce comes after the buckets on the
  // data-parallel stream (Megatron-Core's finalize_model_grads), so they start during the
  // backward; queued behind it, none could start before the backward's end.
  const ModelSpec m = gpt(8, 256, 8, 128, 1024);
  TrainingConfig c;
  c.pp = 2;
  c.dp = 2;
  c.micro_batch = 1;
  c.global_batch = 4;
  c.bucket_params = 100'000;
  for (const bool overlap : {true, false}) {
    c.overlap_grad_reduce = overlap;
    CAPTURE(overlap);
    const Dag dag = build_training(m, c);
    const std::vector<core::Time> kt(dag.kernels.size(), 1000);
    const std::vector<core::Time> ct(dag.comms.size(), 5000);
    const TrainingTimeline tl = execute_training(dag, kt, ct);
    int checked = 0;
    for (std::size_t r = 0; r < dag.ranks.size(); ++r) {
      if (!dag.ranks[r].simulated) continue;  // the other replica runs as the first
      ++checked;
      core::Time first_bucket = -1, last_backward = 0, embedding = -1;
      const auto& ops = dag.ranks[r].ops;
      for (std::size_t i = 0; i < ops.size(); ++i) {
        const std::string n = op_name(ops[i]);
        if (n == "dp_allreduce" && first_bucket < 0) first_bucket = tl.ops[r][i].start;
        if (n == "embedding_allreduce") embedding = tl.ops[r][i].start;
        if (ops[i].kind == OpKind::Compute && ops[i].phase == Phase::Backward) {
          last_backward = std::max(last_backward, tl.ops[r][i].end);
        }
      }
      CAPTURE(r);
      REQUIRE(first_bucket >= 0);
      REQUIRE(embedding >= first_bucket);
      if (overlap) REQUIRE(first_bucket < last_backward);
      if (!overlap) REQUIRE(first_bucket >= last_backward);
    }
    REQUIRE(checked == 2);  // both stages
  }
}

TEST_CASE("training run, isolated: identical results for every thread count and partition",
          "[workload][training]") {
  // Tensor parallelism inside a host, pipeline stages on two hosts, so the network carries
  // the stage-to-stage traffic and the data-parallel gradients of a second replica.
  const ModelSpec m = gpt(4, 512, 8, 256, 1024);
  net::SingleParams p;
  p.hosts = 4;
  p.host.gpus = 4;
  p.host.nics = 4;
  p.host.gpu = "H100";
  p.host.gpu_link_rate = 450ULL * 8 * net::kGbps;
  p.nic.rate = 400 * net::kGbps;
  p.nic.delay = 500'000;  // 500 ns
  const net::Topology topo = net::single(p);
  const net::NetworkConfig cfg;
  const compute::KernelDb db;
  TrainingInputs in;
  in.model = m;
  in.config.tp = 4;
  in.config.pp = 2;
  in.config.dp = 2;
  in.config.micro_batch = 1;
  in.config.global_batch = 8;
  in.config.sequence_parallel = true;
  in.config.bucket_params = 300'000;  // several bucket sizes: more distinct communications
  in.gpu = *compute::find_gpu("H100");
  in.kernels = &db;
  in.topology = &topo;
  in.network = &cfg;
  in.comm = CommMode::Isolated;
  in.run.threads = 1;
  in.run.lps = 1;
  const TrainingReport ref = simulate_training(in);
  REQUIRE(ref.network_events > 0);
  bool side_by_side = false;
  for (const auto& [threads, lps] : {std::pair{1u, 4u}, std::pair{2u, 4u}, std::pair{2u, 3u}}) {
    in.run.threads = threads;
    in.run.lps = lps;
    const TrainingReport r = simulate_training(in);
    CAPTURE(threads, lps);
    side_by_side = side_by_side || r.comm_side_by_side;
    REQUIRE(r.comm_time == ref.comm_time);
    REQUIRE(r.timeline.iteration == ref.timeline.iteration);
    REQUIRE(r.network_events == ref.network_events);
  }
  // Both ways of running the shapes were compared with the one-thread reference.
  REQUIRE(side_by_side);
}

TEST_CASE("training DAG: ranks replayed from the first of their stage are the ranks built",
          "[workload][training]") {
  // Every shape of group the generator forms: tensor-, data- and expert-parallel groups,
  // pipeline pairs both ways (two stages share one pair), the embedding group, ZeRO-3's
  // per-layer gathers, the interleaved schedule's wrap-around.
  struct Case {
    const char* what;
    TrainingConfig c;
    int experts = 0;
  };
  std::vector<Case> cases;
  const auto add = [&](const char* what, auto set, int experts = 0) {
    TrainingConfig c;
    c.micro_batch = 1;
    set(c);
    cases.push_back({what, c, experts});
  };
  add("tp 2, pp 2, dp 2, every replica", [](TrainingConfig& c) {
    c.tp = 2, c.pp = 2, c.dp = 2, c.global_batch = 8, c.one_replica = false;
  });
  add("tp 2, pp 4, dp 2, one replica", [](TrainingConfig& c) {
    c.tp = 2, c.pp = 4, c.dp = 2, c.global_batch = 8, c.sequence_parallel = true;
  });
  add("ZeRO-3, dp 4", [](TrainingConfig& c) {
    c.tp = 2, c.pp = 2, c.dp = 4, c.global_batch = 8, c.zero = 3, c.one_replica = false;
  });
  add("ZeRO-1, interleaved", [](TrainingConfig& c) {
    c.pp = 2, c.dp = 3, c.global_batch = 12, c.zero = 1, c.schedule = Schedule::Interleaved,
    c.virtual_stages = 2, c.one_replica = false;
  });
  add(
      "MoE, ep 2 of dp 4",
      [](TrainingConfig& c) {
        c.tp = 2, c.pp = 2, c.dp = 4, c.ep = 2, c.global_batch = 8, c.one_replica = false;
      },
      4);
  for (const int zero : {1, 3}) {
    add(
        zero == 1 ? "MoE, ZeRO-1, ep 2 of dp 6" : "MoE, ZeRO-3, ep 2 of dp 6",
        [zero](TrainingConfig& c) {
          c.pp = 2, c.dp = 6, c.ep = 2, c.global_batch = 12, c.zero = zero, c.one_replica = false;
        },
        4);
  }
  for (const Case& k : cases) {
    INFO(k.what);
    ModelSpec m = gpt(4, 256, 8, 128, 1024);
    if (k.experts > 0) m.experts = k.experts, m.top_k = 2;
    const Dag replayed = build_training(m, k.c);
    const Dag built = build_training_each_rank(m, k.c);
    REQUIRE(replayed.ranks.size() == built.ranks.size());
    for (std::size_t r = 0; r < built.ranks.size(); ++r) {
      INFO("rank " << r);
      CHECK(replayed.ranks[r] == built.ranks[r]);
    }
    CHECK(replayed.groups == built.groups);
    CHECK(replayed.comms == built.comms);
    CHECK(replayed.kernels == built.kernels);
    // Summed in the same order: bit for bit.
    CHECK(replayed.hardware_flops == built.hardware_flops);
    // Which ranks it says are alike holds: the shapes come out as comparing every rank finds.
    REQUIRE(replayed.same_structure_as.size() == replayed.ranks.size());
    REQUIRE(built.same_structure_as.empty());
    const RankShapes said = rank_shapes(replayed, 1), found = rank_shapes(built, 1);
    CHECK(said.of_rank == found.of_rank);
    CHECK(said.first_rank == found.first_rank);
  }
}
