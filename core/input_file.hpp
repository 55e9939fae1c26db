#pragma once
// Input files (scenarios, models, kernel databases, workload imports, measurements) are read
// whole. Before that, a path must name a regular file of sane size: /dev/zero would be read
// forever, a FIFO would block, and a directory opens as an empty stream on Linux.
#include <cstdint>
#include <string>
#include <vector>

namespace fabricsim::core {

// Throws std::runtime_error "PATH: cannot open the WHAT: REASON" unless `path` is a regular
// file of at most `max_bytes` bytes.
void check_input_file(const std::string& path, const char* what, std::uint64_t max_bytes);

// The fields of one line of a CSV file as RFC 4180 writes them: a quoted field may hold commas
// and doubled quotes; a trailing carriage return is dropped.
std::vector<std::string> split_csv(const std::string& line);

}  // namespace fabricsim::core
