#pragma once
// results.json: the resolved configuration and the headline results of a network run, for
// scripts. `schema` is bumped whenever a field changes meaning.
#include <string>

#include <vector>

#include "net/network.hpp"
#include "tools/busbw.hpp"
#include "tools/scenario.hpp"
#include "workload/training_run.hpp"

namespace fabricsim::tools {

inline constexpr int kResultsSchema = 1;

std::string results_json(const Scenario& sc, const net::NetworkResult& r);
// A collectives (busbw) run: sizes, average and best bus bandwidth, the largest size's figures.
std::string results_json(const Scenario& sc, const std::vector<BusbwRow>& rows);
// A training run: iteration time, its breakdown (averages over ranks), throughput, memory.
std::string results_json(const Scenario& sc, const workload::TrainingReport& r);
// Several jobs on one fabric: when the last ended, and each job's figures as above.
std::string results_json(const Scenario& sc, const workload::JobsReport& r);

}  // namespace fabricsim::tools
