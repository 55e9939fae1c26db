#pragma once
// What `fabricsim run` prints and writes for a training scenario: the iteration time and its
// breakdown, throughput and MFU, trace.json (Chrome trace / Perfetto) and results.json.
#include <string>

#include "tools/scenario.hpp"
#include "workload/training_run.hpp"

namespace fabricsim::tools {

workload::TrainingReport run_training(const Scenario& sc, bool quiet);

std::string training_summary(const Scenario& sc, const workload::TrainingReport& r);

// One track per rank (a process) and stream (a thread). Runs with more than `max_ops`
// operations keep the ranks of the first data-parallel replica's first tensor-parallel rank
// (one per pipeline stage), which the trace's metadata says.
std::string trace_json(const workload::TrainingReport& r, const workload::TrainingConfig& c,
                       std::size_t max_ops = 2'000'000);

// One row per operation of the same ranks as trace_json: rank and its coordinates, stream,
// name, category, micro-batch and layer (-1: none), the collective, its bytes (nccl-tests'
// size) and group size for communication, start, end and duration in microseconds.
std::string ops_csv(const workload::TrainingReport& r, const workload::TrainingConfig& c,
                    std::size_t max_ops = 2'000'000);

// Runs a training scenario: summary on stdout; with `out_dir`, trace.json, ops.csv and
// results.json.
int print_training(const Scenario& sc, const std::string& out_dir, bool quiet);

}  // namespace fabricsim::tools
