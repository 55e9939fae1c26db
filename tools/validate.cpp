#include "tools/validate.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/input_file.hpp"
#include "core/time.hpp"
#include "tools/csv.hpp"
#include "tools/nccl_tests_log.hpp"

namespace fabricsim::tools {

namespace fs = std::filesystem;

YAML::Node read_manifest(const std::string& path, const char* what) {
  if (fs::path(path).is_relative() && !fs::exists(path)) {
    throw ScenarioError(
        fmt::format("{}: cannot open the {}: no such file in the current folder ({}); run from the "
                    "repository's top folder or give its path with --manifest",
                    path, what, fs::current_path().string()));
  }
  std::ifstream in = open_input(path, what, 16u << 20);  // as a scenario file
  try {
    return YAML::Load(in);
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(fmt::format("{}:{}:{}: not valid YAML: {}", path, e.mark.line + 1,
                                    e.mark.column + 1, e.msg));
  }
}

std::vector<ValidationEntry> load_manifest(const std::string& path) {
  const YAML::Node root = read_manifest(path, "manifest");
  const fs::path dir = fs::path(path).parent_path();
  const YAML::Node list = root.IsMap() ? root["datasets"] : YAML::Node();
  if (!list || !list.IsSequence()) {
    throw ScenarioError(path + ": needs a 'datasets:' list");
  }
  const std::string data_dir = root["data_dir"] ? root["data_dir"].as<std::string>() : ".";
  std::vector<ValidationEntry> out;
  for (const YAML::Node& item : list) {
    const auto where = fmt::format("{}:{}", path, item.Mark().line + 1);
    if (!item.IsMap() || !(item["dataset"] || item["point"]) || !item["scenario"] ||
        (item["dataset"] && item["point"])) {
      throw ScenarioError(where + ": each entry needs 'scenario' and one of 'dataset', 'point'");
    }
    for (const auto& kv : item) {
      const std::string key = kv.first.as<std::string>();
      if (key != "dataset" && key != "point" && key != "scenario" && key != "set" && key != "gap" &&
          key != "scale") {
        throw ScenarioError(fmt::format(
            "{}: unknown key '{}' (dataset or point, scenario, set, gap, scale)", where, key));
      }
    }
    ValidationEntry e;
    if (item["point"]) {
      e.point = e.dataset = item["point"].as<std::string>();
      e.data = (dir / data_dir / "reference_points.csv").lexically_normal().string();
    } else {
      e.dataset = item["dataset"].as<std::string>();
      e.data = (dir / data_dir / (e.dataset + ".csv")).lexically_normal().string();
    }
    e.scenario = (dir / item["scenario"].as<std::string>()).lexically_normal().string();
    if (item["gap"]) e.gap = item["gap"].as<std::string>();
    if (item["scale"]) e.scale = item["scale"].as<bool>();
    if (item["set"]) {
      for (const YAML::Node& s : item["set"]) e.sets.push_back(s.as<std::string>());
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<Measured> load_measured(const std::string& csv_path) {
  std::ifstream in = open_input(csv_path, "measurements", 64u << 20);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::stringstream ss(line);
    for (std::string col; std::getline(ss, col, ',');) header.push_back(col);
  }
  const auto col = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw ScenarioError(fmt::format("{}: no column {}", csv_path, name));
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t size_c = col("size_bytes"), out_c = col("busbw_out_GBps"),
                    in_c = col("busbw_in_GBps"), tout_c = col("time_us_out"),
                    tin_c = col("time_us_in");
  std::vector<Measured> out;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    cells.resize(header.size());
    try {
      Measured m;
      m.bytes = std::stoull(cells[size_c]);
      const bool out_place = !cells[out_c].empty();
      const std::string& v = out_place ? cells[out_c] : cells[in_c];
      if (v.empty()) continue;
      m.busbw_gbps = std::stod(v);
      const std::string& t = out_place ? cells[tout_c] : cells[tin_c];
      if (!t.empty()) m.time_us = std::stod(t);
      out.push_back(m);
    } catch (const std::exception&) {
      throw ScenarioError(fmt::format("{}:{}: not a number in '{}'", csv_path, number, line));
    }
    if (const std::string why = measured_problem(out.back()); !why.empty()) {
      throw ScenarioError(fmt::format("{}:{}: {} in '{}'", csv_path, number, why, line));
    }
  }
  return out;
}

std::string measured_problem(const Measured& m) {
  if (!std::isfinite(m.busbw_gbps) || m.busbw_gbps < 0) {
    return fmt::format("a bus bandwidth of {} GB/s", m.busbw_gbps);
  }
  if (!std::isfinite(m.time_us) || m.time_us < 0) return fmt::format("a time of {} us", m.time_us);
  return "";
}

Measured load_point(const std::string& csv_path, const std::string& point_id, int& ranks) {
  std::ifstream in = open_input(csv_path, "reference points", 16u << 20);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = core::split_csv(line);
  const auto col = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw ScenarioError(fmt::format("{}: no column {}", csv_path, name));
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t id_c = col("point_id"), gpus_c = col("gpus_total"), size_c = col("size_bytes");
  // Out of place, in place, then unspecified: the first pair the source gives.
  const std::size_t bus[] = {col("busbw_out_GBps"), col("busbw_in_GBps"),
                             col("busbw_unspecified_GBps")};
  const std::size_t time[] = {col("time_us_out"), col("time_us_in"), col("time_unspecified_us")};
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    std::vector<std::string> cells = core::split_csv(line);
    if (cells.empty() || cells[0] != point_id) continue;
    cells.resize(header.size());
    Measured m;
    bool found = false;
    try {
      m.bytes = std::stoull(cells[size_c]);
      ranks = std::stoi(cells[gpus_c]);
      for (int k = 0; k < 3; ++k) {
        if (cells[bus[k]].empty() && cells[time[k]].empty()) continue;
        if (!cells[bus[k]].empty()) m.busbw_gbps = std::stod(cells[bus[k]]);
        if (!cells[time[k]].empty()) m.time_us = std::stod(cells[time[k]]);
        found = true;
        break;
      }
    } catch (const std::exception&) {
      throw ScenarioError(
          fmt::format("{}:{}: not a number in point {}", csv_path, number, point_id));
    }
    if (found) {
      if (const std::string why = measured_problem(m); !why.empty()) {
        throw ScenarioError(fmt::format("{}:{}: {} in point {}", csv_path, number, why, point_id));
      }
      return m;
    }
    throw ScenarioError(fmt::format("{}:{}: point {} has no bus bandwidth and no time", csv_path,
                                    number, point_id));
  }
  throw ScenarioError(
      fmt::format("{}: no point '{}' (column {})", csv_path, point_id, header[id_c]));
}

ValidationResult validate(const ValidationEntry& e, std::uint64_t max_bytes,
                          const net::RunOptions* run_override) {
  // The user's own run: it must be the experiment the scenario describes, launches included.
  std::optional<NcclTestsLog> log;
  std::vector<std::string> sets = e.sets;
  if (is_nccl_tests_log(e.data)) {
    log = read_nccl_tests_log(e.data);
    const bool set_here = std::any_of(sets.begin(), sets.end(), [](const std::string& s) {
      return s.starts_with("collectives.gpus_per_thread=");
    });
    if (log->gpus_per_thread > 1 && !set_here) {
      sets.push_back(fmt::format("collectives.gpus_per_thread={}", log->gpus_per_thread));
    }
  }
  const Scenario sc = load_scenario(e.scenario, sets);
  if (!sc.net || !sc.net->collectives) {
    throw ScenarioError(e.scenario + ": a validation scenario needs a collectives: section");
  }
  const NetScenario& ns = *sc.net;
  ValidationResult r;
  r.entry = e;
  r.collective = std::string(collectives::name(ns.collectives->op));
  r.ranks = collective_ranks(ns);
  r.nodes = static_cast<int>(ns.topology.gpu_hosts());
  const net::RunOptions run = run_override ? *run_override : ns.run;
  std::vector<double> big;
  std::vector<Measured> measured;
  if (log) {
    if (!log->collective.empty() && log->collective != r.collective) {
      throw ScenarioError(fmt::format("{} measured {} ({}), but {} runs {}: set collectives.op={}",
                                      e.data, log->collective, log->binary, e.scenario,
                                      r.collective, log->collective));
    }
    if (log->ranks > 0 && log->ranks != r.ranks) {
      throw ScenarioError(
          fmt::format("{} ran {} ranks, but {} has {}: set the cluster's hosts "
                      "and GPUs (or collectives.groups) to match",
                      e.data, log->ranks, e.scenario, r.ranks));
    }
    const CollectiveSection& c = *ns.collectives;
    if (log->gpus_per_thread > 1) {
      r.notes.push_back(fmt::format(
          "{0} drove {1} GPUs from each thread (nccl-tests -g {1}): simulated with "
          "collectives.gpus_per_thread: {2}, so each size takes at least {2} launches of {3}",
          e.data, log->gpus_per_thread, c.gpus_per_thread, core::format_time(c.launch_cost)));
    }
    measured = std::move(log->rows);
  } else if (!e.point.empty()) {
    int ranks = 0;
    measured.push_back(load_point(e.data, e.point, ranks));
    if (ranks != r.ranks) {
      throw ScenarioError(fmt::format("point {} ran {} GPUs, but {} has {} ranks", e.point, ranks,
                                      e.scenario, r.ranks));
    }
  } else {
    measured = load_measured(e.data);
  }
  for (const Measured& m : measured) {
    if (max_bytes && m.bytes > max_bytes) continue;
    ValidationRow row;
    row.measured = m;
    row.simulated = run_busbw(ns, m.bytes, run);
    r.rows.push_back(row);
    const double err = std::fabs(row.rel_error());
    if (m.bytes >= (1u << 20)) big.push_back(err);
    if (m.bytes >= (64u << 10)) {
      r.max_error_64k = std::max(r.max_error_64k, err);
    } else if (row.measured_any()) {
      r.max_error_small = std::max(r.max_error_small, err);
    }
  }
  if (!big.empty()) r.median_error_1m = median(std::move(big));
  return r;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

bool meets_bar(const ValidationResult& r, const Bar& bar) {
  return r.median_error_1m <= bar.median && r.max_error_64k <= bar.max &&
         r.max_error_small <= bar.small;
}

std::string validation_csv_header() {
  return "dataset,collective,ranks,nodes,size_bytes,measured_busbw_GBps,simulated_busbw_GBps,"
         "rel_error,algo,proto,channels\n";
}

std::string validation_csv(const ValidationResult& r) {
  std::string out;
  for (const ValidationRow& row : r.rows) {
    out += fmt::format("{},{},{},{},{},{:.4f},{:.4f},{},{},{},{}\n", csv_field(r.entry.dataset),
                       csv_field(r.collective), r.ranks, r.nodes, row.measured.bytes,
                       row.measured.busbw_gbps, row.simulated.busbw_gbps,
                       row.measured_any() ? fmt::format("{:.4f}", row.rel_error()) : "",
                       collectives::name(row.simulated.algo),
                       collectives::name(row.simulated.proto), row.simulated.channels);
  }
  return out;
}

}  // namespace fabricsim::tools
