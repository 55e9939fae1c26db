#pragma once
#include <cstdint>

namespace fabricsim::tools {

// Peak resident set size of this process (Linux VmHWM), 0 where unknown.
std::uint64_t peak_rss_bytes();

}  // namespace fabricsim::tools
