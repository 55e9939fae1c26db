#include "net/wire.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace fabricsim::net {

void throw_too_long_on_wire(std::uint64_t bytes, Bps rate) {
  throw core::HorizonError(fmt::format(
      "simulated time would overflow: {} bytes on a {} bps link take {:.3g} s, beyond the "
      "largest simulated time ({}); a size or rate in the run is out of scale",
      bytes, rate, double(bytes) * 8 / double(rate), core::kHorizonText));
}

}  // namespace fabricsim::net
