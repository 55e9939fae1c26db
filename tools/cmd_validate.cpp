// `fabricsim validate`: simulated vs measured bus bandwidth for every dataset of the
// validation manifest, as a table and a CSV (tools/plot validate draws it); with
// `--suite training`, simulated vs published training iteration times. A CI gate: the exit
// status is 0 only when every selected dataset (or case) meets its bar.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/parallel.hpp"
#include "core/ranks.hpp"
#include "tools/cli_args.hpp"
#include "tools/commands.hpp"
#include "tools/net_report.hpp"
#include "tools/units.hpp"
#include "tools/validate.hpp"
#include "tools/validate_training.hpp"

namespace po = boost::program_options;

namespace fabricsim::tools {

namespace {

// A --dataset that names nothing in the manifest is a typo, not an empty selection.
void check_selection(const std::vector<std::string>& only, const std::vector<std::string>& names,
                     const std::string& manifest) {
  for (const std::string& o : only) {
    if (std::find(names.begin(), names.end(), o) != names.end()) continue;
    std::string known;
    for (const std::string& n : names) known += "\n  " + n;
    throw UsageError(
        fmt::format("--dataset {}: no such dataset or case in {}; it has:{}", o, manifest, known));
  }
}

// "10" or "10%": a bar in percent, as a fraction.
double parse_percent(const std::string& text, const char* flag) {
  std::string t = text;
  if (!t.empty() && t.back() == '%') t.pop_back();
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != t.size() || !(v >= 0) || !std::isfinite(v)) {
    throw UsageError(
        fmt::format("--{} {}: expected a percentage >= 0, e.g. 10 or 10%", flag, text));
  }
  return v / 100;
}

// 0: every selected dataset met its bar; 1: one missed it, or failed to run, or none ran.
int gate(int ran, int missed, int failed) {
  if (ran == 0) {
    std::fprintf(stderr, "error: no dataset was run\n");
    return 1;
  }
  return missed || failed ? 1 : 0;
}

// `all_levels`: each case at flow level and analytically too, in more columns (the bar, the exit
// status and the CSV stay the first run's).
int validate_training_suite(const std::string& manifest, const std::vector<std::string>& only,
                            const std::vector<std::string>& sets, double bar,
                            const std::string& csv, bool all_levels, unsigned jobs) {
  static constexpr const char* kOtherLevels[] = {"flow", "analytical"};
  int failed = 0, met = 0, total = 0, other_met[2] = {0, 0};
  std::string table = "case,network,measured_s,simulated_s,error\n";
  const std::vector<TrainingCase> cases = load_training_manifest(manifest);
  std::vector<std::string> names;
  for (const TrainingCase& c : cases) names.push_back(c.name);
  check_selection(only, names, manifest);
  const std::string bar_text = fmt::format("bar (within {:g}%)", 100 * bar);
  if (all_levels) {
    std::printf("%-34s %-10s %10s %10s %8s %10s %8s %10s %8s  %s\n", "case", "network", "measured",
                "packet", "error", "flow", "error", "analytical", "error",
                (bar_text + ", packet level").c_str());
  } else {
    std::printf("%-34s %-10s %10s %10s %8s  %s\n", "case", "network", "measured", "simulated",
                "error", bar_text.c_str());
  }
  std::fflush(stdout);
  std::vector<const TrainingCase*> selected;
  for (const TrainingCase& c : cases) {
    if (only.empty() || std::find(only.begin(), only.end(), c.name) != only.end()) {
      selected.push_back(&c);
    }
  }
  struct Outcome {
    std::optional<TrainingCheck> r;
    std::optional<TrainingCheck> other[2];
    std::string error;
  };
  std::vector<Outcome> out(selected.size());
  const auto work = [&](std::size_t i) {
    const TrainingCase& c = *selected[i];
    try {
      out[i].r = validate_training(c, sets);
      for (int k = 0; all_levels && k < 2; ++k) {
        std::vector<std::string> level_sets = sets;
        level_sets.push_back(std::string("simulation.fidelity=") + kOtherLevels[k]);
        out[i].other[k] = validate_training(c, level_sets);
      }
    } catch (const std::exception& ex) {
      out[i].error = ex.what();
    }
  };
  const auto report = [&](std::size_t i) {
    const TrainingCase& c = *selected[i];
    Outcome& o = out[i];
    if (!o.error.empty()) {
      std::fprintf(stderr, "error: %s: %s\n", c.name.c_str(), o.error.c_str());
      ++failed;
      return;
    }
    const TrainingCheck& r = *o.r;
    const char* mode = workload::name(r.report.comm);
    const bool ok = std::abs(r.error()) <= bar;
    met += ok;
    ++total;
    table += fmt::format("{},{},{},{},{}\n", c.name, mode, c.measured_s, r.report.iteration_s,
                         r.error());
    std::string others;
    for (int k = 0; all_levels && k < 2; ++k) {
      others += fmt::format(" {:9.3f}s {:+7.1f}%", o.other[k]->report.iteration_s,
                            100 * o.other[k]->error());
      other_met[k] += std::abs(o.other[k]->error()) <= bar;
    }
    std::printf("%-34s %-10s %9.3fs %9.3fs %+7.1f%%%s  %s\n", c.name.c_str(), mode, c.measured_s,
                r.report.iteration_s, 100 * r.error(), others.c_str(), ok ? "met" : "MISSED");
    std::fflush(stdout);
    o = Outcome{};  // its report is done: free it
  };
  core::parallel_in_order(std::max(1u, jobs), selected.size(), work, report);
  std::printf("%d of %d cases meet the bar\n", met, total);
  for (int k = 0; all_levels && k < 2; ++k) {
    std::printf("%s: %d of %d cases meet the bar\n", kOtherLevels[k], other_met[k], total);
  }
  if (!csv.empty()) {
    write_file_atomically(csv, table);
    std::printf("wrote %s\n", csv.c_str());
  }
  return gate(total + failed, total - met, failed);
}

}  // namespace

int cmd_validate(const std::vector<std::string>& args) {
  po::options_description opts("fabricsim validate [options]");
  std::string manifest, csv, max_bytes, suite = "busbw", max_median, max_error, max_small, measured,
                                        scenario;
  std::string fidelity = "packet";
  std::vector<std::string> only, sets;
  unsigned jobs = core::machine_threads();
  opts.add_options()("help,h", "show this help")(
      "suite", po::value(&suite),
      "busbw (nccl-tests datasets) or training (published iteration times)")(
      "manifest", po::value(&manifest),
      "datasets and their scenarios (default: scenarios/validation/manifest.yaml, or "
      "scenarios/validation/training/manifest.yaml with --suite training)")(
      "dataset", po::value(&only)->composing(), "only this dataset or case (repeatable)")(
      "max-bytes", po::value(&max_bytes), "skip measured sizes above this, e.g. 1GiB")(
      "csv", po::value(&csv), "write every row to this CSV")(
      "max-median-error", po::value(&max_median),
      "busbw bar: median |error| over sizes >= 1 MiB, in percent (default 5)")(
      "max-error", po::value(&max_error),
      "busbw bar: largest |error| at sizes >= 64 KiB, in percent (default 15); training: "
      "|error| of the iteration time (default 15)")(
      "max-small-error", po::value(&max_small),
      "busbw bar: largest |error| below 64 KiB, in percent (default 25)")(
      "measured", po::value(&measured),
      "your own run instead of the manifest: nccl-tests' stdout (an *_perf log), its -J JSON "
      "output or a dataset CSV; needs --scenario")(
      "scenario", po::value(&scenario), "with --measured: the scenario of the measured system")(
      "set", po::value(&sets)->composing(),
      "override a scenario key in every dataset or case, after the manifest's own (repeatable; "
      "e.g. training.network=packet, simulation.flow_transfers=whole)")(
      "ignore-known-gaps",
      "a dataset the manifest marks as a known gap does not fail the run when it misses")(
      "scale",
      "also the cluster-scale datasets (scale: true in the manifest; minutes each at packet "
      "level); --dataset runs a named one without it")(
      "jobs,j", po::value(&jobs),
      "datasets (or cases) simulated at once (default: as many as the machine runs threads); "
      "the output is the same for any number")(
      "fidelity", po::value(&fidelity),
      "packet (default), flow (fluid flows sharing links max-min), analytical (closed forms: "
      "NCCL's tuning model's own times, no network run), or all (every level side by side; the "
      "bar, the exit status and the CSV stay the packet level's)");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::printf("%s\n", (std::ostringstream() << opts).str().c_str());
    return 0;
  }
  if (fidelity != "packet" && fidelity != "flow" && fidelity != "analytical" && fidelity != "all") {
    throw UsageError("--fidelity must be packet, flow, analytical or all, not '" + fidelity + "'");
  }
  if (vm.count("jobs") && jobs == 0) throw UsageError("-j 0: run at least one at once");
  // Under mpirun every run spans the ranks: one dataset at a time (runs side by side on threads
  // would not pair up across the ranks), and not the flow level, which runs on one LP.
  if (core::Ranks::world().size() > 1) {
    if (vm.count("jobs") && jobs > 1) {
      throw UsageError("-j " + std::to_string(jobs) +
                       ": under mpirun each run spans the ranks; leave -j at 1");
    }
    if (fidelity == "flow" || fidelity == "all") {
      throw UsageError("--fidelity " + fidelity +
                       ": the flow level runs on one logical process, not over MPI ranks; run "
                       "it without mpirun");
    }
    jobs = 1;
  }
  if (suite == "training") {
    if (!measured.empty() || !scenario.empty()) {
      throw UsageError(
          "--measured and --scenario compare nccl-tests' bus bandwidth: --suite busbw");
    }
    if (fidelity != "packet" && fidelity != "all")
      sets.push_back("simulation.fidelity=" + fidelity);
    if (!max_median.empty() || !max_small.empty()) {
      throw UsageError(
          "--max-median-error and --max-small-error apply to --suite busbw; use --max-error");
    }
    return validate_training_suite(
        manifest.empty() ? "scenarios/validation/training/manifest.yaml" : manifest, only, sets,
        max_error.empty() ? kTrainingBar : parse_percent(max_error, "max-error"), csv,
        fidelity == "all", std::max(1u, jobs));
  }
  if (suite != "busbw") {
    std::fprintf(stderr, "error: --suite must be busbw or training, not '%s'\n", suite.c_str());
    return 2;
  }
  std::vector<ValidationEntry> entries;
  if (!measured.empty() || !scenario.empty()) {
    if (measured.empty() || scenario.empty()) {
      throw UsageError("--measured and --scenario go together");
    }
    if (!manifest.empty() || !only.empty()) {
      throw UsageError("--measured replaces the manifest: drop --manifest/--dataset");
    }
    ValidationEntry e;
    e.dataset = std::filesystem::path(measured).stem().string();
    e.data = measured;
    e.scenario = scenario;
    e.sets = sets;
    entries.push_back(e);
  } else {
    if (manifest.empty()) manifest = "scenarios/validation/manifest.yaml";
    entries = load_manifest(manifest);
    for (ValidationEntry& e : entries) e.sets.insert(e.sets.end(), sets.begin(), sets.end());
  }
  if (fidelity == "analytical" || fidelity == "flow") {
    for (ValidationEntry& e : entries) e.sets.push_back("simulation.fidelity=" + fidelity);
  }
  const std::uint64_t cap = max_bytes.empty() ? 0 : parse_bytes(max_bytes);
  Bar bar;
  if (!max_median.empty()) bar.median = parse_percent(max_median, "max-median-error");
  if (!max_error.empty()) bar.max = parse_percent(max_error, "max-error");
  if (!max_small.empty()) bar.small = parse_percent(max_small, "max-small-error");
  const bool ignore_gaps = vm.count("ignore-known-gaps") > 0;
  std::string table = validation_csv_header();
  int failed = 0, met = 0, total = 0, missed = 0, empty = 0;
  std::vector<std::string> names;
  for (const ValidationEntry& e : entries) names.push_back(e.dataset);
  check_selection(only, names, manifest);
  const bool both = fidelity == "all";
  const std::string bar_text =
      fmt::format("bar (median <= {:g}%, max <= {:g}%, below 64K <= {:g}%)", 100 * bar.median,
                  100 * bar.max, 100 * bar.small);
  if (both) {
    std::printf("%-58s %5s %5s %9s %9s %9s %9s %9s %9s %9s  %s\n", "dataset", "ranks", "sizes",
                "med>=1M", "max>=64K", "max<64K", "flow med", "flow max", "model med", "model max",
                (bar_text + ", packet level").c_str());
  } else {
    std::printf("%-58s %5s %5s %9s %9s %9s  %s\n", "dataset", "ranks", "sizes", "med>=1M",
                "max>=64K", "max<64K", bar_text.c_str());
  }
  std::fflush(stdout);  // before any error on stderr
  // Every row's |error| at packet level, for the overall medians.
  std::vector<double> all_errors, big_errors;
  int model_met = 0, model_total = 0, flow_met = 0, flow_total = 0;
  const bool scale = vm.count("scale") > 0;
  int skipped = 0;
  std::vector<const ValidationEntry*> selected;
  for (const ValidationEntry& e : entries) {
    if (!only.empty() && std::find(only.begin(), only.end(), e.dataset) == only.end()) continue;
    if (e.scale && !scale && only.empty()) {
      ++skipped;
      continue;
    }
    selected.push_back(&e);
  }
  // The packet level's result, and with --fidelity all the flow level's and NCCL's model's.
  struct Outcome {
    std::optional<ValidationResult> r;
    std::string error;
    std::optional<ValidationResult> flow, model;
    std::string flow_error, model_error;
    bool model_na = false;  // send/recv, all-to-all: NCCL's model does not time them
  };
  std::vector<Outcome> out(selected.size());
  const auto work = [&](std::size_t i) {
    const ValidationEntry& e = *selected[i];
    Outcome& o = out[i];
    try {
      o.r = validate(e, cap);
    } catch (const std::exception& ex) {
      o.error = ex.what();
      return;
    }
    if (!both) return;
    ValidationEntry f = e;
    f.sets.push_back("simulation.fidelity=flow");
    try {
      o.flow = validate(f, cap);
    } catch (const std::exception& ex) {
      o.flow_error = ex.what();
    }
    ValidationEntry a = e;
    a.sets.push_back("simulation.fidelity=analytical");
    try {
      o.model = validate(a, cap);
    } catch (const ScenarioError&) {
      o.model_na = true;
    } catch (const std::exception& ex) {
      o.model_error = ex.what();
    }
  };
  const auto pct = [](double v) {
    return v < 0 ? std::string("-") : fmt::format("{:.1f}%", 100 * v);
  };
  const auto report = [&](std::size_t i) {
    const ValidationEntry& e = *selected[i];
    Outcome& o = out[i];
    if (!o.error.empty()) {
      // One broken dataset should not hide the others' results.
      std::fprintf(stderr, "error: %s: %s\n", e.dataset.c_str(), o.error.c_str());
      ++failed;
      return;
    }
    const ValidationResult& r = *o.r;
    if (r.rows.empty()) {
      // Nothing compared is not a result: it neither meets the bar nor misses it.
      std::printf("%-58s %5d %5d  skipped: no measured size at or below --max-bytes\n",
                  e.dataset.c_str(), r.ranks, 0);
      ++empty;
      o = Outcome{};
      return;
    }
    table += validation_csv(r);
    for (const ValidationRow& row : r.rows) {
      if (!row.measured_any()) continue;
      all_errors.push_back(std::fabs(row.rel_error()));
      if (row.measured.bytes >= (1u << 20)) big_errors.push_back(all_errors.back());
    }
    const bool ok = meets_bar(r, bar);
    met += ok;
    ++total;
    missed += !ok && !(ignore_gaps && !e.gap.empty());
    // The flow level, and NCCL's own model where it times the operation, beside the packet level.
    std::string model;
    if (both) {
      if (o.flow) {
        model =
            fmt::format(" {:>9} {:>9}", pct(o.flow->median_error_1m), pct(o.flow->max_error_64k));
        flow_met += meets_bar(*o.flow, bar);
        ++flow_total;
      } else {
        std::fprintf(stderr, "error: %s (flow): %s\n", e.dataset.c_str(), o.flow_error.c_str());
        model = fmt::format(" {:>9} {:>9}", "error", "error");
      }
      if (o.model) {
        model +=
            fmt::format(" {:>9} {:>9}", pct(o.model->median_error_1m), pct(o.model->max_error_64k));
        model_met += meets_bar(*o.model, bar);
        ++model_total;
      } else if (o.model_na) {
        model += fmt::format(" {:>9} {:>9}", "n/a", "n/a");
      } else {
        std::fprintf(stderr, "error: %s (analytical): %s\n", e.dataset.c_str(),
                     o.model_error.c_str());
        model += fmt::format(" {:>9} {:>9}", "error", "error");
      }
    }
    std::printf("%-58s %5d %5zu %9s %9s %9s%s  %s\n", e.dataset.c_str(), r.ranks, r.rows.size(),
                pct(r.median_error_1m).c_str(), pct(r.max_error_64k).c_str(),
                pct(r.max_error_small).c_str(), model.c_str(),
                ok              ? "met"
                : e.gap.empty() ? "MISSED"
                                : "missed (known gap, see manifest)");
    for (const std::string& note : r.notes) std::printf("  note: %s\n", note.c_str());
    std::fflush(stdout);
    o = Outcome{};  // its report is done: free it
  };
  core::parallel_in_order(std::max(1u, jobs), selected.size(), work, report);
  std::printf("%d of %d datasets meet the bar\n", met, total);
  if (!all_errors.empty()) {
    const std::string big =
        big_errors.empty() ? "-" : fmt::format("{:.1f}%", 100 * median(big_errors));
    std::printf(
        "median |error| over every measured row: %.1f%% (%zu rows); over sizes >= 1 MiB: "
        "%s (%zu rows)\n",
        100 * median(all_errors), all_errors.size(), big.c_str(), big_errors.size());
  }
  if (skipped) {
    std::printf("%d cluster-scale datasets not run (minutes each): add --scale\n", skipped);
  }
  if (total == 0 && empty > 0) {
    std::fprintf(stderr, "error: no measured size was compared (--max-bytes %s)\n",
                 max_bytes.c_str());
    return 1;
  }
  if (both) {
    std::printf("flow level: %d of %d datasets meet the bar\n", flow_met, flow_total);
    std::printf("NCCL's model (analytical): %d of %d datasets meet the bar\n", model_met,
                model_total);
  }
  if (!csv.empty()) {
    write_file_atomically(csv, table);
    std::printf("wrote %s\n", csv.c_str());
  }
  return gate(total + failed, missed, failed);
}

}  // namespace fabricsim::tools
