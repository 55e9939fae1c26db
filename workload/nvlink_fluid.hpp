#pragma once
// Transfers between the GPUs of one host as fluid flows: each GPU has an egress and an ingress
// NVLink capacity (through a non-blocking NVSwitch, or PCIe), concurrent transfers share them
// max-min fairly, and rates are recomputed whenever a transfer starts or ends. Packets inside a
// host would cost millions of events per collective for no fidelity a ring's bandwidth-bound
// steps need (DESIGN.md: "NVLink/NVSwitch transfers may use a fluid model").
//
// Deterministic: the same calls in the same order give the same doubles.
#include <cstdint>
#include <vector>

#include "core/time.hpp"

namespace fabricsim::workload {

inline constexpr int kSwitchEnd = -1;  // a transfer end that is the NVSwitch itself (NVLS)

class NvlinkFluid {
 public:
  // `bytes_per_ps` is each GPU's usable capacity per direction (unused when `gpus` is 0: a host
  // without GPUs takes no transfers).
  NvlinkFluid(int gpus, double bytes_per_ps);

  // Starts a transfer at `now`; `tag` comes back from finish(). `max_rate` (bytes per ps)
  // bounds it on its own, below what the ports would give it (the copying thread block's pace).
  void add(core::Time now, int src, int dst, double bytes, std::uint64_t tag,
           double max_rate = kUnbounded);
  static constexpr double kUnbounded = 1e300;
  // When the next transfer completes (kTimeMax when none is active).
  core::Time next_finish() {
    settle();
    return next_finish_;
  }
  // Moves to `now` and removes the transfers that are complete, appending their tags.
  void finish(core::Time now, std::vector<std::uint64_t>& done);
  bool idle() const { return active_.empty(); }

 private:
  struct Transfer {
    int src, dst;
    double left;  // bytes
    double rate;  // bytes per ps
    double max_rate;
    std::uint64_t tag;
  };
  void advance(core::Time now);
  // Rates are shared out again lazily, once for all the changes made at one instant: a ring
  // step's completion typically ends one transfer and starts several.
  void settle() {
    if (dirty_) reshare();
  }
  void reshare();

  int gpus_;
  double cap_;
  core::Time last_ = 0;
  core::Time next_finish_ = core::kTimeMax;
  bool dirty_ = false;  // transfers changed since the rates were shared out
  std::vector<Transfer> active_;
  // Scratch for reshare(), kept to avoid allocating on every change.
  std::vector<double> left_cap_;
  std::vector<int> users_;
  std::vector<char> fixed_;
  std::vector<std::uint32_t> bounded_;  // transfers with a rate bound, tightest first
  std::vector<std::uint32_t> first_, fill_, members_;  // per resource: its transfers (CSR)
};

}  // namespace fabricsim::workload
