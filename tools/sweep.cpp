#include "tools/sweep.hpp"

#include <fmt/format.h>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>

#include "tools/csv.hpp"
#include "tools/scenario.hpp"
#include "tools/yaml_section.hpp"

namespace fabricsim::tools {
namespace {

// Folders are named with four digits so that they sort in point order.
constexpr std::size_t kMaxPoints = 9999;

// One axis of the product: a plain key, or a zip group whose lists advance together.
struct Axis {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  // values[k][j]: key k at step j
  std::size_t steps() const { return values.front().size(); }
};

// The values of one swept key; `where` names it ("sweep.network.cc") in messages.
std::vector<std::string> read_values(const Section& where, const YAML::Node& list) {
  if (!list.IsSequence()) where.fail(list, "must be a list of values, e.g. [dcqcn, hpcc]");
  if (list.size() == 0) where.fail(list, "is an empty list: a swept key needs at least one value");
  std::vector<std::string> out;
  for (const YAML::Node& item : list) {
    if (!item.IsScalar()) where.fail(item, "must list single values, not lists or mappings");
    // Each value reaches the worker as `--set key=value`; one that would read back as something
    // else (an empty string, a quoted "[1, 2]") cannot be passed on faithfully.
    const std::string v = item.Scalar();
    bool faithful = false;
    try {
      const YAML::Node back = YAML::Load(v);
      faithful = back.IsScalar() && back.Scalar() == v;
    } catch (const YAML::Exception&) {
    }
    if (!faithful) where.fail(item, fmt::format("has '{}', which --set cannot pass on as is", v));
    out.push_back(v);
  }
  return out;
}

std::string key_of(const std::string& assignment) {
  return assignment.substr(0, assignment.find('='));
}

// `a` sets `b`, a section holding `b`, or a key inside `b`.
bool overlaps(const std::string& a, const std::string& b) {
  const auto under = [](const std::string& x, const std::string& y) {
    return x.size() > y.size() && x.compare(0, y.size(), y) == 0 && x[y.size()] == '.';
  };
  return a == b || under(a, b) || under(b, a);
}

}  // namespace

Sweep parse_sweep(const std::string& text, const std::string& name) {
  ParseContext ctx;
  ctx.file = name;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(fmt::format("{}:{}:{}: not valid YAML: {}", name, e.mark.line + 1,
                                    e.mark.column + 1, e.msg));
  }
  if (!root.IsMap() || !root["sweep"]) {
    throw ScenarioError(fmt::format(
        "{}: has no 'sweep:' section to sweep: add e.g. 'sweep: {{network.cc: [dcqcn, hpcc]}}'",
        name));
  }
  const Section top(root, ctx, "");
  const Section sw = top.sub("sweep");
  if (!sw.present() || sw.node().size() == 0) {
    top.fail_key("sweep", "is empty: give each swept key a list, e.g. 'network.cc: [dcqcn, hpcc]'");
  }

  std::vector<Axis> axes;
  std::set<std::string> seen;
  const auto add_key = [&](const Section& parent, const YAML::Node& k) {
    if (!k.IsScalar() || k.Scalar().empty()) parent.fail(k, "has a key that is not a key path");
    const std::string key = k.Scalar();
    const Section at(YAML::Node(), ctx, parent.join(key));
    if (key == "sweep" || key.rfind("sweep.", 0) == 0) {
      at.fail(k, "is the sweep itself: swept keys are scenario keys such as network.cc");
    }
    for (const std::string& other : seen) {
      if (overlaps(key, other)) {
        at.fail(k, fmt::format("is swept twice (with '{}'): a key takes one list", other));
      }
    }
    seen.insert(key);
    return at;
  };
  bool zipped = false;
  for (const auto& kv : sw.node()) {
    if (kv.first.IsScalar() && kv.first.Scalar() == "zip") {
      if (zipped) sw.fail(kv.first, "has 'zip' twice: put every zipped key in one 'zip' group");
      zipped = true;
      const Section zip = sw.sub("zip");
      if (!zip.present() || zip.node().size() == 0) {
        sw.fail_key("zip", "is empty: list keys whose lists advance together");
      }
      Axis axis;
      for (const auto& z : zip.node()) {
        const Section at = add_key(zip, z.first);
        axis.keys.push_back(z.first.Scalar());
        axis.values.push_back(read_values(at, z.second));
        if (axis.values.back().size() != axis.values.front().size()) {
          at.fail(z.second, fmt::format("has {} values but '{}' has {}: zipped lists advance "
                                        "together and need equal lengths",
                                        axis.values.back().size(), zip.join(axis.keys.front()),
                                        axis.values.front().size()));
        }
      }
      axes.push_back(std::move(axis));
      continue;
    }
    const Section at = add_key(sw, kv.first);
    axes.push_back({{kv.first.Scalar()}, {read_values(at, kv.second)}});
  }

  Sweep s;
  std::size_t total = 1;
  for (const Axis& a : axes) {
    s.keys.insert(s.keys.end(), a.keys.begin(), a.keys.end());
    total *= a.steps();
    if (total > kMaxPoints) {
      top.fail_key("sweep", fmt::format("has more than {} points: split it into several sweeps",
                                        kMaxPoints));
    }
  }
  // An odometer: the last axis turns fastest.
  std::vector<std::size_t> step(axes.size(), 0);
  for (std::size_t p = 0; p < total; ++p) {
    std::vector<std::string> values;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      for (const auto& list : axes[a].values) values.push_back(list[step[a]]);
    }
    s.points.push_back(std::move(values));
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++step[a] < axes[a].steps()) break;
      step[a] = 0;
    }
  }
  return s;
}

std::vector<std::string> point_sets(const Sweep& s, std::size_t i) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < s.keys.size(); ++k) out.push_back(s.keys[k] + "=" + s.points[i][k]);
  return out;
}

std::string point_label(const Sweep& s, std::size_t i) {
  std::string out;
  for (const std::string& a : point_sets(s, i)) out += (out.empty() ? "" : ", ") + a;
  return out;
}

std::string point_dir(std::size_t i) {
  return fmt::format("{:04}", i + 1);
}

std::vector<std::string> check_points(const Sweep& s, const std::string& text,
                                      const std::string& name,
                                      const std::vector<std::string>& base_sets) {
  std::set<std::string> inputs;
  for (const std::string& set : base_sets) {
    for (const std::string& key : s.keys) {
      if (overlaps(key_of(set), key)) {
        throw ScenarioError(fmt::format(
            "{}: --set {} changes '{}', which the sweep varies: drop the --set or the swept key",
            name, set, key));
      }
    }
  }
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    std::vector<std::string> sets = base_sets;
    for (std::string& a : point_sets(s, i)) sets.push_back(std::move(a));
    Scenario sc;
    try {
      sc = parse_scenario(text, name, sets);
    } catch (const ScenarioError& e) {
      throw ScenarioError(fmt::format("sweep point {}/{} ({}): {}", i + 1, s.points.size(),
                                      point_label(s, i), e.what()));
    }
    if (!sc.net) {
      throw ScenarioError(
          fmt::format("{}: sweep tabulates network runs (workload.flows, collectives or training); "
                      "a PHOLD scenario "
                      "writes no results.json: run it with 'fabricsim run --set' instead",
                      name));
    }
    inputs.insert(sc.inputs.begin(), sc.inputs.end());
  }
  return {inputs.begin(), inputs.end()};
}

namespace {

nlohmann::json parse_results(const std::string& results_json, const std::string& name) {
  nlohmann::json doc = nlohmann::json::parse(results_json, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("results") ||
      !doc["results"].is_object()) {
    throw std::runtime_error(name + ": no \"results\" object (not written by fabricsim run?)");
  }
  return doc;
}

// The headline columns of a parsed results.json's "results" object. Several training jobs on
// one fabric: the run's end, then each job's training columns under its name.
std::vector<std::string> fields_of(const nlohmann::json& res) {
  const auto strings = [](const auto& fields) {
    return std::vector<std::string>(fields.begin(), fields.end());
  };
  if (res.contains("avg_busbw_GBps")) return strings(kCollectiveHeadline);
  if (res.contains("iteration_s")) return strings(kTrainingHeadline);
  if (res.contains("jobs") && res["jobs"].is_array()) {
    std::vector<std::string> out{"end_s"};
    for (const nlohmann::json& job : res["jobs"]) {
      const std::string name = job.is_object() && job.contains("name") && job["name"].is_string()
                                   ? job["name"].get<std::string>()
                                   : "?";
      for (std::string_view f : kTrainingHeadline) out.push_back(name + "." + std::string(f));
    }
    return out;
  }
  return strings(kHeadline);
}

// The value of `field` in `res` (a job's field: "NAME.FIELD"), or nullptr.
const nlohmann::json* field_value(const nlohmann::json& res, const std::string& field) {
  if (const auto it = res.find(field); it != res.end()) return &*it;
  const std::size_t dot = field.rfind('.');
  if (dot == std::string::npos || !res.contains("jobs") || !res["jobs"].is_array()) return nullptr;
  for (const nlohmann::json& job : res["jobs"]) {
    if (job.is_object() && job.value("name", "") == field.substr(0, dot)) {
      const auto it = job.find(field.substr(dot + 1));
      return it == job.end() ? nullptr : &*it;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> headline_fields(const std::string& results_json) {
  return fields_of(parse_results(results_json, "results.json")["results"]);
}

std::vector<std::string> read_headline(const std::string& results_json, const std::string& name) {
  const nlohmann::json doc = parse_results(results_json, name);
  const nlohmann::json& res = doc["results"];
  std::vector<std::string> out;
  for (const std::string& field : fields_of(res)) {
    const nlohmann::json* v = field_value(res, field);
    if (v == nullptr) {
      throw std::runtime_error(fmt::format("{}: \"results\" has no \"{}\"", name, field));
    }
    // Unknown (null): an empty cell.
    out.push_back(v->is_string() ? v->get<std::string>() : v->is_null() ? "" : v->dump());
  }
  return out;
}

std::string sweep_csv(const Sweep& s, const std::vector<std::string>& fields,
                      const std::vector<std::vector<std::string>>& rows,
                      const std::vector<std::string>& errors) {
  std::string out = "point";
  for (const std::string& k : s.keys) out += "," + csv_field(k);
  for (const std::string& h : fields) out += "," + csv_field(h);
  out += ",error\n";
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    out += std::to_string(i + 1);
    for (const std::string& v : s.points[i]) out += "," + csv_field(v);
    const std::string& error = errors.at(i);
    for (std::size_t f = 0; f < fields.size(); ++f) {
      out += "," + (error.empty() ? csv_field(rows.at(i).at(f)) : std::string());
    }
    out += "," + csv_field(error) + '\n';
  }
  return out;
}

std::string long_csv(const Sweep& s, const std::vector<std::string>& tables,
                     const std::string& name) {
  std::string prefix = "point";
  for (const std::string& k : s.keys) prefix += "," + csv_field(k);
  std::string header, out;
  bool first = true;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const std::string& t = tables[i];
    if (t.empty()) continue;  // a point that failed
    const std::size_t eol = t.find('\n');
    const std::string head = t.substr(0, eol);
    if (first) {
      first = false;
      header = head;
      out = prefix + "," + header + "\n";
    } else if (head != header) {
      throw std::runtime_error(
          fmt::format("{}: point {} has other columns than point 1 ('{}' against '{}')", name,
                      i + 1, head, header));
    }
    std::string cells = std::to_string(i + 1);
    for (const std::string& v : s.points.at(i)) cells += "," + csv_field(v);
    for (std::size_t at = eol == std::string::npos ? t.size() : eol + 1; at < t.size();) {
      std::size_t end = t.find('\n', at);
      if (end == std::string::npos) end = t.size();
      if (end > at) out += cells + "," + t.substr(at, end - at) + "\n";
      at = end + 1;
    }
  }
  return out;
}

}  // namespace fabricsim::tools
