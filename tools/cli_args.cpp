#include "tools/cli_args.hpp"

#include <iostream>

namespace po = boost::program_options;

namespace fabricsim::tools {

std::optional<int> parse_scenario_args(const std::vector<std::string>& args,
                                       const po::options_description& opts, std::string& scenario,
                                       const std::string& example, const std::string& help_extra) {
  po::options_description hidden;
  hidden.add_options()("scenario", po::value(&scenario));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << help_extra;
    return 0;
  }
  if (scenario.empty()) {
    std::cerr << "which scenario? e.g. " << example << '\n';
    return 2;
  }
  return std::nullopt;
}

}  // namespace fabricsim::tools
