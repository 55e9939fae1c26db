#pragma once
// results.json: the resolved configuration and the headline results of a network run, for
// scripts. Written with nlohmann-json (Debian's nlohmann-json3-dev: header-only, keeps the
// fields in the order written): numbers are JSON numbers, and each config key is spelled as
// --set takes it (list items as `list.0`), with numbers and booleans typed and values with
// units as the scenario spells them ("100Gbps"). `schema` is bumped whenever a field changes
// meaning (2: typed values and --set keys; 1 had every config value as a string).
#include <string>

#include <vector>

#include "net/network.hpp"
#include "tools/busbw.hpp"
#include "tools/scenario.hpp"
#include "workload/training_run.hpp"

namespace fabricsim::tools {

inline constexpr int kResultsSchema = 2;

std::string results_json(const Scenario& sc, const net::NetworkResult& r);
// A collectives (busbw) run: sizes, average and best bus bandwidth, the largest size's figures.
std::string results_json(const Scenario& sc, const std::vector<BusbwRow>& rows);
// A training run: iteration time, its breakdown (averages over ranks), throughput, memory.
std::string results_json(const Scenario& sc, const workload::TrainingReport& r);
// Several jobs on one fabric: when the last ended, and each job's figures as above.
std::string results_json(const Scenario& sc, const workload::JobsReport& r);

}  // namespace fabricsim::tools
