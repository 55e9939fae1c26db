#pragma once
// Flow workloads that exercise the network without collectives.
#include <cstdint>
#include <vector>

#include "net/network.hpp"

namespace fabricsim::net {

// `senders` NICs (0..senders-1, skipping `receiver`) each send `bytes` to `receiver`.
std::vector<FlowSpec> incast(std::uint32_t nics, std::uint32_t receiver, std::uint32_t senders,
                             std::uint64_t bytes, core::Time start);

// Every NIC sends `bytes` to one other NIC and receives from one: a random derangement drawn
// from `seed` (so no NIC sends to itself).
std::vector<FlowSpec> permutation(std::uint32_t nics, std::uint64_t bytes, core::Time start,
                                  std::uint64_t seed);

// Every NIC sends `bytes` to every other NIC.
std::vector<FlowSpec> all_to_all(std::uint32_t nics, std::uint64_t bytes, core::Time start);

}  // namespace fabricsim::net
