#pragma once
// A scenario file, parsed strictly: every key known, every quantity with its unit, every
// error naming the file, line, column and key.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/phold.hpp"

namespace fabricsim::tools {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SimulationSection {
  std::uint64_t seed = 1;
  core::Time end = core::kMillisecond;
  unsigned threads = 1;
  std::uint32_t lps = 0;  // 0: chosen from the thread count
};

struct Scenario {
  std::string path;
  SimulationSection simulation;
  std::optional<core::PholdParams> phold;  // workload.phold
};

// Loads `path`, applying `overrides` ("a.b.c=value", as given to --set) before validation.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from text; `name` stands for the file in messages.
Scenario parse_scenario(const std::string& text, const std::string& name,
                        const std::vector<std::string>& overrides = {});

}  // namespace fabricsim::tools
