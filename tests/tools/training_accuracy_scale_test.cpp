// Simulated training iterations against published Megatron-LM iteration times
// (scenarios/validation/training/manifest.yaml): the cases marked long, tens of minutes of
// simulation in all (label scale, not run by CI; `ctest -L scale` runs them).
#include <catch2/catch.hpp>

#include <cmath>

#include "tools/validate_training.hpp"

using namespace fabricsim::tools;

TEST_CASE("training accuracy at cluster scale: published Megatron-LM iteration times within 15%",
          "[tools][scale][training]") {
  const std::vector<TrainingCase> cases =
      load_training_manifest("scenarios/validation/training/manifest.yaml");
  int run = 0;
  for (const TrainingCase& c : cases) {
    if (!c.long_run) continue;
    ++run;
    const TrainingCheck r = validate_training(c);
    CAPTURE(c.name, c.measured_s, r.report.iteration_s, r.error());
    CHECK(std::abs(r.error()) <= kTrainingBar);
  }
  REQUIRE(run >= 5);
}
