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
int cmd_busbw(const std::vector<std::string>& args);
int cmd_validate(const std::vector<std::string>& args);
int cmd_info(const std::vector<std::string>& args);

struct Scenario;
// The busbw table of a scenario with a collectives: section (run and busbw both print it);
// writes it as CSV to `csv`, results.json to `json` and nccl-tests' -J JSON (with `args` as its
// argv) to `nccl_json` when they are not empty. `jobs`: sizes simulated at once.
int print_busbw(const Scenario& sc, const std::string& csv, const std::string& json, bool quiet,
                const std::string& nccl_json = "", const std::vector<std::string>& args = {},
                unsigned jobs = 1);

void print_phold(const core::PholdParams& p, const core::PholdResult& r);

}  // namespace fabricsim::tools
