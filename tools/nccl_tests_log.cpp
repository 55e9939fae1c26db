#include "tools/nccl_tests_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "tools/scenario.hpp"
#include "tools/validate.hpp"

namespace fabricsim::tools {

namespace {

// Drops mpirun's output tag, "[1,0]<stdout>:", or srun -l's task label, "0: " (a result row
// starts with its size and a space, never a colon).
std::string untagged(const std::string& line) {
  if (!line.empty() && line[0] == '[') {
    const std::size_t end = line.find(">:");
    return end == std::string::npos ? line : line.substr(end + 2);
  }
  const std::size_t digits = line.find_first_not_of(" 0123456789");
  if (digits != std::string::npos && digits > 0 && line[digits] == ':' &&
      line.find_first_of("0123456789") < digits) {
    return line.substr(digits + 1);
  }
  return line;
}

bool is_integer(const std::string& s) {
  if (s.empty()) return false;
  for (std::size_t i = s[0] == '-' ? 1 : 0; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return s != "-";
}

// A number as nccl-tests' JSON writes it (printf "%lf"; "nan" as a string); nullopt otherwise.
std::optional<double> json_number(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// nccl-tests' `-J` output (src/util.cu, JSON_FILE_VERSION 3): {"args": [argv...], "config":
// {"nthreads", "ngpus", ..., "devices": [one per process]}, "results": [{"size", "count", ...,
// "out_of_place": {"time", "alg_bw", "bus_bw", "nwrong"} or null, "in_place": {...}}], ...}.
NcclTestsLog read_nccl_tests_json(std::istream& in, const std::string& path) {
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    throw ScenarioError(path + ": not valid JSON (nccl-tests' -J output is one JSON object)");
  }
  const auto results = doc.find("results");
  if (results == doc.end() || !results->is_array()) {
    throw ScenarioError(path + ": no \"results\" list: not nccl-tests' -J output");
  }
  NcclTestsLog log;
  if (const auto args = doc.find("args");
      args != doc.end() && args->is_array() && !args->empty() && (*args)[0].is_string()) {
    // The program nccl-tests ran (all_reduce_perf, ...); another name says nothing of it.
    const std::string binary =
        std::filesystem::path((*args)[0].get<std::string>()).filename().string();
    const std::string name = fabricsim_collective(binary);
    if (is_collective(name)) {
      log.binary = binary;
      log.collective = name;
    }
  }
  if (const auto config = doc.find("config"); config != doc.end() && config->is_object()) {
    // One device entry per process; each process runs nthreads x ngpus ranks.
    const auto devices = config->find("devices");
    const std::optional<double> gpus = json_number(*config, "ngpus");
    const std::optional<double> threads = json_number(*config, "nthreads");
    if (devices != config->end() && devices->is_array() && gpus && threads && *gpus >= 1 &&
        *gpus <= 1024 && *threads >= 1 && *threads <= 1024 && devices->size() <= (1u << 20)) {
      log.ranks =
          static_cast<int>(devices->size()) * static_cast<int>(*gpus) * static_cast<int>(*threads);
      log.gpus_per_thread = static_cast<int>(*gpus);
    }
  }
  std::size_t index = 0;
  for (const nlohmann::json& r : *results) {
    ++index;
    const std::optional<double> size = r.is_object() ? json_number(r, "size") : std::nullopt;
    if (!size || !(*size >= 0 && *size <= 0x1p62)) {
      throw ScenarioError(fmt::format("{}: result {} has no size in bytes", path, index));
    }
    // Out of place, or in place where the run has only that (nccl-tests -R, or a null body).
    const nlohmann::json* body = nullptr;
    for (const char* key : {"out_of_place", "in_place"}) {
      const auto it = r.find(key);
      if (it != r.end() && it->is_object()) {
        body = &*it;
        break;
      }
    }
    if (!body || *size == 0) continue;  // NCCL launches nothing for no bytes
    const std::optional<double> busbw = json_number(*body, "bus_bw");
    const std::optional<double> time = json_number(*body, "time");
    if (!busbw && !time) {
      // nccl-tests writes "nan" for a size it could not time: not a measurement, as in its log.
      throw ScenarioError(fmt::format("{}: result {} (size {}): no bus bandwidth and no time", path,
                                      index, static_cast<std::uint64_t>(*size)));
    }
    if (const std::optional<double> wrong = json_number(*body, "nwrong"); wrong && *wrong > 0) {
      throw ScenarioError(fmt::format(
          "{}: result {} (size {}): nccl-tests counted {} wrong elements (nwrong): the run's "
          "results were wrong, so its times are not a measurement to compare",
          path, index, static_cast<std::uint64_t>(*size), *wrong));
    }
    Measured m;
    m.bytes = static_cast<std::uint64_t>(*size);
    m.busbw_gbps = busbw.value_or(0);
    m.time_us = time.value_or(0);
    if (const std::string why = measured_problem(m); !why.empty()) {
      throw ScenarioError(fmt::format("{}: result {} (size {}): {}", path, index, m.bytes, why));
    }
    log.rows.push_back(m);
  }
  if (log.rows.empty()) throw ScenarioError(path + ": nccl-tests' -J output with no result");
  return log;
}

}  // namespace

std::string fabricsim_collective(std::string binary) {
  for (const char* suffix : {"_mpi", "_perf"}) {
    const std::string s = suffix;
    if (binary.size() > s.size() && binary.compare(binary.size() - s.size(), s.size(), s) == 0) {
      binary.erase(binary.size() - s.size());
    }
  }
  std::string out;
  for (char c : binary) {
    if (c != '_') out += c;
  }
  return out;
}

bool is_collective(const std::string& name) {
  static constexpr const char* kCollectives[] = {
      "allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv"};
  return std::find(std::begin(kCollectives), std::end(kCollectives), name) !=
         std::end(kCollectives);
}

bool is_nccl_tests_log(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  for (int n = 0; n < 5 && std::getline(in, line); ++n) {
    if (line.find("size_bytes") != std::string::npos) return false;  // a CSV dataset's header
  }
  return true;
}

NcclTestsLog read_nccl_tests_log(const std::string& path) {
  std::ifstream in = open_input(path, "nccl-tests log", 64u << 20);
  in >> std::ws;
  if (in.peek() == '{') return read_nccl_tests_json(in, path);
  NcclTestsLog log;
  std::set<int> ranks;
  std::string raw;
  for (int number = 1; std::getline(in, raw); ++number) {
    const std::string line = untagged(raw);
    std::istringstream ss(line);
    std::vector<std::string> tok;
    for (std::string t; ss >> t;) tok.push_back(t);
    if (tok.empty()) continue;
    // "# nThread 1 nGpus 1 ..." opens a run: a second one after results would mix two tables
    // (of another collective, perhaps) into one dataset.
    if (tok.size() >= 2 && tok[0] == "#" && tok[1] == "nThread" && !log.rows.empty()) {
      throw ScenarioError(fmt::format(
          "{}:{}: a second nccl-tests run starts here; this file holds several: give each its "
          "own file",
          path, number));
    }
    if (tok[0] == "#") {
      // "# Collective test starting: all_reduce_perf"; "#  Rank  3 Group  0 Pid ..."; "# nThread
      // 1 nGpus 4 minBytes ..."
      if (tok.size() >= 5 && tok[1] == "nThread" && tok[3] == "nGpus" && is_integer(tok[4]) &&
          tok[4].size() <= 6) {
        log.gpus_per_thread = std::stoi(tok[4]);
      } else if (tok.size() >= 5 && tok[1] == "Collective" && tok[3] == "starting:") {
        log.binary = tok[4];
        log.collective = fabricsim_collective(tok[4]);
      } else if (tok.size() >= 3 && tok[1] == "Rank" && is_integer(tok[2])) {
        ranks.insert(std::stoi(tok[2]));
      }
      continue;
    }
    // A result row: size, count, type, redop, root, then the out-of-place time, algbw, busbw.
    if (tok.size() < 8 || !is_integer(tok[0]) || !is_integer(tok[1]) || !is_integer(tok[4])) {
      continue;
    }
    Measured m;
    try {
      std::size_t used = 0;
      m.bytes = std::stoull(tok[0]);
      m.busbw_gbps = std::stod(tok[7], &used);
      if (used != tok[7].size()) throw std::invalid_argument(tok[7]);
      // The time, where it is a plain number (the error is then taken from it: tools/validate.hpp).
      try {
        m.time_us = std::stod(tok[5], &used);
        if (used != tok[5].size()) m.time_us = 0;
      } catch (const std::exception&) {
        m.time_us = 0;
      }
    } catch (const std::exception&) {
      throw ScenarioError(
          fmt::format("{}:{}: an nccl-tests result row whose busbw is not a "
                      "number: '{}'",
                      path, number, line));
    }
    // NCCL launches nothing for no bytes (all-gather -b 8 on many ranks).
    if (m.bytes == 0) continue;
    // The out-of-place #wrong column (N/A when nccl-tests ran with -c 0): a run whose results
    // were wrong is not one to compare a simulation with.
    if (tok.size() >= 9 && is_integer(tok[8]) && tok[8] != "0") {
      throw ScenarioError(fmt::format(
          "{}:{}: nccl-tests counted {} wrong elements at this size (#wrong): the run's results "
          "were wrong, so its times are not a measurement to compare; fix the run or drop the row",
          path, number, tok[8]));
    }
    if (const std::string why = measured_problem(m); !why.empty()) {
      throw ScenarioError(fmt::format("{}:{}: {} in '{}'", path, number, why, line));
    }
    log.rows.push_back(m);
  }
  if (log.rows.empty()) {
    throw ScenarioError(path +
                        ": no nccl-tests result row (size count type redop root time algbw "
                        "busbw ...) in this file");
  }
  log.ranks = static_cast<int>(ranks.size());
  return log;
}

}  // namespace fabricsim::tools
