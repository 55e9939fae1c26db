#include "core/partition.hpp"

#include "core/error.hpp"

namespace fabricsim::core {

std::vector<LpId> block_partition(std::uint32_t nodes, std::uint32_t lps) {
  if (lps == 0 || lps > nodes) {
    throw ConfigError("block_partition: need 1 <= LPs <= nodes, got " + std::to_string(lps) +
                      " LPs for " + std::to_string(nodes) + " nodes");
  }
  std::vector<LpId> out(nodes);
  for (std::uint32_t n = 0; n < nodes; ++n) {
    out[n] = static_cast<LpId>(static_cast<std::uint64_t>(n) * lps / nodes);
  }
  return out;
}

}  // namespace fabricsim::core
