#pragma once
// Megatron-style training of a transformer, one iteration: for every GPU rank, the list of
// operations it runs (compute kernels and communication) with their dependencies. Ranks are
// numbered as Megatron's default order does: tensor-parallel fastest, then data-parallel,
// then pipeline (rank = tp + TP * (dp + DP * pp)).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/call.hpp"
#include "compute/kernel.hpp"
#include "workload/model.hpp"

namespace fabricsim::workload {

enum class Schedule : std::uint8_t { GPipe, OneFOneB, Interleaved };
enum class Recompute : std::uint8_t { None, Selective, Full };
enum class AttentionImpl : std::uint8_t { Unfused, Flash };

struct TrainingConfig {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int ep = 1;  // expert parallelism, a divisor of dp (MoE models only)
  bool sequence_parallel = false;
  Schedule schedule = Schedule::OneFOneB;
  int virtual_stages = 1;  // model chunks per pipeline rank (Interleaved only)
  int micro_batch = 1;
  int global_batch = 1;
  Recompute recompute = Recompute::None;
  // 0: plain data parallelism (gradient all-reduce); 1: optimizer state sharded (gradient
  // reduce-scatter + parameter all-gather, Megatron's distributed optimizer); 2: gradients
  // sharded too (same traffic, less memory); 3: parameters sharded (all-gathered before every
  // layer's forward and backward, gradients reduce-scattered after its backward).
  int zero = 0;
  AttentionImpl attention = AttentionImpl::Unfused;
  // How its memory-bound kernels (norms, softmax, element-wise, optimizer) are written.
  compute::MemoryImpl memory_kernels = compute::MemoryImpl::Tuned;
  compute::Dtype dtype = compute::Dtype::BF16;
  // Gradients are reduced in FP32: Megatron accumulates into FP32 main_grad buffers
  // (--accumulate-allreduce-grads-in-fp32, required with BF16).
  int grad_bytes = 4;
  // Gradient buckets of this many parameters, reduced as soon as the last micro-batch's
  // backward has produced them (overlapped with the rest of the backward). 0: Megatron-Core's
  // default, max(40M, 1M x dp) (DistributedDataParallelConfig.bucket_size).
  std::uint64_t bucket_params = 0;
  bool overlap_grad_reduce = true;
  // Build and run data-parallel replica 0 only. Communications are timed alone (comm_cost.hpp),
  // so every replica runs the same timeline and the others add nothing but cost; their ranks
  // stay in the DAG with no operations.
  bool one_replica = true;

  int world() const { return tp * pp * dp; }
  std::uint64_t bucket() const {
    return bucket_params ? bucket_params : std::max<std::uint64_t>(40'000'000, 1'000'000ull * dp);
  }
  int micro_batches() const { return global_batch / (micro_batch * dp); }
};

// Checks the configuration against the model (divisibility, ranges); throws
// std::invalid_argument with the numbers.
void validate(const TrainingConfig& c, const ModelSpec& m);

// Where an operation runs. Compute kernels run one at a time on the compute stream; each kind of
// communication has its own stream, on which operations run in list order. Imported traces use
// Cpu (host-side ops, one at a time) and Comm (every communication of a rank, one at a time).
enum class Stream : std::uint8_t { Compute, Tp, PpSend, PpRecv, Dp, Ep, Cpu, Comm, Count };

enum class OpKind : std::uint8_t { Compute, Collective, Send, Recv };

// What a compute operation belongs to, for the breakdown and the trace.
enum class Phase : std::uint8_t { Forward, Backward, Recompute, Optimizer };

struct Op {
  OpKind kind = OpKind::Compute;
  Stream stream = Stream::Compute;
  Phase phase = Phase::Forward;
  std::uint8_t name = 0;   // index into kOpNames
  std::uint32_t item = 0;  // Compute: kernel index (Dag::kernels); else comm index (Dag::comms)
  std::uint32_t deps_begin = 0;  // deps of this op: RankDag::deps[deps_begin, deps_end)
  std::uint32_t deps_end = 0;
  std::int32_t micro_batch = -1;  // -1: not per micro-batch (optimizer, gradient reduction)
  std::int32_t layer = -1;
  bool operator==(const Op&) const = default;
};

// Names operations show in the trace.
extern const char* const kOpNames[];
extern const int kOpNameCount;

struct RankDag {
  bool simulated = true;  // false: a replica left out (TrainingConfig::one_replica)
  std::vector<Op> ops;
  std::vector<std::uint32_t> deps;  // indices into ops, always of earlier ops
  // Dag::ready_order: per op, the key by which ready ops are taken, lowest first (an imported
  // trace's node ids); empty: the op's index.
  std::vector<std::uint64_t> issue_key;
  bool operator==(const RankDag&) const = default;
};

// One communication: a collective over `group`, or a point-to-point transfer from group[0] to
// group[1]. Every rank taking part has an op naming it; a collective starts when all of them
// are ready.
struct Comm {
  collectives::Op op = collectives::Op::AllReduce;
  std::uint64_t bytes = 0;  // as Call::bytes (nccl-tests' size)
  std::uint32_t group = 0;  // index into Dag::groups
  bool operator==(const Comm&) const = default;
};

struct Dag {
  std::vector<compute::Kernel> kernels;  // distinct kernel shapes
  std::vector<Comm> comms;
  std::vector<std::vector<int>> groups;  // rank lists, deduplicated
  std::vector<RankDag> ranks;
  // FLOPs of one iteration over all ranks: the model's (no recomputation) and the hardware's
  // (what the kernels execute, recomputation included).
  double model_flops = 0;
  double hardware_flops = 0;
  // How a free stream picks its next op: false, in list order (as a CUDA stream runs what was
  // issued to it); true, the op with the lowest RankDag::issue_key whose dependencies are done
  // (ASTRA-sim's rule for Chakra traces, chakra_import.hpp).
  bool ready_order = false;
  // Per rank (empty: not known), a rank at or before it whose ops match its own in kind,
  // stream, dependencies and kernel (they differ at most in the communications they join): the
  // rank build_training replayed it from. Executors share what they derive from the structure.
  std::vector<std::uint32_t> same_structure_as;
};

// Throws std::invalid_argument when the model or the configuration is inconsistent.
Dag build_training(const ModelSpec& m, const TrainingConfig& c);
// The same DAG with every rank built from the model: build_training builds the first rank of
// each pipeline stage (and expert block) so and replays the others from it. For the tests that
// check the two agree.
Dag build_training_each_rank(const ModelSpec& m, const TrainingConfig& c);

// Model FLOPs of one iteration (no recomputation), Megatron's count: what MFU divides by.
double model_flops(const ModelSpec& m, const TrainingConfig& c);

// Per-GPU memory in bytes (of the rank holding the most: the first pipeline stage).
struct MemoryEstimate {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  double total() const { return weights + gradients + optimizer + activations; }
};
MemoryEstimate estimate_memory(const ModelSpec& m, const TrainingConfig& c);

}  // namespace fabricsim::workload
