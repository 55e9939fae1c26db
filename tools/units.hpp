#pragma once
// Quantities with units, as written in scenario files and on the command line.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/time.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::tools {

// "1us", "1.5ns", "20 ms", "3s", "250ps" -> picoseconds. A bare number is an error: a time
// without its unit is the classic simulator bug (a latency documented in us and read in ns).
// Throws std::invalid_argument with a message that says what was expected.
core::Time parse_time(std::string_view text);

// "4096B", "2MB" (2,000,000), "64KiB" (65,536), "1.5GB", "32MiB". K/M/G/T are powers of 1000,
// Ki/Mi/Gi/Ti powers of 1024: buffer sizes are quoted both ways and a silent 5% difference is
// worse than an error. Even a plain integer needs its "B". The result must be whole bytes.
std::uint64_t parse_bytes(std::string_view text);

// "100Gbps", "400 Gbps", "25Mbps", "1.6Tbps" -> bits per second; "450GBps" is bytes per second
// (x 8), as NVLink bandwidth is quoted. Prefixes are decimal (K or k, M, G, T).
net::Bps parse_rate(std::string_view text);

// Exact, re-parsable renderings for echoing a resolved configuration: the largest unit that
// divides the value ("67108864ns", "2MB", "64KiB", "1600Gbps"); kTimeMax is "inf".
std::string format_time_exact(core::Time t);
std::string format_bytes(std::uint64_t bytes);
std::string format_rate(net::Bps rate);

}  // namespace fabricsim::tools
