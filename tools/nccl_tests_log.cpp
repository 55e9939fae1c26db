#include "tools/nccl_tests_log.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "tools/scenario.hpp"

namespace fabricsim::tools {

namespace {

// Drops mpirun's output tag, "[1,0]<stdout>:".
std::string untagged(const std::string& line) {
  if (line.empty() || line[0] != '[') return line;
  const std::size_t end = line.find(">:");
  return end == std::string::npos ? line : line.substr(end + 2);
}

bool is_integer(const std::string& s) {
  if (s.empty()) return false;
  for (std::size_t i = s[0] == '-' ? 1 : 0; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return s != "-";
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
  NcclTestsLog log;
  std::set<int> ranks;
  std::string raw;
  for (int number = 1; std::getline(in, raw); ++number) {
    const std::string line = untagged(raw);
    std::istringstream ss(line);
    std::vector<std::string> tok;
    for (std::string t; ss >> t;) tok.push_back(t);
    if (tok.empty()) continue;
    if (tok[0] == "#") {
      // "# Collective test starting: all_reduce_perf"; "#  Rank  3 Group  0 Pid ..."
      if (tok.size() >= 5 && tok[1] == "Collective" && tok[3] == "starting:") {
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
        if (used != tok[5].size() || !(m.time_us > 0)) m.time_us = 0;
      } catch (const std::exception&) {
        m.time_us = 0;
      }
    } catch (const std::exception&) {
      throw ScenarioError(
          fmt::format("{}:{}: an nccl-tests result row whose busbw is not a "
                      "number: '{}'",
                      path, number, line));
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
