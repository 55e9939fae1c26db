#pragma once
// The CLI's subcommands; each takes the arguments after its name and returns the exit code.
#include <string>
#include <vector>

#include "core/phold.hpp"

namespace fabricsim::tools {

int cmd_run(const std::vector<std::string>& args);
int cmd_bench(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);
int cmd_topo(const std::vector<std::string>& args);

void print_phold(const core::PholdParams& p, const core::PholdResult& r);

}  // namespace fabricsim::tools
