// Simulated training iterations against published Megatron-LM iteration times
// (scenarios/validation/training/manifest.yaml). Label accuracy: runs in CI's release stage.
#include <catch2/catch.hpp>

#include <cmath>

#include "tools/validate_training.hpp"

using namespace fabricsim::tools;

TEST_CASE("training accuracy: published Megatron-LM iteration times within 15%",
          "[tools][accuracy][training]") {
  const std::vector<TrainingCase> cases =
      load_training_manifest("scenarios/validation/training/manifest.yaml");
  REQUIRE(cases.size() >= 4);
  for (const TrainingCase& c : cases) {
    const TrainingCheck r = validate_training(c);
    CAPTURE(c.name, c.measured_s, r.report.iteration_s, r.error());
    CHECK(std::abs(r.error()) <= kTrainingBar);
  }
}
