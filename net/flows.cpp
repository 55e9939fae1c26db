#include "net/flows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/rng.hpp"

namespace fabricsim::net {

std::vector<FlowSpec> incast(std::uint32_t nics, std::uint32_t receiver, std::uint32_t senders,
                             std::uint64_t bytes, core::Time start) {
  if (receiver >= nics || senders == 0 || senders >= nics) {
    throw std::invalid_argument("incast: need 0 < senders < NICs (" + std::to_string(nics) +
                                ") and a receiver among the NICs");
  }
  std::vector<FlowSpec> out;
  for (std::uint32_t n = 0; out.size() < senders; ++n) {
    if (n != receiver) out.push_back({n, receiver, bytes, start});
  }
  return out;
}

std::vector<FlowSpec> permutation(std::uint32_t nics, std::uint64_t bytes, core::Time start,
                                  std::uint64_t seed) {
  if (nics < 2) throw std::invalid_argument("permutation: needs at least 2 NICs");
  // Sattolo's algorithm: a uniformly random cyclic permutation, hence no fixed point.
  std::vector<std::uint32_t> to(nics);
  std::iota(to.begin(), to.end(), 0u);
  core::Rng rng(seed, 0x7065726dULL);
  for (std::uint32_t i = nics - 1; i > 0; --i) std::swap(to[i], to[rng.below(i)]);
  std::vector<FlowSpec> out;
  for (std::uint32_t n = 0; n < nics; ++n) out.push_back({n, to[n], bytes, start});
  return out;
}

std::vector<FlowSpec> all_to_all(std::uint32_t nics, std::uint64_t bytes, core::Time start) {
  std::vector<FlowSpec> out;
  for (std::uint32_t s = 0; s < nics; ++s) {
    for (std::uint32_t d = 0; d < nics; ++d) {
      if (s != d) out.push_back({s, d, bytes, start});
    }
  }
  return out;
}

FlowSizeCdf::FlowSizeCdf(std::vector<std::pair<double, double>> points)
    : points_(std::move(points)) {
  if (points_.size() < 2) throw std::invalid_argument("a flow-size CDF needs at least 2 points");
  if (points_.front().second != 0 || points_.back().second != 1) {
    throw std::invalid_argument("a flow-size CDF must start at fraction 0 and end at 1");
  }
  if (points_.front().first < 0) throw std::invalid_argument("flow sizes must not be negative");
  for (std::size_t i = 1; i < points_.size(); ++i) {
    if (!(points_[i].first > points_[i - 1].first && points_[i].second > points_[i - 1].second)) {
      throw std::invalid_argument(fmt::format(
          "point {} ({} bytes, {}) does not increase both size and fraction over the previous one",
          i + 1, points_[i].first, points_[i].second));
    }
  }
}

double FlowSizeCdf::mean() const {
  double m = 0;  // uniform within each segment
  for (std::size_t i = 1; i < points_.size(); ++i) {
    m += 0.5 * (points_[i].first + points_[i - 1].first) *
         (points_[i].second - points_[i - 1].second);
  }
  return m;
}

double FlowSizeCdf::sample(double u) const {
  // The first point at or above u; the last point's fraction is 1 > u, so there is one.
  const auto it = std::lower_bound(points_.begin() + 1, points_.end() - 1, u,
                                   [](const auto& p, double v) { return p.second < v; });
  const auto& [x0, y0] = *(it - 1);
  const auto& [x1, y1] = *it;
  return x0 + (x1 - x0) * (u - y0) / (y1 - y0);
}

std::vector<FlowSpec> poisson(const Topology& topo, const FlowSizeCdf& sizes, double load,
                              core::Time start, core::Time duration, std::uint64_t seed,
                              std::uint64_t max_flows, const IncastMix& incasts) {
  const auto nics = static_cast<std::uint32_t>(topo.nics.size());
  if (nics < 2) throw std::invalid_argument("poisson: needs at least 2 NICs");
  if (!(load > 0)) throw std::invalid_argument("poisson: load must be positive");
  if (incasts.senders > 0 &&
      (incasts.senders >= nics || incasts.bytes == 0 || !(incasts.load > 0))) {
    throw std::invalid_argument("poisson: an incast needs 1 to NICs - 1 senders, bytes and load");
  }
  const double mean_bits = sizes.mean() * 8;
  const double seconds = double(duration) * 1e-12;
  double expected = 0, capacity = 0;  // capacity: the NICs' line rates, bits per second
  for (std::uint32_t n = 0; n < nics; ++n) {
    const double rate = double(topo.link_at(topo.nics[n], 0).rate);
    expected += seconds * load * rate / mean_bits;
    capacity += rate;
  }
  const double incast_bits = double(incasts.senders) * double(incasts.bytes) * 8;
  if (incasts.senders > 0) {
    expected += seconds * incasts.load * capacity / incast_bits * double(incasts.senders);
  }
  if (expected > double(max_flows)) {
    throw std::length_error(fmt::format(
        "about {:.0f} flows expected, more than {}: shorten the duration or lower the load",
        expected, max_flows));
  }
  std::vector<FlowSpec> out;
  out.reserve(static_cast<std::size_t>(expected * 1.1) + 16);
  for (std::uint32_t n = 0; n < nics; ++n) {
    core::Rng rng(seed, 0x706f6973ULL + n);  // a stream per NIC: adding NICs keeps the others'
    const double rate = double(topo.link_at(topo.nics[n], 0).rate);
    const double mean_gap_ps = mean_bits / (load * rate) * 1e12;
    double t = double(start);
    for (;;) {
      t += -std::log(1.0 - rng.uniform()) * mean_gap_ps;
      if (t >= double(start) + double(duration)) break;
      std::uint32_t dst = rng.below(nics - 1);
      if (dst >= n) ++dst;
      const double bytes = std::max(1.0, std::round(sizes.sample(rng.uniform())));
      out.push_back({n, dst, static_cast<std::uint64_t>(bytes), static_cast<core::Time>(t)});
    }
  }
  if (incasts.senders > 0) {
    // A stream of its own, so the background flows are the same with or without incasts.
    core::Rng rng(seed, 0x696e6361ULL);
    const double mean_gap_ps = incast_bits / (incasts.load * capacity) * 1e12;
    std::vector<std::uint32_t> others(nics - 1);
    double t = double(start);
    for (;;) {
      t += -std::log(1.0 - rng.uniform()) * mean_gap_ps;
      if (t >= double(start) + double(duration)) break;
      const std::uint32_t dst = rng.below(nics);
      for (std::uint32_t i = 0; i + 1 < nics; ++i) others[i] = i < dst ? i : i + 1;
      // The first `senders` of a partial Fisher-Yates shuffle: distinct senders, uniformly.
      for (std::uint32_t i = 0; i < incasts.senders; ++i) {
        std::swap(others[i], others[i + rng.below(nics - 1 - i)]);
        FlowSpec fs{others[i], dst, incasts.bytes, static_cast<core::Time>(t)};
        fs.tag = kIncastTag;
        out.push_back(fs);
      }
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; });
  return out;
}

}  // namespace fabricsim::net
