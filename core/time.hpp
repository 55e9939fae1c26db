#pragma once
// Simulated time: integer picoseconds. Never floating point, so that the same scenario gives
// the same event order on every machine and thread count.
#include <cstdint>
#include <limits>
#include <string>

namespace fabricsim::core {

using Time = std::int64_t;  // picoseconds

inline constexpr Time kPicosecond = 1;
inline constexpr Time kNanosecond = 1000 * kPicosecond;
inline constexpr Time kMicrosecond = 1000 * kNanosecond;
inline constexpr Time kMillisecond = 1000 * kMicrosecond;
inline constexpr Time kSecond = 1000 * kMillisecond;
inline constexpr Time kTimeMax = std::numeric_limits<Time>::max();

// "1.5us", "20ns", "3s": the largest unit that keeps the value >= 1, up to 4 significant digits.
std::string format_time(Time t);

}  // namespace fabricsim::core
