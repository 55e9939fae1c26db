#include "tools/validate_training.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "tools/scenario.hpp"
#include "tools/training_report.hpp"
#include "tools/validate.hpp"
#include "tools/yaml_section.hpp"

namespace fabricsim::tools {

std::vector<TrainingCase> load_training_manifest(const std::string& path) {
  const YAML::Node root = read_manifest(path, "training manifest");
  ParseContext ctx;
  ctx.file = path;
  ctx.registered = false;
  const Section top(root, ctx, "");
  top.only({"cases"});
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::vector<TrainingCase> out;
  for (const Section& s : top.items("cases")) {
    s.only({"name", "scenario", "measured_s", "source", "long"});
    TrainingCase c;
    c.name = s.text("name");
    c.scenario = (dir / s.text("scenario")).string();
    c.measured_s = s.real_in("measured_s", std::nullopt, 0, 1e9, true);
    c.source = s.text("source");
    c.long_run = s.boolean("long", false);
    out.push_back(std::move(c));
  }
  return out;
}

TrainingCheck validate_training(const TrainingCase& c, const std::vector<std::string>& sets) {
  const Scenario sc = load_scenario(c.scenario, sets);
  if (!sc.net || !sc.net->training) {
    throw ScenarioError(c.scenario + ": not a training scenario (no training: section)");
  }
  TrainingCheck out;
  out.c = c;
  out.report = run_training(sc, true);
  return out;
}

}  // namespace fabricsim::tools
