// Ports: one transmission at a time, control before data, data only while not paused.
// A port keeps at most one pending event of its own (the end of the current serialization, or
// a wake-up when a pause expires).
#include <algorithm>

#include "net/network.hpp"
#include "net/wire.hpp"

namespace fabricsim::net {

void Network::note_queue(Port& p, core::Time now) {
  p.stats.queue_byte_ps += double(p.queued[kDataClass]) * double(now - p.queue_changed);
  p.queue_changed = now;
}

void Network::wake_at(Ctx& ctx, NodeId node, PortId p, core::Time t) {
  Port& port_state = port(node, p);
  if (port_state.wake_at >= 0 && port_state.wake_at <= t) return;
  port_state.wake_at = t;
  ctx.schedule(t - ctx.now(), kPortWake, Payload{.a = p});
}

void Network::try_transmit(Ctx& ctx, NodeId node, PortId p) {
  Port& pt = port(node, p);
  if (pt.busy) return;
  Packet pkt;
  if (!pt.queue[kMacControl].empty() || !pt.queue[kControl].empty()) {
    const TrafficClass tc = pt.queue[kMacControl].empty() ? kControl : kMacControl;
    pkt = pt.queue[tc].front();
    pt.queue[tc].pop();
    pt.queued[tc] -= pkt.wire;
  } else if (data_paused(pt, ctx.now())) {
    const bool waiting =
        is_nic(node) ? !nics_[nic_index_[node]].active.empty() : !pt.queue[kDataClass].empty();
    if (waiting) wake_at(ctx, node, p, pt.paused_until);
    return;
  } else if (is_nic(node)) {
    if (!nic_next_data(ctx, node, pkt)) return;
  } else {
    if (pt.queue[kDataClass].empty()) return;
    pkt = pt.queue[kDataClass].front();
    pt.queue[kDataClass].pop();
    note_queue(pt, ctx.now());
    pt.queued[kDataClass] -= pkt.wire;
    switch_dequeued(ctx, node, p, pkt);
  }
  start_tx(ctx, node, p, pkt);
}

void Network::start_tx(Ctx& ctx, NodeId node, PortId p, Packet& pkt) {
  Port& pt = port(node, p);
  const Link& link = topo_.link_at(node, p);
  const core::Time ser = serialization(pkt.wire, link.rate);
  pt.busy = true;
  pt.stats.tx_bytes += pkt.wire;
  pt.stats.busy += ser;
  if (pkt.type == PacketType::kData) pt.stats.tx_data_bytes += pkt.payload;
  ctx.schedule(ser, kTxDone, Payload{.a = p});
  // Store and forward: the packet is at the peer once its last bit has crossed the link.
  ctx.send_fifo(port_base_[node] + p, ser + link.delay, pkt);
}

void Network::on_pause_frame(Ctx& ctx, NodeId node, PortId p, const Packet& pkt) {
  Port& pt = port(node, p);
  const core::Time now = ctx.now();
  if (pkt.sent > 0) {
    ++pt.stats.pauses_received;
    if (pt.paused_until <= now) {
      // Not paused: close the previous interval (it ended at its expiry) and open a new one.
      if (pt.paused_until > pt.pause_began) pt.stats.paused += pt.paused_until - pt.pause_began;
      pt.pause_began = now;
    }
    pt.paused_until = now + pkt.sent;
  } else if (pt.paused_until > now) {  // XON
    pt.stats.paused += now - pt.pause_began;
    pt.paused_until = now;
    pt.pause_began = now;
    try_transmit(ctx, node, p);
  }
}

}  // namespace fabricsim::net
