#pragma once
// results.json: the resolved configuration and the headline results of a network run, for
// scripts. `schema` is bumped whenever a field changes meaning.
#include <string>

#include "net/network.hpp"
#include "tools/scenario.hpp"

namespace fabricsim::tools {

inline constexpr int kResultsSchema = 1;

std::string results_json(const Scenario& sc, const net::NetworkResult& r);

}  // namespace fabricsim::tools
