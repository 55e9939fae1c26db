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

// A flow-size distribution as a piecewise-linear CDF (the form of the published web-search and
// Hadoop workloads): sizes in bytes and cumulative fractions, both strictly increasing, from
// fraction 0 to fraction 1.
class FlowSizeCdf {
 public:
  // Throws std::invalid_argument saying which point breaks the rules.
  explicit FlowSizeCdf(std::vector<std::pair<double, double>> points);
  double mean() const;            // bytes
  double sample(double u) const;  // the size at cumulative fraction u in [0, 1)

 private:
  std::vector<std::pair<double, double>> points_;
};

// Open-loop Poisson arrivals (as HPCC's traffic_gen.py): each NIC starts flows with exponential
// gaps so that it offers `load` x its line rate on average, each of a size drawn from `sizes`
// (at least one byte) to a NIC drawn uniformly among the others, from `start` until
// `start + duration`. Sorted by start time; the same for the same seed. Throws
// std::length_error when more than `max_flows` are expected.
//
// `incasts` mixes in incast events (the HPCC paper's Figure 11a set-up, section 5.3): at Poisson
// times that offer `load` x the sum of the NICs' line rates, `senders` distinct NICs each send
// `bytes` to one NIC, all drawn uniformly. Their flows carry kIncastTag.
struct IncastMix {
  std::uint32_t senders = 0;  // 0: no incasts
  std::uint64_t bytes = 0;
  double load = 0;
};
inline constexpr std::uint16_t kIncastTag = 1;

std::vector<FlowSpec> poisson(const Topology& topo, const FlowSizeCdf& sizes, double load,
                              core::Time start, core::Time duration, std::uint64_t seed,
                              std::uint64_t max_flows, const IncastMix& incasts = {});

}  // namespace fabricsim::net
