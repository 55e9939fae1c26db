#include "net/fluid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "net/network.hpp"
#include "net/wire.hpp"

namespace fabricsim::net {

namespace {

// Bytes per picosecond of a line rate in bits per second.
double bytes_per_ps(Bps rate) {
  return double(rate) / 8e12;
}

}  // namespace

Fluid::Fluid(const Topology& topo, const NetworkConfig& cfg, const Routes& routes,
             const std::vector<FlowSpec>& flows, std::vector<FlowResult>& results,
             const Ports& ports)
    : topo_(&topo), flows_(&flows), results_(&results), mtu_(cfg.nic.mtu) {
  // Every byte on the wire carries headers; a flow of full packets moves payload at this share
  // of the line rate, as the packet level's goodput.
  payload_share_ = double(mtu_) / double(data_wire_bytes(mtu_));
  std::vector<double> capacity(ports.size());
  rate_.resize(ports.size());
  for (NodeId v = 0; v < topo.nodes.size(); ++v) {
    for (PortId p = 0; p < topo.nodes[v].ports.size(); ++p) {
      const Bps r = topo.link_at(v, p).rate;
      rate_[ports.index(v, p)] = r;
      capacity[ports.index(v, p)] = bytes_per_ps(r) * payload_share_;
    }
  }
  state_.resize(flows.size());
  for (std::uint32_t f = 0; f < flows.size(); ++f) {
    const FlowSpec& fs = flows[f];
    FlowState& s = state_[f];
    s.cap = fs.max_rate > 0 ? bytes_per_ps(fs.max_rate) : core::MaxMinShares::kUnlimited;
    s.path_begin = static_cast<std::uint32_t>(path_.size());
    const NodeId src = topo.nics[fs.src_nic], dst = topo.nics[fs.dst_nic];
    const std::uint32_t last =
        data_wire_bytes(static_cast<std::uint32_t>(std::min<std::uint64_t>(mtu_, fs.bytes)));
    // The switches' choice for this queue pair's data (Switches::route with ECMP).
    walk_ecmp_path(topo, routes, src, dst, fs.dst_nic, f, [&](NodeId at, PortId p) {
      const Link& l = topo.link_at(at, p);
      path_.push_back(ports.index(at, p));
      // The NIC's own serialization is the fluid's; every later hop holds the last packet once.
      s.tail += l.delay + (at == src ? 0 : serialization(last, l.rate));
    });
    // The ACKs come back on their own ECMP path, as in the packet model.
    walk_ecmp_path(topo, routes, dst, src, fs.src_nic, f, [&](NodeId at, PortId p) {
      const Link& l = topo.link_at(at, p);
      s.ack += l.delay + serialization(kAckWireBytes, l.rate);
    });
    s.path_end = static_cast<std::uint32_t>(path_.size());
  }
  shares_ = core::MaxMinShares(std::move(capacity));
}

std::uint64_t Fluid::boundary(std::uint32_t f) const {
  const std::vector<std::uint64_t>& ends = (*flows_)[f].messages;
  const FlowState& s = state_[f];
  if (s.messages_done < ends.size()) return std::min(ends[s.messages_done], s.posted);
  return s.posted;
}

void Fluid::flow_start(Ctx& ctx, std::uint32_t f) {
  state_[f].posted = (*flows_)[f].bytes;
  state_[f].active = state_[f].joined = true;
  state_[f].since = ctx.now();
  joined_.push_back(f);
  soon(ctx);
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
    s.active = s.joined = true;
    s.since = ctx.now();
    s.rate = 0;
    joined_.push_back(f);
  } else if (!s.moved && !s.joined) {
    s.moved = true;  // its boundary may have moved; its share has not
    moved_.push_back(f);
  }
  soon(ctx);
}

void Fluid::soon(Ctx& ctx) {
  if (wake_at_ == ctx.now()) return;
  wake_at_ = ctx.now();
  ctx.schedule(0, Network::kFluidWake, Network::Payload{.c = ++generation_});
}

void Fluid::wake(Ctx& ctx, std::uint64_t generation) {
  if (generation != generation_) return;  // superseded
  wake_at_ = -1;
  const core::Time now = ctx.now();
  for (const core::DueHeap::Entry* d; (d = due_.top()) && d->at <= now;) {
    const std::uint32_t f = d->id;
    due_.pop();
    // Nothing changed its rate or boundary since this was set: it is there now.
    if (state_[f].active) reach(ctx, f);
  }
  settle(now);
  schedule_next(ctx);
}

void Fluid::reach(Ctx& ctx, std::uint32_t f) {
  FlowState& s = state_[f];
  const FlowSpec& fs = (*flows_)[f];
  const std::uint64_t at = boundary(f);
  s.sent = double(at);  // the due time was rounded up to a whole picosecond
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
  if (at == s.posted) {
    leave(f);
  } else if (!s.moved) {
    s.moved = true;  // on to its next message at the same rate
    moved_.push_back(f);
  }
}

void Fluid::leave(std::uint32_t f) {
  FlowState& s = state_[f];
  s.active = false;
  s.rate = 0;
  due_.erase(f);
  shares_.remove(s.share);
}

void Fluid::settle(core::Time now) {
  for (const std::uint32_t f : joined_) {
    FlowState& s = state_[f];
    s.joined = false;
    s.share = shares_.add(&path_[s.path_begin], s.path_end - s.path_begin, s.cap);
    if (flow_of_share_.size() <= s.share) flow_of_share_.resize(s.share + 1);
    flow_of_share_[s.share] = f;
  }
  joined_.clear();
  for (const std::uint32_t id : shares_.settle()) {
    const std::uint32_t f = flow_of_share_[id];
    FlowState& s = state_[f];
    s.sent = sent_at(s, now);
    s.since = now;
    s.rate = shares_.rate(id);
    set_due(now, f);
  }
  for (const std::uint32_t f : moved_) {
    state_[f].moved = false;
    if (state_[f].active) set_due(now, f);
  }
  moved_.clear();
}

void Fluid::set_due(core::Time now, std::uint32_t f) {
  FlowState& s = state_[f];
  const double wait = std::ceil(std::max(0.0, double(boundary(f)) - sent_at(s, now)) / s.rate);
  if (!(wait < double(core::kTimeMax - now))) {  // never, at this rate
    due_.erase(f);
    return;
  }
  due_.set(f, now + core::Time(wait));
}

void Fluid::schedule_next(Ctx& ctx) {
  const core::DueHeap::Entry* first = due_.top();
  if (!first) return;
  const core::Time next = first->at;
  if (wake_at_ >= 0 && wake_at_ <= next) return;  // an earlier wake will look again
  wake_at_ = next;
  ctx.schedule(next - ctx.now(), Network::kFluidWake, Network::Payload{.c = ++generation_});
}

Fluid::PortTotals Fluid::port_totals(core::Time end) const {
  PortTotals t;
  t.data.assign(rate_.size(), 0);
  t.wire.assign(rate_.size(), 0);
  t.busy.assign(rate_.size(), 0);
  const std::uint64_t full_wire = data_wire_bytes(mtu_);
  for (std::uint32_t f = 0; f < state_.size(); ++f) {
    const FlowState& s = state_[f];
    const std::uint64_t sent = sent_by(s, end);
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
  for (std::size_t p = 0; p < rate_.size(); ++p) {
    if (t.wire[p] > 0) t.busy[p] = serialization(t.wire[p], rate_[p]);
  }
  return t;
}

std::uint64_t Fluid::payload_sent(core::Time end) const {
  std::uint64_t total = 0;
  for (const FlowState& s : state_) total += sent_by(s, end);
  return total;
}

std::vector<std::uint64_t> Fluid::tag_bytes(std::uint32_t tags, core::Time end) const {
  std::vector<std::uint64_t> out;
  if (tags == 0) return out;
  out.assign(rate_.size() * tags, 0);
  for (std::uint32_t f = 0; f < state_.size(); ++f) {
    const FlowState& s = state_[f];
    const std::uint16_t tag = (*flows_)[f].tag;
    for (std::uint32_t i = s.path_begin; i < s.path_end; ++i) {
      out[std::size_t(path_[i]) * tags + tag] += sent_by(s, end);
    }
  }
  return out;
}

}  // namespace fabricsim::net
