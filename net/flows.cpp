#include "net/flows.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

#include "core/rng.hpp"

namespace fabricsim::net {

std::vector<FlowSpec> incast(std::uint32_t nics, std::uint32_t receiver, std::uint32_t senders,
                             std::uint64_t bytes, core::Time start) {
  if (receiver >= nics || senders == 0 || senders >= nics) {
    throw std::invalid_argument("incast: need 0 < senders < NICs (" + std::to_string(nics) +
                                ") and a receiver among the NICs");
  }
  std::vector<FlowSpec> out;
  for (std::uint32_t n = 0; out.size() < senders; ++n) {
    if (n != receiver) out.push_back({n, receiver, bytes, start});
  }
  return out;
}

std::vector<FlowSpec> permutation(std::uint32_t nics, std::uint64_t bytes, core::Time start,
                                  std::uint64_t seed) {
  if (nics < 2) throw std::invalid_argument("permutation: needs at least 2 NICs");
  // Sattolo's algorithm: a uniformly random cyclic permutation, hence no fixed point.
  std::vector<std::uint32_t> to(nics);
  std::iota(to.begin(), to.end(), 0u);
  core::Rng rng(seed, 0x7065726dULL);
  for (std::uint32_t i = nics - 1; i > 0; --i) std::swap(to[i], to[rng.below(i)]);
  std::vector<FlowSpec> out;
  for (std::uint32_t n = 0; n < nics; ++n) out.push_back({n, to[n], bytes, start});
  return out;
}

std::vector<FlowSpec> all_to_all(std::uint32_t nics, std::uint64_t bytes, core::Time start) {
  std::vector<FlowSpec> out;
  for (std::uint32_t s = 0; s < nics; ++s) {
    for (std::uint32_t d = 0; d < nics; ++d) {
      if (s != d) out.push_back({s, d, bytes, start});
    }
  }
  return out;
}

}  // namespace fabricsim::net
