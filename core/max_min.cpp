#include "core/max_min.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fabricsim::core {

namespace {

// A level this close to a capacity or limit (relative) reaches it: the water-filling's sums of
// doubles never land on zero exactly.
constexpr double kFull = 1e-9;

}  // namespace

MaxMinShares::MaxMinShares(std::vector<double> capacity) : capacity_(std::move(capacity)) {
  for (const double c : capacity_) {
    if (!(c > 0) || !std::isfinite(c)) throw std::invalid_argument("MaxMinShares: bad capacity");
  }
  users_.resize(capacity_.size());
  resource_mark_.assign(capacity_.size(), 0);
  left_.assign(capacity_.size(), 0);
  unfixed_.assign(capacity_.size(), 0);
}

std::uint32_t MaxMinShares::add(const std::uint32_t* resources, std::uint32_t count, double limit) {
  if (!(limit > 0) || (count == 0 && !std::isfinite(limit))) {
    throw std::invalid_argument("MaxMinShares: a flow needs a resource or a finite limit");
  }
  std::uint32_t id;
  if (free_.empty()) {
    id = static_cast<std::uint32_t>(flows_.size());
    flows_.emplace_back();
    flow_mark_.push_back(0);
  } else {
    id = free_.back();
    free_.pop_back();
  }
  Flow& f = flows_[id];
  f.resources.assign(resources, resources + count);
  f.limit = limit;
  f.rate = 0;
  f.weight = 1;
  f.live = true;
  for (const std::uint32_t r : f.resources) {
    if (r >= capacity_.size()) throw std::invalid_argument("MaxMinShares: no such resource");
    users_[r].push_back(id);
    seeds_.push_back(r);
  }
  if (count == 0) {
    f.rate = limit;  // alone with its own limit
    changed_.push_back(id);
  }
  return id;
}

void MaxMinShares::grow(std::uint32_t id, std::uint32_t by) {
  Flow& f = flows_[id];
  if (!f.live) throw std::logic_error("MaxMinShares: growing a removed flow");
  f.weight += by;
  // Its resources' other flows may get less (one alone with its own limit keeps its rate).
  seeds_.insert(seeds_.end(), f.resources.begin(), f.resources.end());
}

void MaxMinShares::remove(std::uint32_t id) {
  Flow& f = flows_[id];
  if (!f.live) throw std::logic_error("MaxMinShares: removing a flow twice");
  f.live = false;
  f.rate = 0;
  for (const std::uint32_t r : f.resources) {
    std::vector<std::uint32_t>& u = users_[r];
    u.erase(std::find(u.begin(), u.end(), id));
    seeds_.push_back(r);
  }
  free_.push_back(id);
}

const std::vector<std::uint32_t>& MaxMinShares::settle() {
  if (seeds_.empty()) {  // only flows without resources were added: changed_ holds them
    part_flows_.swap(changed_);
    changed_.clear();
    return part_flows_;
  }
  ++epoch_;
  part_resources_.clear();
  part_flows_.clear();
  const auto visit = [&](std::uint32_t r) {
    if (resource_mark_[r] == epoch_) return;
    resource_mark_[r] = epoch_;
    part_resources_.push_back(r);
  };
  for (const std::uint32_t r : seeds_) visit(r);
  seeds_.clear();
  for (std::size_t k = 0; k < part_resources_.size(); ++k) {
    for (const std::uint32_t id : users_[part_resources_[k]]) {
      if (flow_mark_[id] == epoch_) continue;
      flow_mark_[id] = epoch_;
      part_flows_.push_back(id);
      for (const std::uint32_t r : flows_[id].resources) visit(r);
    }
  }
  for (const std::uint32_t r : part_resources_) {
    left_[r] = capacity_[r];
    std::uint32_t flows = 0;
    for (const std::uint32_t id : users_[r]) flows += flows_[id].weight;
    unfixed_[r] = flows;
  }
  open_.assign(part_flows_.begin(), part_flows_.end());
  double level = 0;
  while (!open_.empty()) {
    double step = kUnlimited;
    for (const std::uint32_t r : part_resources_) {
      if (unfixed_[r] > 0) step = std::min(step, left_[r] / unfixed_[r]);
    }
    for (const std::uint32_t id : open_) step = std::min(step, flows_[id].limit - level);
    level += step;
    for (const std::uint32_t r : part_resources_) left_[r] -= step * unfixed_[r];
    std::size_t kept = 0;
    for (const std::uint32_t id : open_) {
      Flow& f = flows_[id];
      bool fixed = std::isfinite(f.limit) && f.limit - level <= kFull * f.limit;
      for (std::size_t i = 0; i < f.resources.size() && !fixed; ++i) {
        fixed = left_[f.resources[i]] <= kFull * capacity_[f.resources[i]];
      }
      if (!fixed) {
        open_[kept++] = id;
        continue;
      }
      for (const std::uint32_t r : f.resources) unfixed_[r] -= f.weight;
      if (f.rate != level) {
        f.rate = level;
        changed_.push_back(id);
      }
    }
    open_.resize(kept);
  }
  part_flows_.swap(changed_);
  changed_.clear();
  return part_flows_;
}

}  // namespace fabricsim::core
