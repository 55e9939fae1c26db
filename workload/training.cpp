// Generator of Megatron-style training iterations. The kernels of a transformer layer and the
// placement of its tensor-parallel collectives follow Megatron-LM's ParallelTransformerLayer
// (column-parallel QKV and FC1, row-parallel projection and FC2; Shoeybi et al. 2019,
// arXiv 1909.08053 §3) and its sequence-parallel variant (Korthikanti et al. 2022, arXiv
// 2205.05198 §4.2.2); pipeline schedules follow Narayanan et al. 2021 (arXiv 2104.04473 §2.2).
#include "workload/training.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <boost/container_hash/hash.hpp>

namespace fabricsim::workload {

using compute::Kernel;
using compute::KernelKind;

const char* const kOpNames[] = {
    "layernorm", "qkv", "attn_scores", "softmax", "attn_dropout", "attn_values", "flash_attn",
    "proj", "bias_drop_add", "fc1", "activation", "fc2", "router", "experts_fc1", "experts_fc2",
    "embedding", "logits", "cross_entropy", "optimizer", "tp_allreduce", "tp_allgather",
    "tp_reducescatter", "pp_send", "pp_recv", "dp_allreduce", "dp_reducescatter", "dp_allgather",
    "ep_alltoall", "embedding_allreduce", "grad_unscale", "grad_norm", "zero_grad", "grad_cast",
    // Imported traces (chakra_import.hpp).
    "kernel", "cpu_op", "allreduce", "reduce", "allgather", "broadcast", "alltoall",
    "reducescatter", "send", "recv"};
const int kOpNameCount = static_cast<int>(std::size(kOpNames));

namespace {

enum Name : std::uint8_t {
  kLayerNorm,
  kQkv,
  kAttnScores,
  kSoftmax,
  kAttnDropout,
  kAttnValues,
  kFlashAttn,
  kProj,
  kBiasDropAdd,
  kFc1,
  kActivation,
  kFc2,
  kRouter,
  kExpertsFc1,
  kExpertsFc2,
  kEmbedding,
  kLogits,
  kCrossEntropy,
  kOptimizer,
  kTpAllReduce,
  kTpAllGather,
  kTpReduceScatter,
  kPpSend,
  kPpRecv,
  kDpAllReduce,
  kDpReduceScatter,
  kDpAllGather,
  kEpAllToAll,
  kEmbeddingAllReduce,
  kGradUnscale,
  kGradNorm,
  kZeroGrad,
  kGradCast,
  // The ten names of imported traces follow in kOpNames (chakra_import.cpp finds them by text).
  kGeneratedNameCount
};
static_assert(kGeneratedNameCount + 10 == std::size(kOpNames));

std::string num(double v) {
  return std::to_string(static_cast<long long>(v));
}

// Adam with mixed precision reads the FP32 master weights, gradients and both moments and
// writes the master weights, the moments and the 16-bit weights: 4x4 + 3x4 + 2 bytes per
// parameter (Megatron's FP32 optimizer state; Rajbhandari et al., ZeRO, arXiv 1910.02054 §3.1
// counts the same 4+4+4 bytes of state).
constexpr double kOptimizerBytesPerParam = 30;

// Parameters of a part of the model on one rank: the experts' apart from the rest.
struct Params {
  double dense = 0;
  double expert = 0;
  Params& operator+=(const Params& o) {
    dense += o.dense;
    expert += o.expert;
    return *this;
  }
};

class Generator {
 public:
  Generator(const ModelSpec& m, const TrainingConfig& c) : m_(m), c_(c) {
    dt_ = compute::dtype_bytes(c.dtype);
    b_ = c.micro_batch;
    s_ = m.seq_len;
    h_ = m.hidden;
    tokens_ = b_ * s_;
    local_tokens_ = c.sequence_parallel ? tokens_ / c.tp : tokens_;
    heads_ = m.heads / c.tp;
    d_ = m.head_dim();
    // The QKV projection is split over the ranks by columns. With fewer KV heads than ranks,
    // Megatron-Core (transformer/attention.py, since NVIDIA/Megatron-LM#2565) keeps that split
    // and all-gathers the projection's output, from which each rank takes its query heads and
    // their shared KV head; the backward reduce-scatters the gradient.
    qkv_cols_ = static_cast<std::uint64_t>(m.heads + 2 * m.kv_heads) * d_ / c.tp;
    if (m.kv_heads < c.tp)
      qkv_gather_bytes_ = static_cast<std::uint64_t>(tokens_) * qkv_cols_ * c.tp * dt_;
    ffn_ = m.ffn_hidden / c.tp;
    gates_ = m.swiglu ? 2 : 1;
    chunks_ = c.schedule == Schedule::Interleaved ? c.virtual_stages : 1;
    layers_per_chunk_ = m.layers / (c.pp * chunks_);
    mb_ = c.micro_batches();
    act_bytes_ = static_cast<std::uint64_t>(tokens_) * h_ * dt_;
    // Scatter/gather between pipeline stages: each tensor-parallel rank sends its 1/t of the
    // activation (Narayanan et al. §4.1); with sequence parallelism it only holds 1/t anyway.
    pp_bytes_ = act_bytes_ / c.tp;
    dag_.ranks.resize(c.world());
  }

  // `replay`: ranks alike (one pipeline stage, one expert block) are replayed from the first of
  // them (replay_rank) instead of built from the model; the DAG is the same either way.
  Dag run(bool replay) {
    std::map<std::pair<int, int>, int> first;  // per (stage, expert block): its first rank
    if (replay) dag_.same_structure_as.resize(dag_.ranks.size());
    for (int r = 0; r < c_.world(); ++r) {
      if (replay) dag_.same_structure_as[r] = static_cast<std::uint32_t>(r);
      if (c_.one_replica && (r / c_.tp) % c_.dp != 0) {
        dag_.ranks[r].simulated = false;
        continue;
      }
      const Coord at = coord(r);
      const auto [it, fresh] = first.try_emplace({at.pp, c_.ep > 1 ? at.dp / c_.ep : 0}, r);
      if (fresh || !replay) {
        build_rank(r);
      } else {
        replay_rank(it->second, r);
        dag_.same_structure_as[r] = static_cast<std::uint32_t>(it->second);
      }
    }
    return std::move(dag_);
  }

 private:
  int rank_of(int tp, int dp, int pp) const { return tp + c_.tp * (dp + c_.dp * pp); }
  struct Coord {
    int tp, dp, pp;
  };
  Coord coord(int r) const { return {r % c_.tp, (r / c_.tp) % c_.dp, r / (c_.tp * c_.dp)}; }

  // Rank `rank` runs what rank `from` of its stage and expert block runs: the same ops and
  // dependencies (the generator reads a rank's place in its stage only to form its groups), on
  // its own groups. A group holds a coordinate constant at its rank's own (a tensor-parallel
  // group its data-parallel index and stage) or runs over it; the constants follow the rank,
  // the rest stays, in order, which forms the very groups build_rank would. Groups and
  // communications are numbered as build_rank numbers them, in the same order.
  void replay_rank(int from, int rank) {
    rank_ = rank;
    std::fill(seq_.begin(), seq_.end(), 0u);
    const Coord a = coord(from), b = coord(rank);
    RankDag& rd = dag_.ranks[rank];
    rd.ops = dag_.ranks[from].ops;
    rd.deps = dag_.ranks[from].deps;
    // Each of the first rank's groups maps to one of this rank's: found once per rank. (Groups
    // added meanwhile are this rank's, never the first rank's.)
    if (group_map_.size() < dag_.groups.size()) group_map_.resize(dag_.groups.size(), kNoGroup);
    std::vector<std::uint32_t> mapped;
    std::vector<int> members;
    for (Op& op : rd.ops) {
      if (op.kind == OpKind::Compute) {
        dag_.hardware_flops += kernel_flops_[op.item];
        continue;
      }
      const Comm was = dag_.comms[op.item];
      std::uint32_t& g = group_map_[was.group];
      if (g == kNoGroup) {
        const std::vector<int>& from_group = dag_.groups[was.group];
        bool same_tp = true, same_dp = true, same_pp = true, same_expert = true;
        for (const int m : from_group) {
          const Coord c = coord(m);
          same_tp = same_tp && c.tp == a.tp;
          same_dp = same_dp && c.dp == a.dp;
          same_pp = same_pp && c.pp == a.pp;
          same_expert = same_expert && c.dp % c_.ep == a.dp % c_.ep;
        }
        // The expert-data-parallel group runs over the data-parallel indices that hold the
        // same experts as the rank's own: it moves with the rank's place in its expert block.
        const int expert_shift =
            same_expert && !same_dp && c_.ep > 1 ? b.dp % c_.ep - a.dp % c_.ep : 0;
        members.clear();
        for (const int m : from_group) {
          const Coord c = coord(m);
          members.push_back(rank_of(same_tp ? b.tp : c.tp, same_dp ? b.dp : c.dp + expert_shift,
                                    same_pp ? b.pp : c.pp));
        }
        mapped.push_back(was.group);
        g = group(members);
      }
      phase_ = op.phase;
      op.item = comm_on(static_cast<Name>(op.name), was.op, was.bytes, g);
    }
    for (const std::uint32_t k : mapped) group_map_[k] = kNoGroup;
    phase_ = Phase::Optimizer;  // where build_rank leaves it
  }

  std::uint32_t group(const std::vector<int>& ranks) {
    // Looked up before it is copied: every collective op asks, few groups are new.
    if (const auto it = groups_.find(ranks); it != groups_.end()) return it->second;
    const auto g = static_cast<std::uint32_t>(dag_.groups.size());
    groups_.emplace(ranks, g);
    dag_.groups.push_back(ranks);
    return g;
  }

  std::uint32_t kernel(const Kernel& k) {
    const KernelKey key{static_cast<std::uint64_t>(k.kind),
                        static_cast<std::uint64_t>(k.dtype),
                        k.batch,
                        k.m,
                        k.n,
                        k.k,
                        k.heads,
                        k.seq,
                        k.head_dim,
                        (k.causal ? 1u : 0u) | (k.backward ? 2u : 0u) |
                            (static_cast<std::uint64_t>(k.memory_impl) << 2),
                        k.bytes};
    const auto [it, fresh] =
        kernels_.try_emplace(key, static_cast<std::uint32_t>(dag_.kernels.size()));
    if (fresh) {
      dag_.kernels.push_back(k);
      kernel_flops_.push_back(compute::flops(k));
    }
    return it->second;
  }

  // --- per-rank emission -----------------------------------------------------------------
  std::uint32_t add(Op op, std::initializer_list<std::int64_t> deps) {
    return add(op, std::span<const std::int64_t>(deps.begin(), deps.size()));
  }
  std::uint32_t add(Op op, std::span<const std::int64_t> deps) {
    RankDag& rd = dag_.ranks[rank_];
    op.deps_begin = static_cast<std::uint32_t>(rd.deps.size());
    for (const std::int64_t d : deps) {
      if (d >= 0) rd.deps.push_back(static_cast<std::uint32_t>(d));
    }
    if (pending_ >= 0 && op.stream == Stream::Compute) {
      rd.deps.push_back(static_cast<std::uint32_t>(pending_));
      pending_ = -1;
    }
    op.deps_end = static_cast<std::uint32_t>(rd.deps.size());
    op.micro_batch = cur_mb_;
    op.layer = cur_layer_;
    rd.ops.push_back(op);
    return static_cast<std::uint32_t>(rd.ops.size() - 1);
  }

  // A compute kernel after `last` (the op whose result it needs); returns the new last.
  std::int64_t compute(Name name, const Kernel& k, std::int64_t last) {
    return compute(name, k, std::span<const std::int64_t>(&last, 1));
  }
  std::int64_t compute(Name name, const Kernel& k, std::span<const std::int64_t> after) {
    Op op;
    op.kind = OpKind::Compute;
    op.stream = Stream::Compute;
    op.phase = phase_;
    op.name = name;
    // A layer's kernels recur in every layer and micro-batch: the last one of each name and
    // phase is kept with its number and FLOPs.
    Memo& memo = memo_[static_cast<std::size_t>(name) * kPhases + static_cast<std::size_t>(phase_)];
    if (!memo.valid || !(memo.kernel == k)) memo = {k, kernel(k), true};
    op.item = memo.id;
    dag_.hardware_flops += kernel_flops_[memo.id];
    return add(op, after);
  }

  std::int64_t gemm(Name name, std::uint64_t m, std::uint64_t n, std::uint64_t k, std::int64_t last,
                    std::uint64_t batch = 1) {
    Kernel g;
    g.kind = KernelKind::Gemm;
    g.dtype = c_.dtype;
    g.batch = batch;
    g.m = m;
    g.n = n;
    g.k = k;
    return compute(name, g, last);
  }

  // Forward GEMM y = x W (x: rows x in, W: in x out) and, in the backward, the input gradient
  // (rows x out times out x in) and the weight gradient (in x rows times rows x out).
  std::int64_t linear(Name name, std::uint64_t rows, std::uint64_t in, std::uint64_t out,
                      std::int64_t last, bool backward, std::uint64_t batch = 1) {
    if (!backward) return gemm(name, rows, out, in, last, batch);
    last = gemm(name, rows, in, out, last, batch);
    return gemm(name, in, out, rows, last, batch);
  }

  std::int64_t memory(Name name, double bytes, std::int64_t last) {
    return memory(name, bytes, std::span<const std::int64_t>(&last, 1));
  }
  std::int64_t memory(Name name, double bytes, std::span<const std::int64_t> after) {
    Kernel k;
    k.kind = KernelKind::MemoryBound;
    k.dtype = c_.dtype;
    k.bytes = static_cast<std::uint64_t>(bytes);
    k.memory_impl = c_.memory_kernels;
    return compute(name, k, after);
  }

  // The communication the current rank's next op `name` on `members` joins: members issue
  // their collectives on a group in the same order, so the n-th on group g of every member is
  // one collective. Point-to-point transfers count forward and backward apart: with two stages
  // (or the interleaved schedule's wrap-around) both directions of a stage pair share the
  // group, and each side interleaves them in its own order.
  std::uint32_t comm(Name name, collectives::Op op, std::uint64_t bytes,
                     const std::vector<int>& members) {
    return comm_on(name, op, bytes, group(members));
  }
  std::uint32_t comm_on(Name name, collectives::Op op, std::uint64_t bytes, std::uint32_t g) {
    const bool p2p = name == kPpSend || name == kPpRecv;
    const std::uint32_t lane = 4 * g + (p2p ? (phase_ == Phase::Forward ? 1 : 2) : 0);
    if (lane >= seq_.size()) {
      seq_.resize(lane + 1, 0);
      lane_comms_.resize(lane + 1);
    }
    std::vector<std::uint32_t>& on_lane = lane_comms_[lane];
    const std::uint32_t n = seq_[lane]++;
    if (n == on_lane.size()) {
      on_lane.push_back(static_cast<std::uint32_t>(dag_.comms.size()));
      dag_.comms.push_back(Comm{op, bytes, g});
    }
    return on_lane[n];
  }

  std::int64_t collective(Name name, Stream stream, collectives::Op op, std::uint64_t bytes,
                          const std::vector<int>& members,
                          std::initializer_list<std::int64_t> deps) {
    Op o;
    o.kind = name == kPpSend ? OpKind::Send : name == kPpRecv ? OpKind::Recv : OpKind::Collective;
    o.stream = stream;
    o.phase = phase_;
    o.name = name;
    o.item = comm(name, op, bytes, members);
    return add(o, deps);
  }

  std::int64_t tp_comm(collectives::Op op, std::int64_t last) {
    if (c_.tp == 1) return last;
    const Name name = op == collectives::Op::AllReduce   ? kTpAllReduce
                      : op == collectives::Op::AllGather ? kTpAllGather
                                                         : kTpReduceScatter;
    return collective(name, Stream::Tp, op, act_bytes_, tp_group_, {last});
  }

  // Forward of the column-parallel input (identity, or all-gather with SP) and of the
  // row-parallel output (all-reduce, or reduce-scatter with SP); the backward swaps them.
  std::int64_t tp_enter(std::int64_t last, bool backward) {
    if (!backward) return c_.sequence_parallel ? tp_comm(collectives::Op::AllGather, last) : last;
    return tp_comm(
        c_.sequence_parallel ? collectives::Op::ReduceScatter : collectives::Op::AllReduce, last);
  }
  std::int64_t tp_leave(std::int64_t last, bool backward) {
    if (!backward) {
      return tp_comm(
          c_.sequence_parallel ? collectives::Op::ReduceScatter : collectives::Op::AllReduce, last);
    }
    return c_.sequence_parallel ? tp_comm(collectives::Op::AllGather, last) : last;
  }

  // Layer norm and the fused bias-dropout-residual add act on this rank's tokens: FP16/BF16
  // in and out, plus a one-byte dropout mask.
  double norm_bytes() const { return 2.0 * local_tokens_ * h_ * dt_; }
  double bda_bytes() const { return local_tokens_ * h_ * (3.0 * dt_ + 1); }

  std::int64_t attention_core(std::int64_t last, bool backward) {
    const std::uint64_t bh = static_cast<std::uint64_t>(b_) * heads_;
    if (c_.attention == AttentionImpl::Flash) {
      Kernel k;
      k.kind = KernelKind::Attention;
      k.dtype = c_.dtype;
      k.batch = b_;
      k.heads = heads_;
      k.seq = s_;
      k.head_dim = d_;
      k.causal = m_.causal;
      k.backward = backward;
      return compute(kFlashAttn, k, last);
    }
    // Unfused (Megatron before FlashAttention): Q K^T, fused scale-mask-softmax, dropout,
    // then the probabilities times V, each a kernel over the s x s scores.
    const double scores = static_cast<double>(bh) * s_ * s_;
    if (!backward) {
      last = gemm(kAttnScores, s_, s_, d_, last, bh);
      last = memory(kSoftmax, scores * 2 * dt_, last);
      last = memory(kAttnDropout, scores * (2.0 * dt_ + 1), last);
      return gemm(kAttnValues, s_, d_, s_, last, bh);
    }
    last = gemm(kAttnValues, s_, s_, d_, last, bh);  // dP = dO V^T
    last = gemm(kAttnValues, s_, d_, s_, last, bh);  // dV = P^T dO
    last = memory(kAttnDropout, scores * (2.0 * dt_ + 1), last);
    last = memory(kSoftmax, scores * 3 * dt_, last);
    last = gemm(kAttnScores, s_, d_, s_, last, bh);  // dQ = dS K
    return gemm(kAttnScores, s_, d_, s_, last, bh);  // dK = dS^T Q
  }

  std::int64_t attention_block(std::int64_t last, bool backward) {
    const std::uint64_t ctx = static_cast<std::uint64_t>(heads_) * d_;
    if (!backward) {
      last = memory(kLayerNorm, norm_bytes(), last);
      last = tp_enter(last, false);
      last = linear(kQkv, tokens_, h_, qkv_cols_, last, false);
      if (qkv_gather_bytes_ > 0) {
        last = collective(kTpAllGather, Stream::Tp, collectives::Op::AllGather, qkv_gather_bytes_,
                          tp_group_, {last});
      }
      last = attention_core(last, false);
      last = linear(kProj, tokens_, ctx, h_, last, false);
      last = tp_leave(last, false);
      return memory(kBiasDropAdd, bda_bytes(), last);
    }
    last = memory(kBiasDropAdd, bda_bytes(), last);
    last = tp_leave(last, true);
    last = linear(kProj, tokens_, ctx, h_, last, true);
    if (c_.recompute == Recompute::Selective && c_.attention == AttentionImpl::Unfused) {
      // Selective recomputation keeps everything but the attention core's s x s tensors,
      // which it recomputes just before they are needed (Korthikanti et al. §5).
      const Phase saved = phase_;
      phase_ = Phase::Recompute;
      last = attention_core(last, false);
      phase_ = saved;
    }
    last = attention_core(last, true);
    if (qkv_gather_bytes_ > 0) {
      last = collective(kTpReduceScatter, Stream::Tp, collectives::Op::ReduceScatter,
                        qkv_gather_bytes_, tp_group_, {last});
    }
    last = linear(kQkv, tokens_, h_, qkv_cols_, last, true);
    last = tp_enter(last, true);
    return memory(kLayerNorm, 1.5 * norm_bytes(), last);
  }

  std::int64_t mlp_block(std::int64_t last, bool backward) {
    const double act = static_cast<double>(tokens_) * ffn_ * dt_ * (gates_ + 1);
    if (!backward) {
      last = memory(kLayerNorm, norm_bytes(), last);
      last = tp_enter(last, false);
      if (m_.moe()) {
        last = moe(last, false);
      } else {
        last = linear(kFc1, tokens_, h_, static_cast<std::uint64_t>(ffn_) * gates_, last, false);
        last = memory(kActivation, act, last);
        last = linear(kFc2, tokens_, ffn_, h_, last, false);
      }
      last = tp_leave(last, false);
      return memory(kBiasDropAdd, bda_bytes(), last);
    }
    last = memory(kBiasDropAdd, bda_bytes(), last);
    last = tp_leave(last, true);
    if (m_.moe()) {
      last = moe(last, true);
    } else {
      last = linear(kFc2, tokens_, ffn_, h_, last, true);
      last = memory(kActivation, 1.5 * act, last);
      last = linear(kFc1, tokens_, h_, static_cast<std::uint64_t>(ffn_) * gates_, last, true);
    }
    last = tp_enter(last, true);
    return memory(kLayerNorm, 1.5 * norm_bytes(), last);
  }

  // MoE FFN: route, send every token to its top-k experts over the expert-parallel group
  // (all-to-all), run the local experts as one batched GEMM each side, send the results back.
  // Tokens are assumed balanced over experts.
  std::int64_t moe(std::int64_t last, bool backward) {
    const int local_experts = m_.experts / c_.ep;
    const std::uint64_t per_expert =
        static_cast<std::uint64_t>(tokens_) * m_.top_k * c_.ep / m_.experts;
    const std::uint64_t a2a = static_cast<std::uint64_t>(tokens_) * m_.top_k * h_ * dt_;
    const double act = static_cast<double>(per_expert) * local_experts * ffn_ * dt_ * (gates_ + 1);
    const auto exchange = [&](std::int64_t l) {
      if (c_.ep == 1) return l;
      return collective(kEpAllToAll, Stream::Ep, collectives::Op::AllToAll, a2a, ep_group_, {l});
    };
    if (!backward) last = linear(kRouter, tokens_, h_, m_.experts, last, false);
    last = exchange(last);
    if (!backward) {
      last = linear(kExpertsFc1, per_expert, h_, static_cast<std::uint64_t>(ffn_) * gates_, last,
                    false, local_experts);
      last = memory(kActivation, act, last);
      last = linear(kExpertsFc2, per_expert, ffn_, h_, last, false, local_experts);
    } else {
      last = linear(kExpertsFc2, per_expert, ffn_, h_, last, true, local_experts);
      last = memory(kActivation, 1.5 * act, last);
      last = linear(kExpertsFc1, per_expert, h_, static_cast<std::uint64_t>(ffn_) * gates_, last,
                    true, local_experts);
    }
    last = exchange(last);
    if (backward) last = linear(kRouter, tokens_, h_, m_.experts, last, true);
    return last;
  }

  std::int64_t layer_forward(int layer, std::int64_t last) {
    cur_layer_ = layer;
    last = zero3_gather(last, layer_rank_params());
    last = attention_block(last, false);
    return mlp_block(last, false);
  }

  std::int64_t layer_backward(int layer, std::int64_t last) {
    cur_layer_ = layer;
    last = zero3_gather(last, layer_rank_params());
    if (c_.recompute == Recompute::Full) {
      // Full recomputation keeps only the layer's input and reruns its forward first.
      phase_ = Phase::Recompute;
      last = attention_block(last, false);
      last = mlp_block(last, false);
      phase_ = Phase::Backward;
    }
    last = mlp_block(last, true);
    last = attention_block(last, true);
    zero3_reduce(last, layer_rank_params());
    return last;
  }

  // ZeRO-3: the parameters of a layer (or of the embedding) are all-gathered before its
  // forward and backward; the gather runs on the data-parallel stream once the previous layer
  // has started, so it overlaps that layer's compute.
  // The next compute op waits for the gathered parameters as well as for `last`.
  // The experts' gather follows the rest's on the same stream, so waiting for it waits for both.
  std::int64_t zero3_gather(std::int64_t last, Params params) {
    if (c_.zero != 3) return last;
    const std::int64_t after = prev_layer_start_;
    for (const auto& [p, g] : {std::pair{params.dense, &dp_group_}, {params.expert, &edp_group_}}) {
      if (g->size() == 1 || p == 0) continue;
      const std::uint64_t bytes = static_cast<std::uint64_t>(p * dt_);
      pending_ = collective(kDpAllGather, Stream::Dp, collectives::Op::AllGather,
                            bytes / g->size() * g->size(), *g, {after});
      prev_layer_start_ = static_cast<std::int64_t>(dag_.ranks[rank_].ops.size());
    }
    return last;
  }

  // ZeRO-3: each backward reduce-scatters the gradients of what it went through.
  void zero3_reduce(std::int64_t last, Params params) {
    if (c_.zero != 3) return;
    for (const auto& [p, g] : {std::pair{params.dense, &dp_group_}, {params.expert, &edp_group_}}) {
      if (g->size() == 1 || p == 0) continue;
      collective(kDpReduceScatter, Stream::Dp, collectives::Op::ReduceScatter,
                 grad_shard_bytes(p, g->size()), *g, {last});
    }
  }

  // The embedding's parameters on this rank: the first stage holds the word and position
  // embeddings, the last the word embedding it ties to the logits (one copy with pp = 1).
  double word_rank_params() const { return static_cast<double>(m_.vocab) * h_ / c_.tp; }

  // A layer's parameters on this rank: its local experts' apart, since Megatron-Core reduces
  // and shards those over the expert-data-parallel group (the dp / ep ranks that hold the same
  // experts), the rest over the whole data-parallel group.
  Params layer_rank_params() const {
    const double all = layer_params(m_) / c_.tp;
    if (!m_.moe()) return {all, 0};
    const double expert = expert_params(m_) / c_.tp;
    const double local = expert * m_.experts / c_.ep;
    return {all - expert * m_.experts, local};
  }

  // Bytes of `params` gradients reduced over `group`: reduce-scatter sizes divide evenly.
  std::uint64_t grad_shard_bytes(double params, std::size_t group) const {
    const std::uint64_t bytes = static_cast<std::uint64_t>(params * c_.grad_bytes);
    return bytes / group * group;
  }

  // --- one rank ------------------------------------------------------------------------------
  struct Step {
    bool forward;
    int mb;
    int chunk;
  };

  // Megatron's interleaved order (schedules.py, forward_backward_pipelining_with_interleaving):
  // micro-batches go through the chunks in groups of p.
  int interleaved_chunk(int k, bool forward) const {
    const int c = (k / c_.pp) % chunks_;
    return forward ? c : chunks_ - 1 - c;
  }
  int interleaved_mb(int k) const { return (k / (c_.pp * chunks_)) * c_.pp + k % c_.pp; }

  std::vector<Step> schedule(int stage) const {
    std::vector<Step> out;
    if (c_.schedule == Schedule::GPipe) {
      for (int i = 0; i < mb_; ++i) out.push_back({true, i, 0});
      for (int i = 0; i < mb_; ++i) out.push_back({false, i, 0});
      return out;
    }
    const int total = mb_ * chunks_;
    const int warmup = c_.schedule == Schedule::OneFOneB
                           ? std::min(c_.pp - stage - 1, mb_)
                           : std::min((c_.pp - stage - 1) * 2 + (chunks_ - 1) * c_.pp, total);
    int f = 0, b = 0;
    const auto fwd = [&] {
      out.push_back({true, chunks_ == 1 ? f : interleaved_mb(f),
                     chunks_ == 1 ? 0 : interleaved_chunk(f, true)});
      ++f;
    };
    const auto bwd = [&] {
      out.push_back({false, chunks_ == 1 ? b : interleaved_mb(b),
                     chunks_ == 1 ? 0 : interleaved_chunk(b, false)});
      ++b;
    };
    for (int i = 0; i < warmup; ++i) fwd();
    while (f < total) {
      fwd();
      bwd();
    }
    while (b < total) bwd();
    return out;
  }

  void build_rank(int rank) {
    rank_ = rank;
    std::fill(seq_.begin(), seq_.end(), 0u);  // the rank's collective counters
    const int tpr = rank % c_.tp;
    const int dpr = (rank / c_.tp) % c_.dp;
    const int stage = rank / (c_.tp * c_.dp);
    tp_group_.clear();
    for (int t = 0; t < c_.tp; ++t) tp_group_.push_back(rank_of(t, dpr, stage));
    dp_group_.clear();
    for (int d = 0; d < c_.dp; ++d) dp_group_.push_back(rank_of(tpr, d, stage));
    ep_group_.clear();
    const int ep_first = dpr / c_.ep * c_.ep;
    for (int d = ep_first; d < ep_first + c_.ep; ++d) ep_group_.push_back(rank_of(tpr, d, stage));
    edp_group_.clear();
    for (int d = dpr % c_.ep; d < c_.dp; d += c_.ep) edp_group_.push_back(rank_of(tpr, d, stage));
    prev_layer_start_ = -1;

    // Per chunk: the op that ends the last micro-batch's backward of each layer, in order of
    // completion, for the gradient buckets.
    std::vector<std::vector<std::pair<std::int64_t, Params>>> grads_ready(chunks_);
    std::int64_t last = -1;
    for (const Step& st : schedule(stage)) {
      const int model_chunk = st.chunk * c_.pp + stage;
      const bool first = model_chunk == 0;
      const bool final = model_chunk == c_.pp * chunks_ - 1;
      const int prev_rank = rank_of(tpr, dpr, (stage + c_.pp - 1) % c_.pp);
      const int next_rank = rank_of(tpr, dpr, (stage + 1) % c_.pp);
      cur_mb_ = st.mb;
      cur_layer_ = -1;
      const int layer0 = model_chunk * layers_per_chunk_;
      // Neighbouring chunks on other ranks; one stage holding several chunks passes activations
      // between them in memory.
      const bool has_prev = !first && c_.pp > 1;
      const bool has_next = !final && c_.pp > 1;
      if (st.forward) {
        phase_ = Phase::Forward;
        if (has_prev) {
          last = collective(kPpRecv, Stream::PpRecv, collectives::Op::SendRecv, pp_bytes_,
                            {prev_rank, rank}, {});
        }
        if (first) {
          last = zero3_gather(last, {embedding_params(m_, c_.tp), 0});
          last = embedding(last, false);
        }
        for (int l = 0; l < layers_per_chunk_; ++l) last = layer_forward(layer0 + l, last);
        if (final) {
          last = zero3_gather(last, {word_rank_params(), 0});
          last = logits(last, false);
        }
        if (has_next) {
          collective(kPpSend, Stream::PpSend, collectives::Op::SendRecv, pp_bytes_,
                     {rank, next_rank}, {last});
        }
      } else {
        phase_ = Phase::Backward;
        if (has_next) {
          last = collective(kPpRecv, Stream::PpRecv, collectives::Op::SendRecv, pp_bytes_,
                            {next_rank, rank}, {});
        }
        if (final) {
          last = zero3_gather(last, {word_rank_params(), 0});
          last = logits(last, true);
          // With pp = 1 the tied gradient is reduced once, with the embedding's, below.
          if (!first) zero3_reduce(last, {word_rank_params(), 0});
        }
        for (int l = layers_per_chunk_ - 1; l >= 0; --l) {
          last = layer_backward(layer0 + l, last);
          if (st.mb == mb_ - 1) grads_ready[st.chunk].push_back({last, layer_rank_params()});
        }
        cur_layer_ = -1;
        if (first) {
          last = zero3_gather(last, {embedding_params(m_, c_.tp), 0});
          last = embedding(last, true);
          zero3_reduce(last, {embedding_params(m_, c_.tp), 0});
        }
        if (has_prev) {
          collective(kPpSend, Stream::PpSend, collectives::Op::SendRecv, pp_bytes_,
                     {rank, prev_rank}, {last});
        }
        if (st.mb == mb_ - 1 && (first || final)) {
          // The last stage holds the word embedding only (no position table).
          grads_ready[st.chunk].push_back(
              {last, {first ? embedding_params(m_, c_.tp) : word_rank_params(), 0}});
        }
      }
    }
    cur_mb_ = -1;
    cur_layer_ = -1;
    finish(grads_ready, last, stage, tpr, dpr);
  }

  std::int64_t embedding(std::int64_t last, bool backward) {
    // Vocabulary-parallel lookup: every rank gathers its rows, the partial results are
    // all-reduced (reduce-scattered with SP) across the tensor-parallel group.
    if (!backward) {
      last = memory(kEmbedding, 2.0 * tokens_ * h_ * dt_, last);
      return tp_leave(last, false);
    }
    last = tp_leave(last, true);
    return memory(kEmbedding, 2.0 * tokens_ * h_ * dt_, last);
  }

  std::int64_t logits(std::int64_t last, bool backward) {
    const std::uint64_t vocab = static_cast<std::uint64_t>(m_.vocab) / c_.tp;
    // Cross-entropy over the vocabulary shard in FP32: logits in, softmax, gradient out.
    const double ce = static_cast<double>(tokens_) * vocab * (dt_ + 4.0 + dt_);
    if (!backward) {
      last = memory(kLayerNorm, norm_bytes(), last);
      last = tp_enter(last, false);
      last = linear(kLogits, tokens_, h_, vocab, last, false);
      return memory(kCrossEntropy, ce, last);
    }
    last = linear(kLogits, tokens_, h_, vocab, last, true);
    last = tp_enter(last, true);
    return memory(kLayerNorm, 1.5 * norm_bytes(), last);
  }

  void finish(const std::vector<std::vector<std::pair<std::int64_t, Params>>>& grads_ready,
              std::int64_t last, int stage, int tpr, int dpr) {
    phase_ = Phase::Optimizer;
    std::vector<std::int64_t> waits{last};
    Params stage_params;
    for (const auto& chunk : grads_ready) {
      for (const auto& g : chunk) stage_params += g.second;
    }
    if (c_.zero < 3) {
      // Buckets fill in the order gradients appear, the experts' in buckets of their own
      // (Megatron-Core's DDP keeps them in a buffer of their own); each is reduced once its
      // last gradient exists (or after the whole backward without overlap).
      const collectives::Op op =
          c_.zero == 0 ? collectives::Op::AllReduce : collectives::Op::ReduceScatter;
      const Name name = c_.zero == 0 ? kDpAllReduce : kDpReduceScatter;
      for (int ch = chunks_ - 1; ch >= 0; --ch) {
        Params bucket;
        for (std::size_t i = 0; i < grads_ready[ch].size(); ++i) {
          bucket += grads_ready[ch][i].second;
          const bool end = i + 1 == grads_ready[ch].size();
          const std::int64_t after = c_.overlap_grad_reduce ? grads_ready[ch][i].first : last;
          for (auto [p, g] :
               {std::pair{&bucket.dense, &dp_group_}, {&bucket.expert, &edp_group_}}) {
            if (*p == 0 || (*p < static_cast<double>(c_.bucket()) && !end)) continue;
            if (g->size() > 1) {
              waits.push_back(
                  collective(name, Stream::Dp, op, grad_shard_bytes(*p, g->size()), *g, {after}));
            }
            *p = 0;
          }
        }
      }
    }
    // Tied embeddings: the first and the last stage each hold the word embedding; their
    // gradients are summed before the optimizer (Megatron's embedding group), after the
    // data-parallel buckets (Megatron-Core's finalize_model_grads: finish_grad_sync first), so
    // that on the one stream the buckets do not queue behind it.
    const bool holds_embedding = stage == 0 || stage == c_.pp - 1;
    if (c_.pp > 1 && holds_embedding) {
      // With ZeRO-3 each rank holds its shard of the gradient by now (reduce-scattered after
      // every backward): the two stages sum the shards.
      const double shards = c_.zero == 3 ? c_.dp : 1;
      const std::uint64_t bytes = static_cast<std::uint64_t>(static_cast<double>(m_.vocab) * h_ /
                                                             c_.tp * c_.grad_bytes / shards);
      waits.push_back(collective(kEmbeddingAllReduce, Stream::Dp, collectives::Op::AllReduce, bytes,
                                 {rank_of(tpr, dpr, 0), rank_of(tpr, dpr, c_.pp - 1)}, {last}));
    }
    // The optimizer step on this rank's gradients (its shard of them with ZeRO), once every
    // gradient is there. Megatron's step: with FP16, unscale the loss-scaled gradients and
    // check them for inf/NaN (a read and a write of each); take their global norm for clipping
    // (--clip-grad defaults to 1.0: a read); Adam; then zero the gradient buffer for the next
    // iteration (a write of the whole buffer, sharded only from ZeRO-2 on).
    // ZeRO shards the rest over the data-parallel group, the experts over theirs.
    const double sharded = stage_params.dense / static_cast<double>(dp_group_.size()) +
                           stage_params.expert / static_cast<double>(edp_group_.size());
    const double whole = stage_params.dense + stage_params.expert;
    const double shard = c_.zero >= 1 ? sharded : whole;
    const double buffer = c_.zero >= 2 ? shard : whole;
    std::int64_t opt = -1;
    // 16-bit gradients are cast to FP32 main gradients first, a read of the 16-bit and a write
    // of the FP32 copy (Megatron's _copy_model_grads_to_main_grads: main_grad = grad.float();
    // with FP32 gradients .float() returns the same tensor and nothing moves). The unscale and
    // the norm then read the FP32 copies.
    double main_grad_bytes = c_.grad_bytes;
    if (c_.grad_bytes < 4) {
      opt = memory(kGradCast, (c_.grad_bytes + 4.0) * shard, waits);
      waits = {opt};
      main_grad_bytes = 4;
    }
    if (c_.dtype == compute::Dtype::FP16) {
      opt = memory(kGradUnscale, 2.0 * main_grad_bytes * shard, waits);
      waits = {opt};
    }
    opt = memory(kGradNorm, 1.0 * main_grad_bytes * shard, waits);
    opt = memory(kOptimizer, kOptimizerBytesPerParam * shard, opt);
    memory(kZeroGrad, 1.0 * c_.grad_bytes * buffer, opt);
    if (c_.zero == 1 || c_.zero == 2) {
      // The distributed optimizer all-gathers the updated 16-bit parameters.
      for (const auto& [p, g] :
           {std::pair{stage_params.dense, &dp_group_}, {stage_params.expert, &edp_group_}}) {
        if (g->size() == 1 || p == 0) continue;
        const std::uint64_t bytes = static_cast<std::uint64_t>(p * dt_) / g->size() * g->size();
        collective(kDpAllGather, Stream::Dp, collectives::Op::AllGather, bytes, *g, {opt});
      }
    }
  }

  const ModelSpec& m_;
  const TrainingConfig& c_;
  Dag dag_;
  std::map<std::vector<int>, std::uint32_t> groups_;
  using KernelKey = std::array<std::uint64_t, 11>;
  struct KernelKeyHash {
    std::size_t operator()(const KernelKey& k) const {
      return boost::hash_range(k.begin(), k.end());
    }
  };
  std::unordered_map<KernelKey, std::uint32_t, KernelKeyHash> kernels_;
  // Per lane (a group's collectives, or one direction of its transfers): its communications
  // in order, the n-th of every member's being one.
  std::vector<std::vector<std::uint32_t>> lane_comms_;
  std::vector<std::uint32_t> seq_;  // the current rank's collectives so far, per lane
  static constexpr std::uint32_t kNoGroup = ~0u;
  std::vector<std::uint32_t> group_map_;  // replay_rank: the first rank's group -> this rank's
  std::vector<double> kernel_flops_;      // per Dag::kernels entry: compute::flops
  struct Memo {
    Kernel kernel;
    std::uint32_t id = 0;
    bool valid = false;
  };
  static constexpr std::size_t kPhases = static_cast<std::size_t>(Phase::Optimizer) + 1;
  std::vector<Memo> memo_ = std::vector<Memo>(static_cast<std::size_t>(kOpNameCount) * kPhases);
  int dt_ = 2, b_ = 1, s_ = 1, h_ = 1, tokens_ = 1, local_tokens_ = 1, heads_ = 1, d_ = 1, ffn_ = 1,
      gates_ = 1, chunks_ = 1, layers_per_chunk_ = 1, mb_ = 1;
  std::uint64_t act_bytes_ = 0, pp_bytes_ = 0;
  std::uint64_t qkv_cols_ = 1;          // this rank's columns of the QKV projection
  std::uint64_t qkv_gather_bytes_ = 0;  // its gathered output, when KV heads < tp; else 0
  int rank_ = 0;
  std::int32_t cur_mb_ = -1, cur_layer_ = -1;
  Phase phase_ = Phase::Forward;
  std::vector<int> tp_group_, dp_group_, ep_group_;
  std::vector<int> edp_group_;  // expert-data-parallel: the dp / ep ranks with this rank's experts
  std::int64_t prev_layer_start_ = -1;
  std::int64_t pending_ = -1;  // a dependency for the next compute op
};

}  // namespace

void validate(const TrainingConfig& c, const ModelSpec& m) {
  const auto need = [](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(what);
  };
  need(c.tp >= 1 && c.pp >= 1 && c.dp >= 1 && c.ep >= 1, "tp, pp, dp and ep must be at least 1");
  need(m.heads % c.tp == 0, "tp (" + num(c.tp) + ") must divide the heads (" + num(m.heads) + ")");
  // Megatron-Core (transformer/transformer_config.py): the KV heads are a multiple or a divisor
  // of tp, and the QKV projection's columns split evenly over the ranks (its divide()).
  need(m.kv_heads % c.tp == 0 || c.tp % m.kv_heads == 0,
       "kv_heads (" + num(m.kv_heads) + ") must be a multiple or a divisor of tp (" + num(c.tp) +
           ")");
  const long long qkv_cols = static_cast<long long>(m.heads + 2 * m.kv_heads) * m.head_dim();
  need(qkv_cols % c.tp == 0, "tp (" + num(c.tp) + ") must divide the QKV projection's " +
                                 num(qkv_cols) + " columns ((heads + 2 x kv_heads) x head_dim)");
  need(m.ffn_hidden % c.tp == 0,
       "tp (" + num(c.tp) + ") must divide ffn_hidden (" + num(m.ffn_hidden) + ")");
  need(m.vocab % c.tp == 0, "tp (" + num(c.tp) + ") must divide the vocabulary (" + num(m.vocab) +
                                "; pad it as Megatron does)");
  const int chunks = c.schedule == Schedule::Interleaved ? c.virtual_stages : 1;
  need(chunks >= 1, "virtual_stages must be at least 1");
  need(c.schedule == Schedule::Interleaved || c.virtual_stages == 1,
       "virtual_stages > 1 needs the interleaved schedule");
  need(m.layers % (c.pp * chunks) == 0, "pp x virtual_stages (" + num(c.pp * chunks) +
                                            ") must divide the layers (" + num(m.layers) + ")");
  need(c.micro_batch >= 1, "micro_batch must be at least 1");
  need(c.global_batch % (c.micro_batch * c.dp) == 0,
       "global_batch (" + num(c.global_batch) + ") must be a multiple of micro_batch x dp (" +
           num(c.micro_batch) + " x " + num(c.dp) + ")");
  need(c.micro_batches() >= 1, "global_batch must hold at least one micro-batch per replica");
  if (c.schedule == Schedule::Interleaved) {
    // Megatron-LM refuses it on one stage (megatron/training/arguments.py: "pipeline-model-
    // parallel size should be greater than 1"); here one stage's chunks would each hold the
    // embedding.
    need(c.pp > 1, "the interleaved schedule needs pp > 1");
    // Megatron's interleaved schedule needs whole groups of p micro-batches.
    need(c.micro_batches() % c.pp == 0, "the interleaved schedule needs micro-batches (" +
                                            num(c.micro_batches()) + ") divisible by pp (" +
                                            num(c.pp) + ")");
  }
  need(!c.sequence_parallel || c.tp > 1, "sequence_parallel needs tp > 1");
  need(!c.sequence_parallel || (static_cast<long long>(c.micro_batch) * m.seq_len) % c.tp == 0,
       "sequence_parallel needs tp to divide micro_batch x seq_len");
  need(c.zero >= 0 && c.zero <= 3, "zero must be 0, 1, 2 or 3");
  need(c.grad_bytes == 2 || c.grad_bytes == 4, "grad_bytes must be 2 or 4");
  if (m.moe()) {
    need(c.dp % c.ep == 0, "ep (" + num(c.ep) + ") must divide dp (" + num(c.dp) + ")");
    need(m.experts % c.ep == 0,
         "ep (" + num(c.ep) + ") must divide the experts (" + num(m.experts) + ")");
  } else {
    need(c.ep == 1, "ep > 1 needs a model with experts");
  }
}

Dag build_training(const ModelSpec& m, const TrainingConfig& c) {
  validate(m);
  validate(c, m);
  Dag dag = Generator(m, c).run(true);
  dag.model_flops = model_flops(m, c);
  return dag;
}

Dag build_training_each_rank(const ModelSpec& m, const TrainingConfig& c) {
  validate(m);
  validate(c, m);
  Dag dag = Generator(m, c).run(false);
  dag.model_flops = model_flops(m, c);
  return dag;
}

double model_flops(const ModelSpec& m, const TrainingConfig& c) {
  // Multiply-adds per token of one forward pass, times 2 FLOPs, times 3 for forward and
  // backward (Megatron's num_floating_point_operations; attention counted without the causal
  // saving, as Narayanan et al. eq. 3 and Korthikanti et al. eq. 7 do).
  const double h = m.hidden, s = m.seq_len, d = m.head_dim();
  const double qkv = h * (m.heads + 2.0 * m.kv_heads) * d;
  const double proj = m.heads * d * h;
  const double attention = 2.0 * s * m.heads * d;
  const double ffn = h * m.ffn_hidden * (m.swiglu ? 3.0 : 2.0) * m.top_k;
  const double router = m.moe() ? h * m.experts : 0.0;
  const double per_token = m.layers * (qkv + proj + attention + ffn + router) + h * m.vocab;
  return 3.0 * 2.0 * per_token * s * static_cast<double>(c.global_batch);
}

MemoryEstimate estimate_memory(const ModelSpec& m, const TrainingConfig& c) {
  MemoryEstimate e;
  const int chunks = c.schedule == Schedule::Interleaved ? c.virtual_stages : 1;
  const double layers = static_cast<double>(m.layers) / c.pp;
  // A rank's local experts are sharded over the expert-data-parallel group (dp / ep ranks), the
  // rest over the data-parallel group.
  const double expert = m.moe() ? expert_params(m) * m.experts : 0.0;
  const double local_experts = layers * expert / c.tp / c.ep;
  // The first stage holds the word and position embeddings besides its layers.
  const double dense = layers * (layer_params(m) - expert) / c.tp + embedding_params(m, c.tp);
  const double edp = static_cast<double>(c.dp) / c.ep;
  const auto stored = [&](double bytes_per_param, int zero_from) {
    return bytes_per_param *
           (c.zero >= zero_from ? dense / c.dp + local_experts / edp : dense + local_experts);
  };
  e.weights = stored(compute::dtype_bytes(c.dtype), 3);
  e.gradients = stored(c.grad_bytes, 2);
  // FP32 master weights and Adam's two moments (ZeRO §3.1: 12 bytes per parameter).
  e.optimizer = stored(12.0, 1);
  // Activations per layer, Korthikanti et al. §4 (16-bit activations): s b h (34 + 5 a s / h)
  // without parallelism; tensor parallelism divides all but 10 s b h of it by t, sequence
  // parallelism the rest too; selective recomputation (or a fused attention that never
  // stores the s x s scores) drops the 5 a s / h term; full recomputation keeps the 2 s b h
  // layer input only.
  const double sbh = static_cast<double>(m.seq_len) * c.micro_batch * m.hidden;
  const double scores = 5.0 * m.heads * m.seq_len / static_cast<double>(m.hidden);
  const bool no_scores = c.recompute != Recompute::None || c.attention == AttentionImpl::Flash;
  const double t = c.tp;
  double layer_act;
  if (c.recompute == Recompute::Full) {
    layer_act = 2.0 * sbh / (c.sequence_parallel ? t : 1.0);
  } else if (c.sequence_parallel) {
    layer_act = sbh / t * (34.0 + (no_scores ? 0.0 : scores));
  } else {
    layer_act = sbh * (10.0 + 24.0 / t + (no_scores ? 0.0 : scores / t));
  }
  // Micro-batches in flight on the first stage: GPipe keeps all of them; 1F1B keeps p, which
  // is L layers' worth in total. The interleaved schedule's first stage runs (p - 1) x 2 +
  // (v - 1) x p warm-up forwards of a chunk (Megatron's schedules.py), so p v + p - 1 chunks
  // of L / (p v) layers are in flight, L (1 + (p - 1) / (p v)) (Korthikanti §4.2.3, their m
  // being the v chunks), or all of the m v chunks when there are fewer.
  const int mb = c.micro_batches();
  double in_flight_layers;
  if (c.schedule == Schedule::GPipe) {
    in_flight_layers = layers * mb;
  } else if (chunks > 1) {
    const double in_flight_chunks = std::min(c.pp * chunks + c.pp - 1, mb * chunks);
    in_flight_layers = layers / chunks * in_flight_chunks;
  } else {
    in_flight_layers = layers * std::min(c.pp, mb);
  }
  e.activations = layer_act * in_flight_layers;
  return e;
}

}  // namespace fabricsim::workload
