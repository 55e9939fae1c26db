#pragma once
// Accuracy against real nccl-tests measurements: a manifest pairs each measured dataset
// (tests/data/busbw/*.csv) with the scenario of its system and the settings of the run
// (collective, forced algorithm, GPU count); every measured size is simulated and compared.
#include <cstdint>
#include <string>
#include <vector>

#include "tools/busbw.hpp"

namespace YAML {
class Node;
}

namespace fabricsim::tools {

struct ValidationEntry {
  std::string dataset;  // file name without .csv, or the point's id
  std::string data;     // path of the measured CSV
  // A single-size point of reference_points.csv (its point_id) instead of a whole sweep.
  std::string point;
  std::string scenario;  // path of the scenario
  std::vector<std::string> sets;
  std::string gap;  // why this dataset misses the accuracy bar; empty when it meets it
  // Minutes of packet-level simulation (hundreds of GPUs): `fabricsim validate` runs it, the
  // CI accuracy test leaves it to the `scale` label.
  bool scale = false;
};

// The YAML of a manifest (`what`: "manifest", "training manifest"); ScenarioError with the
// reason when it cannot be read, and a hint when a relative path names no file (the default
// manifests are relative to the repository's top folder).
YAML::Node read_manifest(const std::string& path, const char* what);

// Reads a manifest; paths in it are relative to the manifest's folder.
std::vector<ValidationEntry> load_manifest(const std::string& path);

struct Measured {
  std::uint64_t bytes = 0;
  double busbw_gbps = 0;  // out-of-place, or in-place where the source gave only that
  double time_us = 0;     // the same run's time; 0 when the source has none
};
// Why a measured row cannot be compared, or empty: a bus bandwidth or time that is not a finite
// number >= 0 (nccl-tests prints "nan" or "inf" for a failed or zero-time size).
std::string measured_problem(const Measured& m);
std::vector<Measured> load_measured(const std::string& csv_path);
// One row of reference_points.csv (RFC 4180, quoted fields): its size, and its bus bandwidth and
// time out of place, in place or unspecified, the first the source gives. `ranks`: its GPUs.
Measured load_point(const std::string& csv_path, const std::string& point_id, int& ranks);

struct ValidationRow {
  Measured measured;
  BusbwRow simulated;
  // Simulated over measured bus bandwidth, minus one. From the times where the source has them:
  // nccl-tests prints busbw to 0.01 GB/s, too coarse below ~64 KiB (a 1 KiB all-reduce's 0.01
  // or 0.02 GB/s), while its times keep four digits; the two agree wherever busbw has them.
  // Whether the source has this size's result at all (a time, or a busbw above 0.00).
  bool measured_any() const { return measured.time_us > 0 || measured.busbw_gbps > 0; }
  double rel_error() const {
    if (measured.time_us > 0 && simulated.time_us > 0) {
      return measured.time_us / simulated.time_us - 1;
    }
    return measured.busbw_gbps > 0
               ? (simulated.busbw_gbps - measured.busbw_gbps) / measured.busbw_gbps
               : 0;
  }
};

struct ValidationResult {
  ValidationEntry entry;
  std::string collective;
  int ranks = 0, nodes = 0;
  std::vector<ValidationRow> rows;
  // Over sizes >= 1 MiB: the median |relative error| (-1: no such size); over sizes >=
  // 64 KiB: the largest; below 64 KiB, the largest (-1: no such size).
  double median_error_1m = -1;
  double max_error_64k = -1;
  double max_error_small = -1;
  // What the comparison cannot account for, said under the table (a user's log run with -g N).
  std::vector<std::string> notes;
};

// The accuracy bar of the collectives issue (issue 17): median |error| <= 5% over sizes >= 1 MiB,
// <= 15% at every size >= 64 KiB, <= 25% below.
inline constexpr double kMedianBar = 0.05;
inline constexpr double kMaxBar = 0.15;
inline constexpr double kSmallBar = 0.25;
struct Bar {
  double median = kMedianBar;  // over sizes >= 1 MiB
  double max = kMaxBar;        // over sizes >= 64 KiB
  double small = kSmallBar;    // below 64 KiB
};
bool meets_bar(const ValidationResult& r, const Bar& bar = {});

// The median of `values` (not empty).
double median(std::vector<double> values);

// Simulates every measured size up to `max_bytes` (0: all).
ValidationResult validate(const ValidationEntry& e, std::uint64_t max_bytes,
                          const net::RunOptions* run_override = nullptr);

std::string validation_csv_header();
std::string validation_csv(const ValidationResult& r);

}  // namespace fabricsim::tools
