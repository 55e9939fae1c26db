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
  std::string dataset;   // file name without .csv
  std::string data;      // path of the measured CSV
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
};
std::vector<Measured> load_measured(const std::string& csv_path);

struct ValidationRow {
  Measured measured;
  BusbwRow simulated;
  double rel_error() const {
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
  // 64 KiB: the largest.
  double median_error_1m = -1;
  double max_error_64k = -1;
};

// The accuracy bar of the issue tracker's collectives issue: median |error| <= 10% over sizes
// >= 1 MiB and <= 25% at every size >= 64 KiB.
inline constexpr double kMedianBar = 0.10;
inline constexpr double kMaxBar = 0.25;
struct Bar {
  double median = kMedianBar;  // over sizes >= 1 MiB
  double max = kMaxBar;        // over sizes >= 64 KiB
};
bool meets_bar(const ValidationResult& r, const Bar& bar = {});

// Simulates every measured size up to `max_bytes` (0: all).
ValidationResult validate(const ValidationEntry& e, std::uint64_t max_bytes,
                          const net::RunOptions* run_override = nullptr);

std::string validation_csv_header();
std::string validation_csv(const ValidationResult& r);

}  // namespace fabricsim::tools
