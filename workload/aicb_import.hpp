#pragma once
// Importer for the workload files that Alibaba's AICB writes and SimAI's astra-sim frontend
// reads: one training iteration as a list of layers, each with its compute times and the
// collectives it issues. The result is the same per-rank DAG as the Megatron generator's
// (training.hpp), so the executor, the network costs and the reports work unchanged.
//
// The format, as established from the sources (aliyun/SimAI: astra-sim-alibabacloud/astra-sim/
// workload/Workload.cc initialize_workload and iterate_*, workload/Layer.cc, system/Common.hh,
// system/MockNcclGroup.cc, network_frontend/ns3/AstraSimNetwork.cc; aliyun/aicb:
// workload_generator/AIOB_simAI_workload_generator.py SIMAI_workload.dump_file, utils/utils.py
// extract_averages; example files example/microAllReduce.txt, workload_gpt7b_64g.txt,
// workload_analytical.txt):
//
// - Line 1, the header: whitespace-separated tokens. The first is the parallelism strategy
//   (DATA, HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DLRM,
//   HYBRID_DLRM_ENHANCED, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED,
//   MICRO, DISTRIBUTED_INFERENCE). AICB writes "HYBRID_TRANSFORMER_FWD_IN_BCKWD
//   model_parallel_NPU_group: T ep: E pp: P vpp: V ga: G all_gpus: N checkpoints: 0
//   checkpoint_initiates: 0 pp_comm: B" (older files stop before vpp/pp_comm; B may be written
//   as a decimal, "16777216.0"). SimAI reads these keys only for the two HYBRID_TRANSFORMER
//   strategies and accepts "pp_comm" with or without the colon. AICB's multi-all-reduce micro
//   test spells ep "expert_parallel_npu_group:" (SimAI ignores that key).
// - Line 2: the number of layer lines that follow.
// - Each layer line, tab-separated by AICB (SimAI reads whitespace-separated tokens): name,
//   a dependency field (AICB writes -1; SimAI reads it and only prints it), forward compute
//   time, forward comm type, forward comm size, input-gradient compute time, comm type, size,
//   weight-gradient compute time, comm type, size, and a last "update" time (AICB's
//   process_time, 100 by default, 1 in micro tests). HYBRID_CUSTOMIZED adds a 13th token.
//   The format has no comments.
// - Times are integers read as SimAI ticks: CLOCK_PERIOD is 1 and the ns-3 frontend schedules
//   ticks as NanoSeconds, so times are nanoseconds (AICB's AIOB turns its measured
//   microseconds into them with x1000). Sizes are bytes.
// - The last column is not a compute step: SimAI waits that long after each of the layer's
//   collectives finishes (forward, input-gradient and weight-gradient alike) before it counts
//   the collective done.
// - Comm types: ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, optionally suffixed _EP or
//   _DP_EP; NONE for no collective. Without a suffix the forward and input-gradient
//   collectives run in the tensor-parallel group and the weight-gradient one in the
//   data-parallel group; _EP runs in the expert-parallel group and _DP_EP in the group of
//   ranks with the same expert-parallel position (dp index equal modulo ep). SimAI matches
//   types by prefix and silently treats anything unknown as NONE.
// - Sizes have nccl-tests' meaning: SimAI's NCCL flow model sends size/n per ring step for
//   all-gather (the size is the gathered output) and reduce-scatter (the input), and size/n to
//   each peer for all-to-all (one rank's send buffer); AICB writes the full activation,
//   2 x micro-batch x seq x hidden, for both sequence-parallel all-gather and reduce-scatter.
// - Groups: TP groups are consecutive ranks and DP groups stride by TP (Megatron's order); EP
//   groups take ep consecutive data-parallel ranks, DP_EP groups every ep-th.
// - Order (HYBRID_TRANSFORMER and _FWD_IN_BCKWD): forward over the lines in file order, each
//   layer's compute then its forward collective, blocking; then backward from the last line
//   to the first: input-gradient compute, its collective (blocking), weight-gradient compute,
//   its collective issued without blocking (FIFO). The iteration ends when every collective is
//   done. _FWD_IN_BCKWD would rerun forwards from checkpoint layers, but SimAI never marks a
//   layer as initiating it (checkpoint_initiates fills the checkpoint map), so the two run
//   alike. DATA: forward computes only, then for each line from the last: weight-gradient
//   compute, its collective over all ranks (non-blocking), then the input-gradient compute
//   except for the first line; forward and input-gradient collectives are never issued.
// - ga and pp: AICB already repeats the layer lines ga times (one block per micro-batch: all
//   forwards, then all backwards). SimAI simulates no pipeline: pp, vpp, ga and pp_comm only
//   enter its analytical estimate of the bubble ((pp-1)/(ga x vpp) of the compute) and of the
//   exposed pipeline traffic, and pp divides all_gpus into the data-parallel size.
//
// What the importer does with it, where SimAI's behaviour is not a DAG or is unclear:
// - pp > 1 is refused (no pipeline is in the file); so are checkpoints, MICRO and the DLRM,
//   MODEL, HYBRID_* variants other than the transformer ones, and DISTRIBUTED_INFERENCE.
// - Unknown comm types are errors, not NONE.
// - A collective whose group has one rank, or that moves nothing, is left out. All-gather,
//   reduce-scatter and all-to-all sizes are rounded down to a multiple of the group size,
//   which is what SimAI's size/n arithmetic moves.
// - The update time after a blocking collective is a compute op (named like the collective)
//   on the compute stream, which the next compute waits for, as in SimAI. After the
//   weight-gradient collectives it becomes one "optimizer" op at the end of the iteration,
//   lasting the update time of the last gradient collective issued. SimAI ends at the latest
//   of (collective end + its update time); the two agree when that collective ends last
//   after the last compute and the update times are equal, as AICB writes them (100).
// - Op names (kOpNames): compute ops by keyword in the layer name, first match: "embedding" ->
//   embedding, "cross_entropy" -> cross_entropy, "optimizer" or "grad" -> optimizer, "final"
//   -> logits, "norm" -> layernorm, "moe" -> experts_fc1, "attention" -> flash_attn, anything
//   else -> fc1. Forward and input-gradient collectives are tp_allreduce, tp_allgather,
//   tp_reducescatter or ep_alltoall; weight-gradient collectives dp_allreduce, dp_allgather,
//   dp_reducescatter or ep_alltoall. Streams follow the group: Tp, Ep (EP and DP_EP groups),
//   and Dp for every weight-gradient collective.
// - Op::layer is the index of the line among the layer lines; Op::micro_batch is -1 (the file
//   does not mark micro-batches).
#include <istream>
#include <string>
#include <string_view>

#include "workload/training.hpp"

namespace fabricsim::workload {

// What the first line declares.
struct AicbHeader {
  std::string strategy;  // DATA, HYBRID_TRANSFORMER or HYBRID_TRANSFORMER_FWD_IN_BCKWD
  int tp = 1;            // model_parallel_NPU_group (1 for DATA)
  int ep = 1;
  int pp = 1;
  int ga = 1;        // micro-batches, already unrolled in the layer lines
  int all_gpus = 0;  // 0: not given
};

// Parses line 1 of `file`; throws std::invalid_argument("file:1: ...") if it is malformed or
// declares something the importer does not support.
AicbHeader parse_aicb_header(std::string_view line, const std::string& file);

// One iteration on `world` GPUs (ranks numbered as Megatron's: tp fastest, then dp). With
// `one_replica`, as TrainingConfig::one_replica: only data-parallel replica 0 has operations.
// Kernels are KernelKind::Given; model_flops and hardware_flops are 0 (unknown). Throws
// std::invalid_argument("file:line: ...") for any malformed or unsupported input, including an
// all_gpus other than `world` and a TP group that does not divide `world`.
struct AicbWorkload {
  AicbHeader header;
  Dag dag;
};
AicbWorkload import_aicb(std::istream& in, const std::string& file, int world,
                         bool one_replica = true);

}  // namespace fabricsim::workload
