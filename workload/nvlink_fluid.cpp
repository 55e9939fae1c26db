#include "workload/nvlink_fluid.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/error.hpp"

namespace fabricsim::workload {

NvlinkFluid::NvlinkFluid(int gpus, double bytes_per_ps) : gpus_(gpus) {
  if (gpus < 0 || (gpus > 0 && !(bytes_per_ps > 0))) {
    throw std::invalid_argument("NvlinkFluid needs a positive capacity for its GPUs");
  }
  shares_ =
      core::MaxMinShares(std::vector<double>(static_cast<std::size_t>(2 * gpus), bytes_per_ps));
}

void NvlinkFluid::add(core::Time now, int src, int dst, double bytes, std::uint64_t tag,
                      double max_rate) {
  if (src == dst || src >= gpus_ || dst >= gpus_ || !(max_rate > 0)) {
    throw std::logic_error("NvlinkFluid: bad transfer ends or rate bound");
  }
  if (now > last_) {
    settle();  // what changed before now was shared out at last_
    last_ = now;
  }
  // The switch end of an NVLS transfer is not a constraint.
  std::uint32_t ends[2];
  std::uint32_t n = 0;
  if (src >= 0) ends[n++] = static_cast<std::uint32_t>(2 * src);
  if (dst >= 0) ends[n++] = static_cast<std::uint32_t>(2 * dst + 1);
  const std::uint32_t id =
      shares_.add(ends, n, max_rate < kUnbounded ? max_rate : core::MaxMinShares::kUnlimited);
  if (transfers_.size() <= id) transfers_.resize(id + 1);
  Transfer& t = transfers_[id];
  t.left = std::max(bytes, 0.0);
  t.since = last_;
  t.rate = 0;
  t.tag = tag;
  t.seq = added_++;
  ++live_;
}

void NvlinkFluid::settle() {
  for (const std::uint32_t id : shares_.settle()) {
    Transfer& t = transfers_[id];
    t.left = std::max(0.0, t.left - t.rate * static_cast<double>(last_ - t.since));
    t.since = last_;
    t.rate = shares_.rate(id);
    const double ps = std::ceil(t.left / t.rate);
    due_.set(id, core::later(last_, ps, "an NVLink transfer"));
  }
}

core::Time NvlinkFluid::next_finish() {
  settle();
  const core::DueHeap::Entry* first = due_.top();
  return first ? first->at : core::kTimeMax;
}

void NvlinkFluid::finish(core::Time now, std::vector<std::uint64_t>& done) {
  if (now > last_) {
    settle();
    last_ = now;
  }
  completed_.clear();
  for (const core::DueHeap::Entry* d; (d = due_.top()) && d->at <= now;) {
    completed_.push_back(d->id);
    due_.pop();
  }
  std::sort(completed_.begin(), completed_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return transfers_[a].seq < transfers_[b].seq;
  });
  for (const std::uint32_t id : completed_) {
    done.push_back(transfers_[id].tag);
    shares_.remove(id);
    --live_;
  }
}

}  // namespace fabricsim::workload
