#pragma once
// The `sweep:` section of a scenario and what `fabricsim sweep` makes of it: the points (one
// assignment of every swept key), their --set arguments, and the table of results.
//
//   sweep:
//     network.cc: [dcqcn, hpcc, none]     # an axis: one value per point along it
//     cluster.nic_link.rate: [100Gbps, 400Gbps]
//     zip:                                # one axis whose lists advance together
//       workload.flows.size: [1MB, 4MB]
//       simulation.seed: [1, 2]
//
// Points are the cartesian product of the axes in file order, the last axis changing fastest
// (as nested loops read top to bottom), numbered from 1.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::tools {

struct Sweep {
  // Column order: axes in file order, a zip group's keys in its own order.
  std::vector<std::string> keys;
  // points[i][k] is the value of keys[k] at point i + 1, as written in the file.
  std::vector<std::vector<std::string>> points;
};

// Reads the `sweep:` section of a scenario text; `name` stands for the file in messages.
// Throws ScenarioError (file:line:col) for a missing or malformed section. Does not check that
// the keys exist in the scenario: see check_points.
Sweep parse_sweep(const std::string& text, const std::string& name);

// "key=value" for each swept key of point `i` (0-based), as given to `run --set`.
std::vector<std::string> point_sets(const Sweep& s, std::size_t i);
// "network.cc=hpcc, simulation.seed=2": how progress and errors name a point.
std::string point_label(const Sweep& s, std::size_t i);
// The point's folder under DIR/points: "0001" for i = 0.
std::string point_dir(std::size_t i);

// Loads the scenario once per point with `base_sets` and then the point's values applied, so a
// bad key or value fails before anything runs. Throws ScenarioError naming the point. Refuses
// PHOLD scenarios and --set on a swept key. Returns the other files the points read, sorted,
// each once (Scenario::inputs).
std::vector<std::string> check_points(const Sweep& s, const std::string& text,
                                      const std::string& name,
                                      const std::vector<std::string>& base_sets);

// The results.json fields that sweep.csv tabulates, in column order: for flows runs and for
// collectives (busbw) runs.
inline constexpr std::array<std::string_view, 9> kHeadline = {
    "flows_finished", "fct_mean_us", "fct_max_us",       "end_us",          "drops",
    "ecn_marks",      "pfc_pauses",  "fct_slowdown_p50", "fct_slowdown_p99"};
inline constexpr std::array<std::string_view, 5> kCollectiveHeadline = {
    "sizes", "avg_busbw_GBps", "max_busbw_GBps", "largest_time_us", "largest_busbw_GBps"};

// A training run's columns.
inline constexpr std::array<std::string_view, 8> kTrainingHeadline = {
    "iteration_s",    "compute_s", "exposed_comm_s", "bubble_s",
    "tflops_per_gpu", "mfu",       "memory_GB",      "model_flops"};

// The headline columns of a results.json: kCollectiveHeadline for a collectives run,
// kTrainingHeadline for a training run, for several training jobs end_s and each job's
// kTrainingHeadline as NAME.FIELD, else kHeadline.
std::vector<std::string> headline_fields(const std::string& results_json);

// Those values from the "results" object of a results.json (tools/results_json.hpp), as
// written there. Throws std::runtime_error naming `name` when one is missing.
std::vector<std::string> read_headline(const std::string& results_json, const std::string& name);

// point,<each swept key>,<fields...>,error: one row per point. rows[i] holds point i's
// headline when errors[i] is empty; a point that failed has empty fields and its error.
std::string sweep_csv(const Sweep& s, const std::vector<std::string>& fields,
                      const std::vector<std::vector<std::string>>& rows,
                      const std::vector<std::string>& errors);

// The long tables every point wrote (busbw.csv, flows.csv, fct_slowdown.csv) joined into one:
// point,<each swept key>,<the table's columns>, every row of every point, so that the table
// joins sweep.csv on `point`. tables[i] is point i's CSV text, empty for a point that failed;
// each must have the first one's header, or std::runtime_error names `name` and the point.
std::string long_csv(const Sweep& s, const std::vector<std::string>& tables,
                     const std::string& name);

}  // namespace fabricsim::tools
