// Simulated training iterations against published Megatron-LM iteration times
// (scenarios/validation/training/manifest.yaml). The cases of seconds run with the accuracy
// label (CI's release stage); the cases marked long, tens of minutes in all, run as the hidden
// test "[.scale]" under the scale label (`ctest -L scale`), which CI leaves out.
#include <catch2/catch.hpp>

#include <cmath>

#include "tools/validate_training.hpp"

using namespace fabricsim::tools;

namespace {

int check_cases(bool long_runs) {
  int run = 0;
  for (const TrainingCase& c :
       load_training_manifest("scenarios/validation/training/manifest.yaml")) {
    if (c.long_run != long_runs) continue;
    ++run;
    const TrainingCheck r = validate_training(c);
    CAPTURE(c.name, c.measured_s, r.report.iteration_s, r.error());
    CHECK(std::abs(r.error()) <= kTrainingBar);
  }
  return run;
}

}  // namespace

TEST_CASE("training accuracy: published Megatron-LM iteration times within 15%",
          "[tools][accuracy][training]") {
  REQUIRE(check_cases(false) >= 6);
}

TEST_CASE("training accuracy at cluster scale: published iteration times within 15%",
          "[.scale][training]") {
  REQUIRE(check_cases(true) >= 5);
}
