#include "net/fluid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "net/network.hpp"
#include "net/wire.hpp"

namespace fabricsim::net {

namespace {

// Bytes per picosecond of a line rate in bits per second.
double bytes_per_ps(Bps rate) {
  return double(rate) / 8e12;
}

// A share this close to a link's capacity (relative) fills it: the water-filling's sums of
// doubles never land on zero exactly.
constexpr double kFull = 1e-9;

}  // namespace

Fluid::Fluid(const Topology& topo, const NetworkConfig& cfg, const Routes& routes,
             const std::vector<FlowSpec>& flows, std::vector<FlowResult>& results,
             const Ports& ports)
    : topo_(&topo), flows_(&flows), results_(&results), mtu_(cfg.nic.mtu) {
  // Every byte on the wire carries headers; a flow of full packets moves payload at this share
  // of the line rate, as the packet level's goodput.
  payload_share_ = double(mtu_) / double(data_wire_bytes(mtu_));
  capacity_.resize(ports.size());
  rate_.resize(ports.size());
  for (NodeId v = 0; v < topo.nodes.size(); ++v) {
    for (PortId p = 0; p < topo.nodes[v].ports.size(); ++p) {
      const Bps r = topo.link_at(v, p).rate;
      rate_[ports.index(v, p)] = r;
      capacity_[ports.index(v, p)] = bytes_per_ps(r) * payload_share_;
    }
  }
  state_.resize(flows.size());
  for (std::uint32_t f = 0; f < flows.size(); ++f) {
    const FlowSpec& fs = flows[f];
    FlowState& s = state_[f];
    s.cap = fs.max_rate > 0 ? bytes_per_ps(fs.max_rate) * payload_share_
                            : std::numeric_limits<double>::infinity();
    s.path_begin = static_cast<std::uint32_t>(path_.size());
    const NodeId src = topo.nics[fs.src_nic], dst = topo.nics[fs.dst_nic];
    const std::uint32_t last =
        data_wire_bytes(static_cast<std::uint32_t>(std::min<std::uint64_t>(mtu_, fs.bytes)));
    NodeId at = src;
    while (at != dst) {
      // The switches' choice for this queue pair's data (Switches::route with ECMP).
      const auto hops = routes.next_hops(at, fs.dst_nic);
      const PortId p = hops.size() == 1 ? hops[0] : hops[ecmp_hash(src, dst, f, at) % hops.size()];
      const Link& l = topo.link_at(at, p);
      path_.push_back(ports.index(at, p));
      // The NIC's own serialization is the fluid's; every later hop holds the last packet once.
      s.tail += l.delay + (at == src ? 0 : serialization(last, l.rate));
      s.ack += l.delay + serialization(kAckWireBytes, l.rate);
      at = topo.peer(at, p);
    }
    s.path_end = static_cast<std::uint32_t>(path_.size());
  }
  left_.assign(ports.size(), 0);
  unfixed_.assign(ports.size(), 0);
}

std::uint64_t Fluid::boundary(std::uint32_t f) const {
  const std::vector<std::uint64_t>& ends = (*flows_)[f].messages;
  const FlowState& s = state_[f];
  if (s.messages_done < ends.size()) return std::min(ends[s.messages_done], s.posted);
  return s.posted;
}

void Fluid::flow_start(Ctx& ctx, std::uint32_t f) {
  state_[f].posted = (*flows_)[f].bytes;
  activate(ctx, f);
}

void Fluid::app_post(Ctx& ctx, std::uint32_t f, std::uint64_t bytes) {
  FlowState& s = state_[f];
  s.posted += bytes;
  if (s.posted > (*flows_)[f].bytes) {
    throw std::logic_error(
        fmt::format("flow {}: the app posted more than its {} bytes", f, (*flows_)[f].bytes));
  }
  if (!s.active) {
    if (s.posted == bytes) (*results_)[f].start = ctx.now();
    activate(ctx, f);
  } else {
    changed(ctx);  // its boundary may have moved; its share has not
  }
}

void Fluid::activate(Ctx& ctx, std::uint32_t f) {
  FlowState& s = state_[f];
  s.active = true;
  s.since = ctx.now();
  s.rate = 0;
  active_.push_back(f);
  dirty_ = true;
  changed(ctx);
}

void Fluid::changed(Ctx& ctx) {
  if (pending_now_) return;
  pending_now_ = true;
  ctx.schedule(0, Network::kFluidWake, Network::Payload{.c = ++generation_});
}

void Fluid::wake(Ctx& ctx, std::uint64_t generation) {
  if (generation != generation_) return;  // superseded
  pending_now_ = false;
  const core::Time now = ctx.now();
  // Flows at their boundary: messages complete, and the idle ones leave the sharing.
  for (std::size_t i = 0; i < active_.size(); ++i) {
    const std::uint32_t f = active_[i];
    const FlowState& s = state_[f];
    // Within a picosecond's progress of its boundary (wakes are rounded up to whole ps).
    if (double(boundary(f)) - sent_at(s, now) <= s.rate + 1e-6) reach(ctx, f);
  }
  const auto idle = std::remove_if(active_.begin(), active_.end(),
                                   [&](std::uint32_t f) { return !state_[f].active; });
  if (idle != active_.end()) {
    active_.erase(idle, active_.end());
    dirty_ = true;
  }
  if (dirty_) reshare(now);
  schedule_next(ctx);
}

void Fluid::reach(Ctx& ctx, std::uint32_t f) {
  FlowState& s = state_[f];
  const FlowSpec& fs = (*flows_)[f];
  const std::uint64_t at = boundary(f);
  s.sent = double(at);
  s.since = ctx.now();
  const std::uint32_t before = s.messages_done;
  while (s.messages_done < fs.messages.size() && fs.messages[s.messages_done] <= at) {
    ++s.messages_done;
  }
  if (s.messages_done != before) {
    ctx.send(first_agent_ + topo_->nodes[topo_->nics[fs.dst_nic]].host, s.tail + host_delay_,
             Network::kDelivered, Network::Payload{.a = f, .b = s.messages_done});
  }
  if (at == fs.bytes) {
    FlowResult& r = (*results_)[f];
    r.finish = ctx.now() + s.tail;
    r.acked = r.finish + s.ack;
  }
  if (at == s.posted) s.active = false;
}

// Max-min fair shares by water-filling: every unfixed flow's rate rises together until a link
// it crosses is full or it reaches its own limit; those flows are fixed at that level, the
// rest go on.
void Fluid::reshare(core::Time now) {
  ++reshares_;
  dirty_ = false;
  touched_.clear();
  open_.clear();
  for (const std::uint32_t f : active_) {
    FlowState& s = state_[f];
    s.sent = sent_at(s, now);
    s.since = now;
    for (std::uint32_t i = s.path_begin; i < s.path_end; ++i) {
      const std::uint32_t p = path_[i];
      if (unfixed_[p]++ == 0) {
        touched_.push_back(p);
        left_[p] = capacity_[p];
      }
    }
    open_.push_back(f);
  }
  double level = 0;
  while (!open_.empty()) {
    double step = std::numeric_limits<double>::infinity();
    for (const std::uint32_t p : touched_) {
      if (unfixed_[p] > 0) step = std::min(step, left_[p] / unfixed_[p]);
    }
    for (const std::uint32_t f : open_) step = std::min(step, state_[f].cap - level);
    level += step;
    for (const std::uint32_t p : touched_) left_[p] -= step * unfixed_[p];
    std::size_t kept = 0;
    for (const std::uint32_t f : open_) {
      FlowState& s = state_[f];
      bool fixed = std::isfinite(s.cap) && s.cap - level <= kFull * s.cap;
      for (std::uint32_t i = s.path_begin; i < s.path_end && !fixed; ++i) {
        fixed = left_[path_[i]] <= kFull * capacity_[path_[i]];
      }
      if (!fixed) {
        open_[kept++] = f;
        continue;
      }
      s.rate = level;
      for (std::uint32_t i = s.path_begin; i < s.path_end; ++i) --unfixed_[path_[i]];
    }
    open_.resize(kept);
  }
}

void Fluid::schedule_next(Ctx& ctx) {
  const core::Time now = ctx.now();
  core::Time next = core::kTimeMax;
  for (const std::uint32_t f : active_) {
    const FlowState& s = state_[f];
    const double wait = std::ceil(std::max(0.0, double(boundary(f)) - sent_at(s, now)) / s.rate);
    if (wait < double(core::kTimeMax - now)) next = std::min(next, now + core::Time(wait));
  }
  if (next == core::kTimeMax) return;
  ctx.schedule(next - now, Network::kFluidWake, Network::Payload{.c = ++generation_});
}

Fluid::PortTotals Fluid::port_totals() const {
  PortTotals t;
  t.data.assign(capacity_.size(), 0);
  t.wire.assign(capacity_.size(), 0);
  t.busy.assign(capacity_.size(), 0);
  const std::uint64_t full_wire = data_wire_bytes(mtu_);
  for (std::uint32_t f = 0; f < state_.size(); ++f) {
    const FlowState& s = state_[f];
    const auto sent = static_cast<std::uint64_t>(s.sent);
    if (sent == 0) continue;
    // The packet level's wire bytes for these payload bytes: full packets and one short one.
    const std::uint64_t tail = sent % mtu_;
    const std::uint64_t wire =
        sent / mtu_ * full_wire + (tail ? data_wire_bytes(std::uint32_t(tail)) : 0);
    for (std::uint32_t i = s.path_begin; i < s.path_end; ++i) {
      t.data[path_[i]] += sent;
      t.wire[path_[i]] += wire;
    }
  }
  for (std::size_t p = 0; p < capacity_.size(); ++p) {
    if (t.wire[p] > 0) t.busy[p] = serialization(t.wire[p], rate_[p]);
  }
  return t;
}

std::vector<std::uint64_t> Fluid::tag_bytes(std::uint32_t tags) const {
  std::vector<std::uint64_t> out;
  if (tags == 0) return out;
  out.assign(capacity_.size() * tags, 0);
  for (std::uint32_t f = 0; f < state_.size(); ++f) {
    const FlowState& s = state_[f];
    const std::uint16_t tag = (*flows_)[f].tag;
    for (std::uint32_t i = s.path_begin; i < s.path_end; ++i) {
      out[std::size_t(path_[i]) * tags + tag] += static_cast<std::uint64_t>(s.sent);
    }
  }
  return out;
}

}  // namespace fabricsim::net
