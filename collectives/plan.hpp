#pragma once
// The output: for every participant an ordered list of point-to-point steps. Plain data, so the
// workload executor (or a test's symbolic executor) can run it without knowing the algorithm.
//
// Execution rules an executor honours:
// - A step may start once every step listed in `deps` (indices into the same participant's
//   list) has completed.
// - Sends and receives travel on a connection (sender, receiver, channel). The k-th send on a
//   connection carries seq = k and matches the receive with the same seq: FIFO, as NCCL's
//   per-peer FIFOs are.
// - Credits: a send with seq s may start only after the receive with seq s - Plan::credits on
//   the same connection has completed (that receive freed its slot). This is NCCL's
//   NCCL_STEPS-slot FIFO counted in slices; it is a rule on seq rather than a dependency
//   because the freed slot belongs to another participant's list.
// - A receive with Combine::Reduce folds the data into the local chunk; Combine::Copy
//   overwrites it. A send sends the chunk's current content.
#include <cstdint>
#include <vector>

#include "collectives/call.hpp"
#include "collectives/deps.hpp"
#include "collectives/tuning.hpp"

namespace fabricsim::collectives {

enum class Dir : std::uint8_t { Send, Recv };
enum class Combine : std::uint8_t { None, Reduce, Copy };

inline constexpr int kNoRail = -1;

struct Step {
  int peer = 0;  // participant index (GPU rank, or an NVSwitch agent >= Plan::n_ranks)
  Dir dir = Dir::Send;
  Combine combine = Combine::None;  // receives only
  // Ring sends: which slice of its ring step this is (0 to slices - 1); 0 elsewhere. An
  // executor charging a latency once per ring step (SimAI's) charges it on slice 0.
  std::uint8_t slice = 0;
  // The whole form (whole_transfers.hpp): how many connections alike this step stands for.
  std::uint16_t copies = 1;
  // NVLS: the multicast (gather) legs of channel c use connection id channels + c, as NCCL's
  // NVLS kernel has separate buffers and warps for its reduce and gather legs; one FIFO for
  // both would serialize every chunk's round trip through the switch.
  int channel = 0;
  int chunk = 0;  // index into Plan::chunks
  // A message that carries several chunks at once (PAT packs several peers' pieces into one
  // FIFO step): Plan::bundles[bundle] lists them, `chunk` is the first and `bytes` their sum.
  // -1: the step carries `chunk` alone.
  int bundle = -1;
  std::uint64_t bytes = 0;       // payload
  std::uint64_t wire_bytes = 0;  // payload plus the protocol's flags (LL, LL128)
  int seq = 0;                   // position on its connection
  // Between hosts: the NIC rail both ends use (the channel's rail). If it is not the sender's
  // own NIC the executor forwards over NVLink first (PXN). kNoRail inside a host.
  int rail = kNoRail;
  Deps deps;
};

// A piece of the user buffer that travels as one unit.
struct Chunk {
  std::uint64_t offset = 0;  // in the op's buffer (all-to-all: the sender's send buffer)
  std::uint64_t bytes = 0;
  // Reduce-scatter / all-gather: the rank whose block this is. All-to-all / send-recv: the
  // sender. Broadcast / reduce: the root. All-reduce: -1.
  int owner = -1;
  int dest = -1;  // all-to-all / send-recv: the receiver
};

// A connection's key as the executor numbers connections: sender, receiver, channel.
inline std::uint64_t connection_key(int from, int to, int channel) {
  return static_cast<std::uint64_t>(from) << 40 | static_cast<std::uint64_t>(to) << 16 |
         static_cast<std::uint64_t>(channel);
}

// What an executor needs of a participant whose steps a process does not hold (an MPI rank
// runs only its own hosts' participants): its step count, and its connections in the order its
// steps first use them, with the traffic of its sends on each.
struct ConnBrief {
  int from = 0, to = 0, channel = 0;  // sender, receiver
  int rail = kNoRail;
  std::uint32_t messages = 0;  // sends (0 on a connection it receives on)
  std::uint64_t bytes = 0;     // their wire bytes
  std::uint64_t key() const { return connection_key(from, to, channel); }
};
struct Brief {
  std::uint32_t steps = 0;
  std::vector<ConnBrief> conns;
};

struct Plan {
  Op op = Op::AllReduce;
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  int channels = 1;
  int n_ranks = 0;  // participants [0, n_ranks) are GPU ranks
  // Participants [n_ranks, n_ranks + switch_host.size()) are NVSwitch agents (NVLS): the
  // switch of host switch_host[i - n_ranks] reduces and multicasts. The rest, up to
  // steps.size(), are aggregation agents in the network's switches (CollNet, SHARP): agent k
  // serves the hosts' NICs of rail sharp_rails[k].
  std::vector<int> switch_host;
  std::vector<int> sharp_rails;
  std::uint64_t bytes = 0;
  std::uint64_t slice_bytes = 0;  // the unit one step moves (the last of a loop may be smaller)
  int credits = 1;                // slices in flight per connection (see header comment)
  // Payload GB/s one channel's thread block moves at most under this protocol, inside a host
  // and to another host (0: bounded by the links only); tuning.hpp channel_gbps.
  double channel_gbps = 0;
  double channel_net_gbps = 0;
  std::vector<Chunk> chunks;
  std::vector<std::vector<int>> bundles;  // Step::bundle
  std::vector<std::vector<Step>> steps;
  // Empty: every participant's steps are in `steps`. Otherwise participant p's are there only
  // when held[p]; briefs[p] stands for the others (make_plan's `held`).
  std::vector<bool> held;
  std::vector<Brief> briefs;
  // Paid once before the steps, beyond the algorithm's base latency: PAT's part per rank of its
  // communicator (kPatRankLatencyUs x ranks), which a merge of groups' plans must keep.
  double extra_latency_us = 0;
  // Negative: a plan step by step. Otherwise the coarse form of whole_transfers.hpp, which pays
  // this latency (NCCL's modelled latency of the call, us) once before its transfers.
  double merged_latency_us = -1;
};

// The analytical fidelity: NCCL's own estimate of the call (its tuning model's time for the
// algorithm and protocol it picks, tuning.hpp), with no plan and no network. Validates the call
// as make_plan does; throws PlanError for all-to-all and send/recv, which NCCL's model does not
// time. Zero ranks' worth of work (one rank, zero bytes) takes no time.
Choice model_time(const Call& call, const RankLayout& layout);

// Validates the call against the layout and builds the plan. Throws PlanError for an
// impossible or unsupported request; Auto fields are resolved by the tuning model. `threads`
// may share the building of large ring plans; the plan does not depend on it. A plan of more
// than about `max_steps` steps (estimated before any is built: every piece a rank sends is a
// send and a receive step) is refused with a PlanError naming its size. `whole`: its
// whole-transfer form (whole_transfers.hpp) built directly, one step per connection, which is
// never too large; whole_transfers() then only sets its latency.
// `held` (one entry per rank; switch and aggregation agents are always held): the ranks whose
// steps to build; the others get only their Brief, so a process running part of the ranks
// holds part of the plan. Not with `whole`.
Plan make_plan(const Call& call, const RankLayout& layout, unsigned threads = 1,
               std::uint64_t max_steps = ~std::uint64_t{0}, bool whole = false,
               const std::vector<bool>* held = nullptr);

}  // namespace fabricsim::collectives
