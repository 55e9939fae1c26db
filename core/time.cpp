#include "core/time.hpp"

#include <fmt/format.h>

namespace fabricsim::core {

std::string format_time(Time t) {
  if (t == kTimeMax) return "inf";
  struct Unit {
    Time scale;
    const char* name;
  };
  static constexpr Unit kUnits[] = {
      {kSecond, "s"}, {kMillisecond, "ms"}, {kMicrosecond, "us"}, {kNanosecond, "ns"}};
  const Time mag = t < 0 ? -t : t;
  for (const Unit& u : kUnits) {
    if (mag >= u.scale) return fmt::format("{:.4g}{}", static_cast<double>(t) / u.scale, u.name);
  }
  return fmt::format("{}ps", t);
}

}  // namespace fabricsim::core
