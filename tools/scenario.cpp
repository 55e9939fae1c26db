#include "tools/scenario.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

#include "tools/units.hpp"

namespace fabricsim::tools {
namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// Reads one YAML mapping strictly; remembers the file name and the key path for messages.
class Section {
 public:
  Section(const YAML::Node& node, std::string file, std::string path)
      : node_(node), file_(std::move(file)), path_(std::move(path)) {
    if (node_ && !node_.IsNull() && !node_.IsMap())
      fail(node_, "must be a mapping of keys to values");
  }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    const YAML::Mark m = at.Mark();
    if (m.line >= 0) {
      throw ScenarioError(
          fmt::format("{}:{}:{}: '{}' {}", file_, m.line + 1, m.column + 1, path_, what));
    }
    throw ScenarioError(fmt::format("{}: '{}' {}", file_, path_, what));
  }

  // Every key present must be one of `allowed`.
  void only(std::initializer_list<const char*> allowed) const {
    if (!node_ || !node_.IsMap()) return;
    for (const auto& kv : node_) {
      const std::string key = kv.first.as<std::string>();
      if (std::any_of(allowed.begin(), allowed.end(), [&](const char* k) { return key == k; })) {
        continue;
      }
      std::string best;
      std::size_t best_d = std::numeric_limits<std::size_t>::max();
      for (const char* k : allowed) {
        const std::size_t d = edit_distance(key, k);
        if (d < best_d) best_d = d, best = k;
      }
      std::string valid;
      for (const char* k : allowed) valid += std::string(valid.empty() ? "" : ", ") + k;
      const YAML::Mark m = kv.first.Mark();
      throw ScenarioError(fmt::format("{}:{}:{}: unknown key '{}' in '{}'{}; valid keys: {}", file_,
                                      m.line + 1, m.column + 1, key, path_,
                                      best_d <= 3 ? " (did you mean '" + best + "'?)" : "", valid));
    }
  }

  Section sub(const char* key) const {
    return Section(node_ ? node_[key] : YAML::Node(), file_, join(key));
  }
  bool has(const char* key) const { return node_ && node_.IsMap() && node_[key]; }

  std::uint64_t uint(const char* key, std::uint64_t def, std::uint64_t min,
                     std::uint64_t max) const {
    if (!has(key)) return def;
    const YAML::Node v = node_[key];
    const std::string text = scalar(v, key);
    std::uint64_t out = 0;
    std::size_t used = 0;
    try {
      if (!text.empty() && text[0] != '-') out = std::stoull(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size()) {
      at(key).fail(v, fmt::format("must be a whole number, got '{}'", text));
    }
    if (out < min || out > max) {
      at(key).fail(v, fmt::format("must be between {} and {}, got {}", min, max, out));
    }
    return out;
  }

  core::Time time(const char* key, core::Time def, core::Time min) const {
    if (!has(key)) return def;
    const YAML::Node v = node_[key];
    core::Time t = 0;
    try {
      t = parse_time(scalar(v, key));
    } catch (const std::invalid_argument& e) {
      at(key).fail(v, e.what());
    }
    if (t < min) {
      at(key).fail(v, fmt::format("must be at least {}, got {}", core::format_time(min),
                                  core::format_time(t)));
    }
    return t;
  }

 private:
  std::string join(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  Section at(const char* key) const { return Section(YAML::Node(), file_, join(key)); }
  std::string scalar(const YAML::Node& v, const char* key) const {
    if (!v.IsScalar()) at(key).fail(v, "must be a single value");
    return v.Scalar();
  }

  YAML::Node node_;
  std::string file_;
  std::string path_;
};

void apply_override(YAML::Node& root, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw ScenarioError("--set '" + assignment + "': expected key.path=value");
  }
  const std::string path = assignment.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(assignment.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw ScenarioError("--set '" + assignment + "': " + e.msg);
  }
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string part; std::getline(ss, part, '.');) {
    if (part.empty()) throw ScenarioError("--set '" + assignment + "': empty key in path");
    parts.push_back(part);
  }
  // yaml-cpp nodes are handles: walking with operator[] on a copy descends in place.
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node child = chain.back()[parts[i]];
    if (child && !child.IsMap()) {
      throw ScenarioError("--set '" + assignment + "': '" + parts[i] + "' is not a section");
    }
    chain.push_back(child);
  }
  chain.back()[parts.back()] = value;
}

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& name,
                        const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(fmt::format("{}:{}:{}: not valid YAML: {}", name, e.mark.line + 1,
                                    e.mark.column + 1, e.msg));
  }
  if (!root || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  for (const std::string& o : overrides) apply_override(root, o);

  Scenario sc;
  sc.path = name;
  const Section top(root, name, "");
  top.only({"simulation", "workload"});

  const Section sim = top.sub("simulation");
  sim.only({"seed", "end", "threads", "lps"});
  sc.simulation.seed = sim.uint("seed", 1, 0, std::numeric_limits<std::uint64_t>::max());
  sc.simulation.end = sim.time("end", core::kMillisecond, 1);
  sc.simulation.threads = static_cast<unsigned>(sim.uint("threads", 1, 1, 1024));
  sc.simulation.lps = static_cast<std::uint32_t>(sim.uint("lps", 0, 0, 1u << 20));

  const Section wl = top.sub("workload");
  wl.only({"phold"});
  if (!wl.has("phold")) {
    top.fail(root, "needs a workload: this version runs 'workload.phold' scenarios");
  }
  const Section ph = wl.sub("phold");
  ph.only({"nodes", "events_per_node", "lookahead", "mean_delay"});
  core::PholdParams p;
  p.nodes = static_cast<std::uint32_t>(ph.uint("nodes", p.nodes, 1, 1u << 24));
  p.events_per_node =
      static_cast<std::uint32_t>(ph.uint("events_per_node", p.events_per_node, 1, 1u << 16));
  p.lookahead = ph.time("lookahead", p.lookahead, 1);
  p.mean_delay = ph.time("mean_delay", p.mean_delay, 0);
  p.end = sc.simulation.end;
  p.seed = sc.simulation.seed;
  p.threads = sc.simulation.threads;
  p.lps = sc.simulation.lps ? sc.simulation.lps : std::min<std::uint32_t>(p.nodes, 16 * p.threads);
  if (p.lps > p.nodes) {
    sim.fail(root["simulation"]["lps"],
             fmt::format("lps = {} exceeds the {} PHOLD nodes", p.lps, p.nodes));
  }
  sc.phold = p;
  return sc;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path);
  if (!in) throw ScenarioError(path + ": cannot open the scenario file");
  std::stringstream buf;
  buf << in.rdbuf();
  return parse_scenario(buf.str(), path, overrides);
}

}  // namespace fabricsim::tools
