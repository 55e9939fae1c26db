#pragma once
// Importer for MLCommons Chakra execution traces, the workload format of ASTRA-sim 2.x: one
// file per rank, `<prefix>.<rank>.et`. The result is the same per-rank DAG as the Megatron
// generator's (training.hpp), so the executor, the network costs and the reports work unchanged.
//
// The format and how ASTRA-sim runs it, as established from the sources (mlcommons/chakra
// 21585d8: schema/protobuf/et_def.proto, src/feeder/et_feeder_node.cpp,
// src/converter/pytorch_converter.py; astra-sim/astra-sim 518bd51: astra-sim/workload/
// Workload.cc, HardwareResource.cc, system/Sys.cc, system/astraccl/.../Ring.cc):
//
// - A file is a stream of protobuf messages, each preceded by its length as a varint: one
//   GlobalMetadata, then Node messages (chakra_et.proto holds the fields read here).
// - A node has an id, a name, a type, data and control dependencies (ids of nodes of the same
//   rank), a duration in whole microseconds and named attributes: `is_cpu_op` (bool),
//   `comm_type` (a CollectiveCommType), `comm_size` (bytes), `comm_src`, `comm_dst`,
//   `comm_tag` and `pg_name` (a process group's name, a string).
// - ASTRA-sim gates a node on its data dependencies only; control dependencies (the converter's
//   parent links) are not waited for.
// - Per rank it runs one CPU op, one GPU compute op and one GPU communication (a collective or a
//   send) at a time; receives are not limited. A compute node lasts duration_micros (0 counts
//   as 1 ns). METADATA and INVALID nodes take no time.
// - Collective sizes: ALL_REDUCE, REDUCE_SCATTER and ALL_TO_ALL take comm_size as the whole
//   buffer of one rank (nccl-tests' size); ALL_GATHER takes it as one rank's contribution (its
//   ring sends comm_size per step, and the gathered result is comm_size x ranks).
// - The group: pg_name "" or "0" is every rank; another name is looked up in a communicator
//   file (JSON: {"1": [0, 1, 2, 3], ...}) or in METADATA nodes whose inputs.values hold
//   [{"pg_name": "1", "ranks": [...]}, ...] (written by the PyTorch converter as a Python
//   list around a JSON string; an empty rank list is every rank).
// - A send needs comm_dst and a receive comm_src (the other end defaults to the rank itself).
//
// What the importer does where ASTRA-sim's behaviour is not a DAG or differs:
// - Ops are listed in a topological order of the data dependencies, lowest node id first among
//   the nodes free to go. The DAG is marked ready_order with the node ids as issue keys
//   (training.hpp): a free stream runs the lowest-id op whose dependencies are done, as ASTRA-sim
//   issues the lowest-id dependency-free node when its resource frees. The scenario may ask for
//   list order instead (`training.issue_order: id`), the CUDA streams' rule.
// - Collectives are matched across ranks by order: the k-th collective a rank issues on a group
//   is the k-th of every member, and all must agree on type and size. Sends and receives are
//   matched as MPI matches them: the k-th send from s to d with tag t is the k-th receive at d
//   from s with tag t, of the same size.
// - Collectives are simulated as NCCL runs them (tuning, algorithms, the network): ASTRA-sim's
//   `involved_dim` attribute and its per-dimension schedules do not apply. BROADCAST and REDUCE
//   run as NCCL's from the group's first rank (ASTRA-sim replays a broadcast's duration and
//   refuses a reduce); GATHER, SCATTER, REDUCE_SCATTER_BLOCK and BARRIER are refused, as ASTRA-sim
//   refuses them. MEM_LOAD and MEM_STORE nodes (remote memory) are refused.
// - A node that moves or takes nothing (METADATA, INVALID, a collective of one rank or of zero
//   bytes) is left out; what depended on it depends on its dependencies instead.
// - Op names: compute ops are `kernel` or `cpu_op`, communications by their type. The phase is
//   taken from the node's name: "backward" (any case) is backward, "optimizer" the optimizer
//   step, anything else forward.
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "workload/training.hpp"

namespace fabricsim::workload {

// One node as read from a trace (the fields the importer uses).
struct ChakraNode {
  enum class Type : std::uint8_t {
    Invalid = 0,
    Metadata = 1,
    MemLoad = 2,
    MemStore = 3,
    Compute = 4,
    Send = 5,
    Recv = 6,
    Collective = 7
  };
  std::uint64_t id = 0;
  std::string name;
  Type type = Type::Invalid;
  std::vector<std::uint64_t> data_deps;
  std::uint64_t duration_us = 0;
  bool cpu = false;                       // attribute is_cpu_op
  std::optional<std::int64_t> comm_type;  // a CollectiveCommType value
  std::optional<std::int64_t> comm_size;  // bytes
  std::optional<std::int64_t> comm_src;   // ranks
  std::optional<std::int64_t> comm_dst;
  std::int64_t comm_tag = 0;
  std::string pg_name;
  std::string inputs;  // inputs.values (process groups on METADATA nodes)
};

// One rank's trace.
struct ChakraTrace {
  std::string file;  // for messages
  std::vector<ChakraNode> nodes;
};

// Decodes one rank's file. Throws std::invalid_argument("file: ...") if it is not a Chakra
// trace (a truncated or undecodable message, a node of unknown type).
ChakraTrace read_chakra_trace(std::istream& in, const std::string& file);

// Writes a trace in Chakra's binary form (a GlobalMetadata of version "0.0.4", then the nodes):
// what read_chakra_trace reads back. For tests and examples.
void write_chakra_trace(std::ostream& out, const ChakraTrace& trace);

// The JSON form of a rank's trace, as Chakra's jsonizer writes it (mlcommons/chakra
// src/jsonizer/jsonizer.py): the GlobalMetadata and then every Node in protobuf's JSON mapping
// (MessageToJson: lowerCamelCase or proto field names, 64-bit integers as strings, enums by
// name), one object after another. Read with protobuf's own JSON parser; fields this importer
// does not read are skipped. Throws std::invalid_argument("file: object N: ...").
ChakraTrace read_chakra_json_trace(std::istream& in, const std::string& file);
// What read_chakra_json_trace reads back, as the jsonizer prints it. For tests and examples.
void write_chakra_json_trace(std::ostream& out, const ChakraTrace& trace);

// Process groups by name: ranks in each.
using ChakraGroups = std::map<std::string, std::vector<int>>;

// Reads a communicator file, {"name": [ranks], ...}. Throws std::invalid_argument("file: ...").
ChakraGroups read_chakra_groups(std::istream& in, const std::string& file);

// One iteration on `traces.size()` ranks (trace r is rank r's). `groups`: from a communicator
// file (may be empty; METADATA nodes add theirs). Kernels are KernelKind::Given; model_flops
// and hardware_flops are 0 (unknown). Throws std::invalid_argument("file: node N: ...") for
// anything malformed, unmatched or unsupported.
Dag build_chakra_dag(const std::vector<ChakraTrace>& traces, const ChakraGroups& groups);

}  // namespace fabricsim::workload
