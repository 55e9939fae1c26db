#pragma once
// The argument shape every scenario subcommand shares: its own options and one SCENARIO.
#include <boost/program_options.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fabricsim::tools {

// A command line that cannot be carried out as given (an option's value, options that do not
// go together): main() prints it and exits with status 2, as for options it cannot parse.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Parses `args` into `opts`' variables and `scenario`. Returns nullopt to go on, or the exit
// code when there is nothing more to do: 0 after printing help (and `help_extra`), 2 after
// saying that the scenario is missing (with `example`, a full command line).
std::optional<int> parse_scenario_args(const std::vector<std::string>& args,
                                       const boost::program_options::options_description& opts,
                                       std::string& scenario, const std::string& example,
                                       const std::string& help_extra = "");

}  // namespace fabricsim::tools
