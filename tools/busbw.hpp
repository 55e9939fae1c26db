#pragma once
// nccl-tests on the simulated cluster: one collective per message size, each on an idle
// network, reported with nccl-tests' columns and bandwidth definitions.
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/call.hpp"
#include "tools/scenario.hpp"

namespace fabricsim::tools {

struct BusbwRow {
  std::uint64_t bytes = 0;  // nccl-tests' size: the whole array
  std::uint64_t count = 0;  // elements of the dtype
  double time_us = 0;
  double algbw_gbps = 0;
  double busbw_gbps = 0;
  collectives::Algo algo = collectives::Algo::Ring;
  collectives::Proto proto = collectives::Proto::Simple;
  int channels = 0;
  std::uint64_t events = 0;
  double wall_s = 0;  // the kernel's run time for this size
  // Over MPI ranks (core/ranks.hpp): how many, and what their exchanges took.
  int ranks = 1;
  std::uint64_t windows = 0, exchanged_bytes = 0;
  double mpi_s = 0;  // summed over the ranks
  // The plan's steps, and the most of them one rank held (workload::CollectiveResult).
  std::uint64_t steps = 0, held_steps = 0;
};

// The sizes nccl-tests visits for -b min -e max -f factor, each rounded down to whole
// elements (and, for ops that split the array over ranks, to whole elements per rank); sizes
// that round to nothing are left out.
std::vector<std::uint64_t> busbw_sizes(const CollectiveSection& c, int ranks);

int gpu_count(const net::Topology& topo);
// Ranks of one collective: every GPU, or one per host with groups: rail.
int collective_ranks(const NetScenario& ns);

// Simulates one size. Throws collectives::PlanError for a request NCCL would refuse.
BusbwRow run_busbw(const NetScenario& ns, std::uint64_t bytes, const net::RunOptions& run);

std::string busbw_header(const NetScenario& ns);
std::string busbw_line(const CollectiveSection& c, const BusbwRow& row);
// "# Avg bus bandwidth    : 12.3456" as nccl-tests ends its output, then the simulator's
// own cost (events, wall time of the runs; with `at_once` > 1 runs side by side, the time the
// table took too).
std::string busbw_footer(const std::vector<BusbwRow>& rows, unsigned at_once = 1,
                         double elapsed_s = 0);

std::string busbw_csv_header();
std::string busbw_csv_line(const CollectiveSection& c, const BusbwRow& row);

// The table as nccl-tests' `-J` JSON output writes it (NVIDIA/nccl-tests src/util.cu,
// JSON_FILE_VERSION 3): args, NCCL version, config with one device per rank (ngpus: the GPUs
// of a thread, collectives.gpus_per_thread), results with out-of-place and in-place bodies (the one
// simulated run; nwrong null: nothing is checked), the average bus bandwidth. Left out: the
// environment and the start and end times, so that the same run gives the same file.
std::string nccl_tests_json(const NetScenario& ns, const std::vector<BusbwRow>& rows,
                            const std::vector<std::string>& args);

}  // namespace fabricsim::tools
