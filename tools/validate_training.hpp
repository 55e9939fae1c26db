#pragma once
// Accuracy of whole training iterations: a manifest pairs each published iteration time
// (Megatron-LM papers, shared/reference/e2e/) with the scenario that rebuilds its run.
#include <string>
#include <vector>

#include "workload/training_run.hpp"

namespace fabricsim::tools {

struct TrainingCase {
  std::string name;
  std::string scenario;  // path
  double measured_s = 0;
  std::string source;
  // Minutes of simulation (cluster-scale data parallelism): run by the `scale` label, not by
  // CI's accuracy stage.
  bool long_run = false;
};

// Paths in the manifest are relative to its folder.
std::vector<TrainingCase> load_training_manifest(const std::string& path);

struct TrainingCheck {
  TrainingCase c;
  workload::TrainingReport report;
  double error() const { return (report.iteration_s - c.measured_s) / c.measured_s; }
};

// `sets`: scenario keys overridden in every case (--set), e.g. training.network=packet.
TrainingCheck validate_training(const TrainingCase& c, const std::vector<std::string>& sets = {});

// The training issue's bar: the simulated iteration time within 15% of the published one.
inline constexpr double kTrainingBar = 0.15;

}  // namespace fabricsim::tools
