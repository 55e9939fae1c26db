#pragma once
// Transfers between the GPUs of one host as fluid flows: each GPU has an egress and an ingress
// NVLink capacity (through a non-blocking NVSwitch, or PCIe), concurrent transfers share them
// max-min fairly (core/max_min.hpp: only the transfers a change can affect are re-shared), and
// rates are recomputed whenever a transfer starts or ends. Packets inside a
// host would cost millions of events per collective for no fidelity a ring's bandwidth-bound
// steps need (DESIGN.md: "NVLink/NVSwitch transfers may use a fluid model").
//
// Transfers started at one instant between the same two ends with the same size and bound (a
// collective's channels) travel as one flow that carries them all (MaxMinShares::grow): they
// would get the same rate and end together anyway, and every time comes out as with one flow
// each, while a host's 8 GPUs x 24 channels cost 8 flows instead of 192.
//
// Deterministic: the same calls in the same order give the same doubles.
#include <cstdint>
#include <vector>

#include "core/due_heap.hpp"
#include "core/max_min.hpp"
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
  // `copies`: that many transfers alike (each of `bytes`, each bounded), done as one.
  void add(core::Time now, int src, int dst, double bytes, std::uint64_t tag,
           double max_rate = kUnbounded, std::uint32_t copies = 1);
  static constexpr double kUnbounded = 1e300;
  // When the next transfer completes (kTimeMax when none is active).
  core::Time next_finish();
  // Moves to `now` and removes the transfers that are complete, appending their tags.
  void finish(core::Time now, std::vector<std::uint64_t>& done);
  bool idle() const { return live_ == 0; }

 private:
  struct Member {
    std::uint64_t seq;  // order of addition: completions come back in it
    std::uint64_t tag;
  };
  struct Transfer {   // one or several transfers alike, each with its own tag
    double left = 0;  // bytes at `since`, of each
    core::Time since = 0;
    double rate = 0;                 // bytes per ps, of each
    double bytes = 0, max_rate = 0;  // as added (to find its like)
    std::vector<Member> members;
  };
  // Rates are shared out again lazily, once for all the changes made at one instant (at last_):
  // a ring step's completion typically ends one transfer and starts several.
  void settle();
  void forget_latest();

  // The id of the transfer last added between two ends (index (src + 1) x (gpus + 1) + dst + 1)
  // since the last settle, which a like one joins; kNone when there is none.
  std::uint32_t& latest(int src, int dst) {
    return latest_[static_cast<std::size_t>(src + 1) * static_cast<std::size_t>(gpus_ + 1) +
                   static_cast<std::size_t>(dst + 1)];
  }
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  int gpus_;
  core::Time last_ = 0;
  std::uint64_t added_ = 0;
  std::uint32_t live_ = 0;
  core::MaxMinShares shares_;           // a GPU's egress is resource 2g, its ingress 2g + 1
  std::vector<Transfer> transfers_;     // by share id
  core::DueHeap due_;                   // when transfers complete
  std::vector<std::uint32_t> latest_;   // see latest()
  std::vector<std::uint32_t> touched_;  // its entries set since the last settle
  std::vector<Member> completed_;
};

}  // namespace fabricsim::workload
