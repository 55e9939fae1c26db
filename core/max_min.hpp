#pragma once
// Max-min fair shares of resources (links, ports, NVLink directions) among flows that each use
// a few of them and may have a limit of their own, kept up to date as flows come and go.
//
// Shares decompose over the connected parts of the flow-resource graph, so a change re-shares
// only the flows linked to it through resources they share: a ring's transfers, each on its
// own pair of GPU ports, never wait for a water-filling over the whole host or fabric.
// Water-filling raises every unfixed flow's rate together until a resource it uses is full or
// it reaches its own limit; those flows are fixed at that level, and the rest go on.
//
// Deterministic: the same calls in the same order give the same doubles.
#include <cstdint>
#include <limits>
#include <vector>

namespace fabricsim::core {

class MaxMinShares {
 public:
  static constexpr double kUnlimited = std::numeric_limits<double>::infinity();

  MaxMinShares() = default;
  explicit MaxMinShares(std::vector<double> capacity);  // per resource, > 0

  // A flow over `count` distinct resources, never faster than `limit` (> 0); it gets its share
  // at the next settle(). Returns its id; a removed flow's id is handed out again.
  std::uint32_t add(const std::uint32_t* resources, std::uint32_t count, double limit = kUnlimited);
  // `by` more flows just like flow `id` (same resources and limit), carried by it: rate() stays
  // each one's rate, and every share comes out as it would with them added one by one.
  void grow(std::uint32_t id, std::uint32_t by);
  void remove(std::uint32_t id);
  double rate(std::uint32_t id) const { return flows_[id].rate; }
  bool settled() const { return seeds_.empty(); }

  // Shares anew what the changes since the last call can affect. Returns the ids of the flows
  // whose rate differs from before (added ones included), valid until the next call.
  const std::vector<std::uint32_t>& settle();

 private:
  struct Flow {
    std::vector<std::uint32_t> resources;
    double limit = kUnlimited;
    double rate = 0;           // of each flow it carries
    std::uint32_t weight = 1;  // flows it carries
    bool live = false;
  };

  std::vector<double> capacity_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_;                // ids to reuse
  std::vector<std::vector<std::uint32_t>> users_;  // per resource: its live flows
  std::vector<std::uint32_t> seeds_;               // resources a change touched
  // settle()'s scratch: the part re-shared (marked by epoch) and the water-filling's state.
  std::vector<std::uint32_t> resource_mark_, flow_mark_;
  std::uint32_t epoch_ = 0;
  std::vector<std::uint32_t> part_resources_, part_flows_, open_, changed_;
  std::vector<double> left_;
  std::vector<std::uint32_t> unfixed_;  // per resource: flows not yet fixed (weights)
};

}  // namespace fabricsim::core
