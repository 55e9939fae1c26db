#include "net/port.hpp"

#include <algorithm>

#include "net/network.hpp"
#include "net/wire.hpp"

namespace fabricsim::net {

Ports::Ports(const Topology& topo, std::vector<std::uint16_t> flow_tag, const Outages* outages)
    : topo_(&topo), outages_(outages), flow_tag_(std::move(flow_tag)) {
  const auto top = std::max_element(flow_tag_.begin(), flow_tag_.end());
  tags_ = top == flow_tag_.end() || *top == 0 ? 0 : *top + 1u;
  const std::size_t n = topo.nodes.size();
  base_.resize(n + 1);
  for (std::size_t v = 0; v < n; ++v) {
    base_[v + 1] = base_[v] + static_cast<std::uint32_t>(topo.nodes[v].ports.size());
  }
  ports_.resize(base_[n]);
  tag_bytes_.assign(std::size_t{base_[n]} * tags_, 0);
  arrival_.resize(ports_.size());
  for (NodeId v = 0; v < n; ++v) {
    for (PortId p = 0; p < topo.nodes[v].ports.size(); ++p) {
      arrival_[base_[v] + p] = topo.peer_port(v, p);
    }
  }
}

void Ports::start_tx(Ctx& ctx, NodeId node, PortId p, const Packet& pkt, const Telemetry* t) {
  Port& pt = at(node, p);
  const Link& link = topo_->link_at(node, p);
  const core::Time ser = serialization(pkt.wire, link.rate);
  pt.frame_start = ctx.now();
  pt.free_at = ctx.now() + ser;
  pt.stats.tx_bytes += pkt.wire;
  pt.stats.busy += ser;
  if (pkt.type == PacketType::kData) {
    pt.data_until = pt.free_at;
    pt.stats.tx_data_bytes += pkt.payload;
    if (tags_ > 0)
      tag_bytes_[std::size_t{index(node, p)} * tags_ + flow_tag_[pkt.flow]] += pkt.payload;
  }
  // A frame sent into a failed link, or on the wire when it fails, never arrives; the port
  // still spends its serialization time on it.
  if (outages_ &&
      outages_->loses(topo_->nodes[node].ports[p], ctx.now(), pt.free_at + link.delay)) {
    ++pt.stats.lost;
    if (pkt.type == PacketType::kData) pt.stats.lost_bytes += pkt.payload;
    return;
  }
  // Store and forward: the packet is at the peer once its last bit has crossed the link.
  ctx.send_fifo(index(node, p), ser + link.delay, pkt, pkt.hops ? t : nullptr);
}

void Ports::resume_when_idle(Ctx& ctx, NodeId node, PortId p) {
  Port& pt = at(node, p);
  if (pt.tx_done_pending) return;
  pt.tx_done_pending = true;
  ctx.schedule(pt.free_at - ctx.now(), Network::kTxDone, Network::Payload{.a = p});
}

bool Ports::send_control(Ctx& ctx, NodeId node, PortId p) {
  Port& pt = at(node, p);
  if (!pt.has_control()) return false;
  send_head(ctx, node, p, pt.queue[kMacControl].empty() ? kControl : kMacControl);
  return true;
}

void Ports::send_head(Ctx& ctx, NodeId node, PortId p, TrafficClass tc) {
  Port& pt = at(node, p);
  const Packet& pkt = pt.queue[tc].front();
  pt.queued[tc] -= pkt.wire;
  start_tx(ctx, node, p, pkt, pt.front_telemetry(tc));
  pt.pop(tc);
}

void Ports::wake_at(Ctx& ctx, NodeId node, PortId p, core::Time t) {
  Port& pt = at(node, p);
  if (pt.wake_at >= 0 && pt.wake_at <= t) return;
  pt.wake_at = t;
  ctx.schedule(t - ctx.now(), Network::kPortWake, Network::Payload{.a = p});
}

bool Ports::on_pause_frame(Ctx& ctx, NodeId node, PortId p, const Packet& pkt) {
  Port& pt = at(node, p);
  const core::Time now = ctx.now();
  if (pkt.sent > 0) {
    ++pt.stats.pauses_received;
    if (pt.paused_until <= now) {
      // Not paused: close the previous interval (it ended at its expiry) and open a new one.
      if (pt.paused_until > pt.pause_began) pt.stats.paused += pt.paused_until - pt.pause_began;
      pt.pause_began = now;
    }
    pt.paused_until = now + pkt.sent;
    return false;
  }
  if (pt.paused_until <= now) return false;  // XON while not paused
  pt.stats.paused += now - pt.pause_began;
  pt.paused_until = now;
  pt.pause_began = now;
  return true;
}

void Ports::take_owners(const core::Ranks& ranks, const std::vector<char>& mine) {
  struct End {  // the part of a Port that results read after the run
    PortStats stats;
    core::Time free_at, frame_start, data_until, queue_changed, paused_until, pause_began;
    std::uint64_t queued_data;
  };
  std::vector<End> ends(ports_.size());
  std::vector<char> port_mine(ports_.size());
  for (NodeId v = 0; v + 1 < base_.size(); ++v) {
    for (std::uint32_t i = base_[v]; i < base_[v + 1]; ++i) port_mine[i] = mine[v];
  }
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    const Port& p = ports_[i];
    ends[i] = End{p.stats,         p.free_at,      p.frame_start, p.data_until,
                  p.queue_changed, p.paused_until, p.pause_began, p.queued[kDataClass]};
  }
  ranks.take_owners(ends, [&](std::size_t i) { return port_mine[i] != 0; });
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    Port& p = ports_[i];
    const End& e = ends[i];
    p.stats = e.stats;
    p.free_at = e.free_at;
    p.frame_start = e.frame_start;
    p.data_until = e.data_until;
    p.queue_changed = e.queue_changed;
    p.paused_until = e.paused_until;
    p.pause_began = e.pause_began;
    p.queued[kDataClass] = e.queued_data;
  }
  if (tags_ > 0) {
    ranks.take_owners(tag_bytes_, [&](std::size_t i) { return port_mine[i / tags_] != 0; });
  }
}

}  // namespace fabricsim::net
