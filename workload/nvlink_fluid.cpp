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
  latest_.assign(static_cast<std::size_t>(gpus + 1) * static_cast<std::size_t>(gpus + 1), kNone);
}

void NvlinkFluid::add(core::Time now, int src, int dst, double bytes, std::uint64_t tag,
                      double max_rate, std::uint32_t copies) {
  if (src == dst || src >= gpus_ || dst >= gpus_ || !(max_rate > 0) || copies == 0) {
    throw std::logic_error("NvlinkFluid: bad transfer ends or rate bound");
  }
  if (now > last_) {
    settle();  // what changed before now was shared out at last_
    last_ = now;
  }
  bytes = std::max(bytes, 0.0);
  std::uint32_t& like = latest(src, dst);
  if (like != kNone && transfers_[like].bytes == bytes && transfers_[like].max_rate == max_rate) {
    shares_.grow(like, copies);
    transfers_[like].members.push_back({added_++, tag});
    return;
  }
  // The switch end of an NVLS transfer is not a constraint.
  std::uint32_t ends[2];
  std::uint32_t n = 0;
  if (src >= 0) ends[n++] = static_cast<std::uint32_t>(2 * src);
  if (dst >= 0) ends[n++] = static_cast<std::uint32_t>(2 * dst + 1);
  const std::uint32_t id =
      shares_.add(ends, n, max_rate < kUnbounded ? max_rate : core::MaxMinShares::kUnlimited);
  if (copies > 1) shares_.grow(id, copies - 1);
  if (transfers_.size() <= id) transfers_.resize(id + 1);
  Transfer& t = transfers_[id];
  t.left = bytes;
  t.since = last_;
  t.rate = 0;
  t.bytes = bytes;
  t.max_rate = max_rate;
  t.members.assign(1, Member{added_++, tag});
  ++live_;
  if (like == kNone) touched_.push_back(static_cast<std::uint32_t>(&like - latest_.data()));
  like = id;
}

void NvlinkFluid::forget_latest() {
  for (const std::uint32_t k : touched_) latest_[k] = kNone;
  touched_.clear();
}

void NvlinkFluid::settle() {
  forget_latest();  // transfers added from now on start with other shares: none joins these
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
  if (due_.top() && due_.top()->at <= now) forget_latest();  // ids about to be handed out again
  for (const core::DueHeap::Entry* d; (d = due_.top()) && d->at <= now;) {
    const std::vector<Member>& m = transfers_[d->id].members;
    completed_.insert(completed_.end(), m.begin(), m.end());
    shares_.remove(d->id);
    --live_;
    due_.pop();
  }
  std::sort(completed_.begin(), completed_.end(),
            [](const Member& a, const Member& b) { return a.seq < b.seq; });
  for (const Member& m : completed_) done.push_back(m.tag);
}

}  // namespace fabricsim::workload
