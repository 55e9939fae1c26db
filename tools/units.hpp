#pragma once
// Quantities with units, as written in scenario files and on the command line.
#include <string>
#include <string_view>

#include "core/time.hpp"

namespace fabricsim::tools {

// "1us", "1.5ns", "20 ms", "3s", "250ps" -> picoseconds. A bare number is an error: a time
// without its unit is the classic simulator bug (a latency documented in us and read in ns).
// Throws std::invalid_argument with a message that says what was expected.
core::Time parse_time(std::string_view text);

}  // namespace fabricsim::tools
