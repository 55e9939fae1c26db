#include "tools/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>

namespace fabricsim::tools {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

struct Quantity {
  std::string_view number;  // as written, for messages
  std::string_view unit;
  double value = 0;
  bool ok = false;  // the number part parsed completely
};

// Splits "1.5e3 us" into its number and unit.
Quantity split(std::string_view text) {
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
  Quantity q;
  q.number = s.substr(0, i);
  q.unit = trim(s.substr(i));
  const auto [end, ec] =
      std::from_chars(q.number.data(), q.number.data() + q.number.size(), q.value);
  q.ok = !q.number.empty() && ec == std::errc() && end == q.number.data() + q.number.size();
  return q;
}

std::string quote(std::string_view text) {
  return "'" + std::string(text) + "'";
}

// `value` x `scale` as a whole count, or an explanation of why it is not one.
std::uint64_t whole(std::string_view text, double value, double scale, const char* what,
                    double max) {
  const double v = value * scale;
  if (!std::isfinite(v) || v < 0 || v >= max) {
    throw std::invalid_argument(quote(text) + " is out of range for " + what);
  }
  const double r = std::round(v);
  // Decimal fractions ("1.1KB") are not exact in binary: allow rounding noise, not half a byte.
  if (std::abs(v - r) > 1e-6 * std::max(1.0, v)) {
    throw std::invalid_argument(quote(text) + " is not a whole number of " + what);
  }
  return static_cast<std::uint64_t>(r);
}

}  // namespace

core::Time parse_time(std::string_view text) {
  const Quantity q = split(text);
  if (!q.ok) {
    throw std::invalid_argument(quote(text) +
                                " is not a time: expected a number with a unit, e.g. 1.5us");
  }
  core::Time scale = 0;
  if (q.unit == "ps")
    scale = core::kPicosecond;
  else if (q.unit == "ns")
    scale = core::kNanosecond;
  else if (q.unit == "us")
    scale = core::kMicrosecond;
  else if (q.unit == "ms")
    scale = core::kMillisecond;
  else if (q.unit == "s")
    scale = core::kSecond;
  else if (q.unit.empty()) {
    throw std::invalid_argument(quote(text) + " has no unit: write e.g. " + std::string(q.number) +
                                "us");
  } else {
    throw std::invalid_argument(quote(text) + " has unknown time unit " + quote(q.unit) +
                                " (use ps, ns, us, ms or s)");
  }
  const double ps = q.value * static_cast<double>(scale);
  if (!std::isfinite(ps) || ps < 0 || ps > 9.2e18) {
    throw std::invalid_argument(quote(text) + " is out of range (0 to ~100 days)");
  }
  return static_cast<core::Time>(std::llround(ps));
}

std::uint64_t parse_bytes(std::string_view text) {
  const Quantity q = split(text);
  if (!q.ok) {
    throw std::invalid_argument(quote(text) +
                                " is not a size: expected a number with a unit, e.g. 4096B or 2MB");
  }
  struct Unit {
    std::string_view name;
    double scale;
  };
  static constexpr std::array<Unit, 10> kUnits{{{"B", 1},
                                                {"KB", 1e3},
                                                {"kB", 1e3},
                                                {"MB", 1e6},
                                                {"GB", 1e9},
                                                {"TB", 1e12},
                                                {"KiB", 1024.0},
                                                {"MiB", 1024.0 * 1024},
                                                {"GiB", 1024.0 * 1024 * 1024},
                                                {"TiB", 1024.0 * 1024 * 1024 * 1024}}};
  if (q.unit.empty()) {
    throw std::invalid_argument(quote(text) + " has no unit: write e.g. " + std::string(q.number) +
                                "B (or KB, MB, GB, KiB, MiB, GiB)");
  }
  for (const Unit& u : kUnits) {
    if (q.unit == u.name) return whole(text, q.value, u.scale, "bytes", 1.8446744073709552e19);
  }
  throw std::invalid_argument(quote(text) + " has unknown size unit " + quote(q.unit) +
                              " (use B, KB, MB, GB, TB = powers of 1000, or KiB, MiB, GiB, TiB "
                              "= powers of 1024)");
}

net::Bps parse_rate(std::string_view text) {
  const Quantity q = split(text);
  if (!q.ok) {
    throw std::invalid_argument(quote(text) +
                                " is not a rate: expected a number with a unit, e.g. 100Gbps");
  }
  if (q.unit.empty()) {
    throw std::invalid_argument(quote(text) + " has no unit: write e.g. " + std::string(q.number) +
                                "Gbps (bits) or " + std::string(q.number) + "GBps (bytes)");
  }
  // "<prefix>bps" (bits) or "<prefix>Bps" (bytes); anything else is refused, not guessed.
  const std::string_view u = q.unit;
  double scale = 0;
  if (u.size() >= 3 && u.substr(u.size() - 2) == "ps" &&
      (u[u.size() - 3] == 'b' || u[u.size() - 3] == 'B')) {
    const std::string_view prefix = u.substr(0, u.size() - 3);
    const double per = u[u.size() - 3] == 'B' ? 8.0 : 1.0;
    if (prefix.empty())
      scale = per;
    else if (prefix == "K" || prefix == "k")
      scale = per * 1e3;
    else if (prefix == "M")
      scale = per * 1e6;
    else if (prefix == "G")
      scale = per * 1e9;
    else if (prefix == "T")
      scale = per * 1e12;
  }
  if (scale == 0) {
    throw std::invalid_argument(quote(text) + " has unknown rate unit " + quote(q.unit) +
                                " (use bps, Kbps, Mbps, Gbps, Tbps for bits per second, or Bps, "
                                "KBps, MBps, GBps, TBps for bytes per second)");
  }
  return whole(text, q.value, scale, "bits per second", 1.8446744073709552e19);
}

std::string format_time_exact(core::Time t) {
  if (t == core::kTimeMax) return "inf";
  struct Unit {
    core::Time scale;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{core::kSecond, "s"},
                                    {core::kMillisecond, "ms"},
                                    {core::kMicrosecond, "us"},
                                    {core::kNanosecond, "ns"}};
  for (const Unit& u : kUnits) {
    if (t != 0 && t % u.scale == 0) return std::to_string(t / u.scale) + u.name;
  }
  return std::to_string(t) + (t == 0 ? "us" : "ps");
}

std::string format_bytes(std::uint64_t bytes) {
  // Small counts (an MTU, a resume offset) read best in plain bytes.
  if (bytes < 10'000) return std::to_string(bytes) + "B";
  static constexpr std::pair<std::uint64_t, const char*> kUnits[] = {{1'000'000'000'000ULL, "TB"},
                                                                     {1ULL << 40, "TiB"},
                                                                     {1'000'000'000ULL, "GB"},
                                                                     {1ULL << 30, "GiB"},
                                                                     {1'000'000ULL, "MB"},
                                                                     {1ULL << 20, "MiB"},
                                                                     {1'000ULL, "KB"},
                                                                     {1ULL << 10, "KiB"}};
  for (const auto& [scale, name] : kUnits) {
    if (bytes % scale == 0) return std::to_string(bytes / scale) + name;
  }
  return std::to_string(bytes) + "B";
}

std::string format_rate(net::Bps rate) {
  static constexpr std::pair<std::uint64_t, const char*> kUnits[] = {{1'000'000'000'000ULL, "Tbps"},
                                                                     {1'000'000'000ULL, "Gbps"},
                                                                     {1'000'000ULL, "Mbps"},
                                                                     {1'000ULL, "Kbps"}};
  for (const auto& [scale, name] : kUnits) {
    if (rate != 0 && rate % scale == 0) return std::to_string(rate / scale) + name;
  }
  return std::to_string(rate) + "bps";
}

}  // namespace fabricsim::tools
