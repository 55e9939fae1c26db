#include "tools/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace fabricsim::tools {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

core::Time parse_time(std::string_view text) {
  const std::string_view s = trim(text);
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' ||
                          s[i] == 'e' || s[i] == 'E' || s[i] == '+' || s[i] == '-')) {
    // 'e' is an exponent only when followed by a digit or sign; otherwise it starts a unit.
    if ((s[i] == 'e' || s[i] == 'E') &&
        !(i + 1 < s.size() && (std::isdigit(static_cast<unsigned char>(s[i + 1])) ||
                               s[i + 1] == '+' || s[i + 1] == '-'))) {
      break;
    }
    ++i;
  }
  const std::string_view number = s.substr(0, i);
  const std::string_view unit = trim(s.substr(i));
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size()) {
    throw std::invalid_argument("'" + std::string(text) +
                                "' is not a time: expected a number with a unit, e.g. 1.5us");
  }
  core::Time scale = 0;
  if (unit == "ps")
    scale = core::kPicosecond;
  else if (unit == "ns")
    scale = core::kNanosecond;
  else if (unit == "us")
    scale = core::kMicrosecond;
  else if (unit == "ms")
    scale = core::kMillisecond;
  else if (unit == "s")
    scale = core::kSecond;
  else if (unit.empty()) {
    throw std::invalid_argument("'" + std::string(text) + "' has no unit: write e.g. " +
                                std::string(number) + "us");
  } else {
    throw std::invalid_argument("'" + std::string(text) + "' has unknown time unit '" +
                                std::string(unit) + "' (use ps, ns, us, ms or s)");
  }
  const double ps = value * static_cast<double>(scale);
  if (!std::isfinite(ps) || ps < 0 || ps > 9.2e18) {
    throw std::invalid_argument("'" + std::string(text) + "' is out of range (0 to ~100 days)");
  }
  return static_cast<core::Time>(std::llround(ps));
}

}  // namespace fabricsim::tools
