#include "workload/nvlink_fluid.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/error.hpp"

namespace fabricsim::workload {

NvlinkFluid::NvlinkFluid(int gpus, double bytes_per_ps) : gpus_(gpus), cap_(bytes_per_ps) {
  if (gpus < 0 || (gpus > 0 && !(bytes_per_ps > 0))) {
    throw std::invalid_argument("NvlinkFluid needs a positive capacity for its GPUs");
  }
}

void NvlinkFluid::add(core::Time now, int src, int dst, double bytes, std::uint64_t tag,
                      double max_rate) {
  if (src == dst || src >= gpus_ || dst >= gpus_ || !(max_rate > 0)) {
    throw std::logic_error("NvlinkFluid: bad transfer ends or rate bound");
  }
  advance(now);
  active_.push_back({src, dst, std::max(bytes, 0.0), 0.0, max_rate, tag});
  dirty_ = true;
}

void NvlinkFluid::finish(core::Time now, std::vector<std::uint64_t>& done) {
  advance(now);
  // Complete within half a picosecond of transfer: the finish time was rounded up to whole ps.
  const auto it = std::stable_partition(active_.begin(), active_.end(),
                                        [](const Transfer& t) { return t.left > t.rate * 0.5; });
  if (it == active_.end()) return;
  for (auto j = it; j != active_.end(); ++j) done.push_back(j->tag);
  active_.erase(it, active_.end());
  dirty_ = true;
}

void NvlinkFluid::advance(core::Time now) {
  if (now <= last_) return;
  settle();
  const double dt = static_cast<double>(now - last_);
  last_ = now;
  for (Transfer& t : active_) t.left = std::max(0.0, t.left - t.rate * dt);
}

// Water-filling: repeatedly the most contended port (smallest capacity left per unfixed user)
// fixes the rate of its users; a GPU's egress is resource 2g, its ingress 2g + 1. The switch
// end of an NVLS transfer is not a constraint. Users are listed per resource, so one pass costs
// O(resources^2 + transfers): it runs on every transfer start and end.
void NvlinkFluid::reshare() {
  dirty_ = false;
  const int resources = 2 * gpus_;
  left_cap_.assign(static_cast<std::size_t>(resources), cap_);
  users_.assign(static_cast<std::size_t>(resources), 0);
  fixed_.assign(active_.size(), 0);
  first_.assign(static_cast<std::size_t>(resources) + 1, 0);
  for (const Transfer& t : active_) {
    if (t.src >= 0) ++users_[2 * t.src];
    if (t.dst >= 0) ++users_[2 * t.dst + 1];
  }
  for (int r = 0; r < resources; ++r) first_[r + 1] = first_[r] + users_[r];
  members_.resize(first_[resources]);
  fill_.assign(first_.begin(), first_.end() - 1);
  for (std::uint32_t i = 0; i < active_.size(); ++i) {
    const Transfer& t = active_[i];
    if (t.src >= 0) members_[fill_[2 * t.src]++] = i;
    if (t.dst >= 0) members_[fill_[2 * t.dst + 1]++] = i;
  }
  bounded_.clear();
  for (std::uint32_t i = 0; i < active_.size(); ++i) {
    if (active_[i].max_rate < kUnbounded) bounded_.push_back(i);
  }
  // Ties in index order; std::sort, unlike stable_sort, takes no buffer on every reshare.
  std::sort(bounded_.begin(), bounded_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return active_[a].max_rate < active_[b].max_rate ||
           (active_[a].max_rate == active_[b].max_rate && a < b);
  });
  std::size_t next_bounded = 0;
  const auto fix = [&](std::uint32_t i, double rate) {
    Transfer& t = active_[i];
    fixed_[i] = 1;
    t.rate = rate;
    if (t.src >= 0) left_cap_[2 * t.src] -= rate, --users_[2 * t.src];
    if (t.dst >= 0) left_cap_[2 * t.dst + 1] -= rate, --users_[2 * t.dst + 1];
  };
  std::size_t unfixed = active_.size();
  while (unfixed > 0) {
    int best = -1;
    double share = 0;
    for (int r = 0; r < resources; ++r) {
      if (users_[r] == 0) continue;
      const double s = left_cap_[r] / users_[r];
      if (best < 0 || s < share) best = r, share = s;
    }
    // A transfer whose own bound is tighter than every port's fair share takes its bound.
    while (next_bounded < bounded_.size() && fixed_[bounded_[next_bounded]]) ++next_bounded;
    if (next_bounded < bounded_.size() &&
        (best < 0 || active_[bounded_[next_bounded]].max_rate < share)) {
      const std::uint32_t i = bounded_[next_bounded++];
      fix(i, active_[i].max_rate);
      --unfixed;
      continue;
    }
    for (std::uint32_t k = first_[best]; k < first_[best + 1]; ++k) {
      const std::uint32_t i = members_[k];
      if (fixed_[i]) continue;
      fix(i, share);
      --unfixed;
    }
  }
  next_finish_ = core::kTimeMax;
  for (const Transfer& t : active_) {
    const double ps = std::ceil(t.left / t.rate);
    next_finish_ = std::min(next_finish_, core::later(last_, ps, "an NVLink transfer"));
  }
}

}  // namespace fabricsim::workload
