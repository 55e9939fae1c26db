// Simulated training iterations against published Megatron-LM iteration times
// (scenarios/validation/training/manifest.yaml). This file runs the cases of seconds (label
// accuracy, CI's release stage); training_accuracy_scale_test.cpp the long ones (label scale).
#include <catch2/catch.hpp>

#include <cmath>

#include "tools/validate_training.hpp"

using namespace fabricsim::tools;

TEST_CASE("training accuracy: published Megatron-LM iteration times within 15%",
          "[tools][accuracy][training]") {
  const std::vector<TrainingCase> cases =
      load_training_manifest("scenarios/validation/training/manifest.yaml");
  int run = 0;
  for (const TrainingCase& c : cases) {
    if (c.long_run) continue;
    ++run;
    const TrainingCheck r = validate_training(c);
    CAPTURE(c.name, c.measured_s, r.report.iteration_s, r.error());
    CHECK(std::abs(r.error()) <= kTrainingBar);
  }
  REQUIRE(run >= 6);
}
