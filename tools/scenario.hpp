#pragma once
// A scenario file, parsed strictly: every key known, every quantity with its unit, every
// error naming the file, line, column and key.
#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/call.hpp"
#include "compute/gpu.hpp"
#include "compute/kernel_db.hpp"
#include "core/phold.hpp"
#include "net/config.hpp"
#include "net/network.hpp"
#include "net/topology/topology.hpp"
#include "workload/collective_exec.hpp"
#include "workload/training.hpp"
#include "workload/training_run.hpp"

namespace fabricsim::tools {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Opens an input file after core::check_input_file's checks (a regular file of at most
// `max_bytes`); throws ScenarioError "PATH: cannot open the WHAT..." otherwise.
std::ifstream open_input(const std::string& path, const char* what, std::uint64_t max_bytes);

struct SimulationSection {
  std::uint64_t seed = 1;
  core::Time end = core::kMillisecond;  // network scenarios: core::kTimeMax unless given
  unsigned threads = 1;
  std::uint32_t lps = 0;  // 0: chosen from the thread count
  // `fidelity: analytical`: collectives timed by NCCL's own model, no network run.
  bool analytical = false;
  // `fidelity: flow`: the network as fluid flows (net/fluid.hpp).
  bool flow = false;
  // `flow_transfers: whole`: each connection's share of a call as one fluid transfer
  // (collectives/whole_transfers.hpp).
  bool whole_transfers = false;
};

// One key of the resolved configuration, as it would be written in a scenario file
// ("network.mtu", "4096B"); `given` is false for a default.
struct ResolvedKey {
  std::string key;
  std::string value;
  bool given = false;
};

// The `collectives` section: an nccl-tests style sweep of one collective over message sizes on
// every GPU of the cluster.
struct CollectiveSection {
  collectives::Op op = collectives::Op::AllReduce;
  collectives::Algo algo = collectives::Algo::Auto;
  collectives::Proto proto = collectives::Proto::Auto;
  int channels = 0;                      // 0: the tuning model decides
  int root = 0;                          // broadcast / reduce root, send/recv sender
  int peer = collectives::Call::kShift;  // send/recv receiver, or every rank to the next
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 128ULL << 20;
  // Each size is the previous x step_factor; with step_factor 1, + step_bytes (nccl-tests -f
  // and -i).
  std::uint64_t step_factor = 2;
  std::uint64_t step_bytes = 1ULL << 20;
  std::string dtype = "float";
  std::uint32_t type_size = 4;
  // nccl-tests' -o: the reduction's operator, printed in the redop column. Reduction compute is
  // not modelled, so it changes no time.
  std::string redop = "sum";
  // false: one collective over every GPU. true: one per local GPU index at once, each over
  // the GPUs with that index on every host (the rail's GPUs, e.g. data-parallel groups).
  bool per_rail = false;
  // nccl-tests -g: the GPUs one thread drives. Each iteration it enqueues the call on them in
  // turn and the iterations run back to back, so a size takes at least gpus_per_thread x
  // launch_cost, the host's cost of one GPU's call (NCCL's enqueue and the kernel launch).
  int gpus_per_thread = 1;
  core::Time launch_cost = 0;
  bool analytical = false;   // simulation.fidelity: analytical
  collectives::Hardware hw;  // what NCCL's tuning model knows about the cluster
  workload::ExecParams exec;
};

// The `training` section: one iteration of a model with its parallelism on every GPU.
struct TrainingSection {
  // `import`: a SimAI/AICB workload file or Chakra traces, whose DAG replaces the model's (model
  // stays empty).
  std::string imported_from;
  std::string imported_format;  // `format`: aicb or chakra
  std::optional<workload::Dag> imported;
  workload::ModelSpec model;
  workload::TrainingConfig config;
  compute::GpuSpec gpu;
  compute::KernelDb kernels;
  collectives::Hardware hw;  // what NCCL's tuning model knows about the cluster
  workload::ExecParams exec;
  workload::CommMode comm = workload::CommMode::Packet;  // `network: packet | isolated`
  std::vector<double> slowdown;                          // `stragglers`: per rank, empty when none
  // `jobs`: several jobs sharing the cluster (empty: one job on all of it, `model` and
  // `config`); with jobs, `model` and `config` are the first job's.
  std::vector<workload::TrainingJob> jobs;
};

// A packet-level network run: cluster + network + workload.flows, collectives or training.
struct NetScenario {
  net::Topology topology;
  net::NetworkConfig network;
  std::vector<net::FlowSpec> flows;
  std::optional<CollectiveSection> collectives;
  std::optional<TrainingSection> training;
  net::RunOptions run;
  // Every simulation, cluster, network and workload key with its value, defaults included,
  // in file order: what results.json echoes.
  std::vector<ResolvedKey> resolved;
};

struct Scenario {
  std::string path;
  SimulationSection simulation;
  std::optional<core::PholdParams> phold;  // workload.phold
  std::optional<NetScenario> net;          // cluster + workload.flows
  bool has_sweep = false;                  // a `sweep:` section, which only `sweep` reads
  // Every key the readers read, defaults included, in reading order (the key registry's tests
  // check them against tools/scenario_keys.hpp).
  std::vector<ResolvedKey> read;
  std::vector<std::string> allowed;  // every key path a section allowed, read or not
  std::vector<std::string> inputs;   // the other files it read (ParseContext::inputs)
};

// Loads `path`, applying `overrides` ("a.b.c=value", as given to --set) before validation.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from text; `name` stands for the file in messages.
Scenario parse_scenario(const std::string& text, const std::string& name,
                        const std::vector<std::string>& overrides = {});

// A few lines for the terminal: topology kind, node/link/NIC counts, cc, routing, flows (or
// the PHOLD parameters).
std::string describe(const Scenario& sc);

// What a PHOLD run holds at its peak, estimated: its events in flight (and per-node state), and
// its LP pairs' mailboxes. A run above net::memory_limit() is refused; the message names what
// to `lower`.
struct PholdMemory {
  std::uint64_t events = 0, pairs = 0;
};
PholdMemory phold_memory(const core::PholdParams& p);
std::string phold_memory_problem(const core::PholdParams& p, const std::string& lower);

}  // namespace fabricsim::tools
