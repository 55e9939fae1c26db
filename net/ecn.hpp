#pragma once
// RED marking probability on an egress queue of q bytes (Floyd & Jacobson 1993, as DCQCN's
// congestion point uses it): 0 up to Kmin, rising linearly to Pmax at Kmax, 1 above Kmax.
#include <cstdint>

namespace fabricsim::net {

inline double red_probability(std::uint64_t q, std::uint64_t kmin, std::uint64_t kmax,
                              double pmax) {
  if (q > kmax) return 1.0;
  if (q <= kmin) return 0.0;
  return pmax * double(q - kmin) / double(kmax - kmin);
}

}  // namespace fabricsim::net
