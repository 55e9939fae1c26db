#pragma once
#include <cstdint>
#include <vector>

#include "core/event.hpp"

namespace fabricsim::core {

// Nodes 0..n-1 cut into `lps` contiguous blocks of (almost) equal size.
std::vector<LpId> block_partition(std::uint32_t nodes, std::uint32_t lps);

}  // namespace fabricsim::core
