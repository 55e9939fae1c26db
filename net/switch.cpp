// Switches: routing, shared-buffer admission with PFC or drops, ECN marking and HPCC telemetry
// at dequeue.
#include <fmt/format.h>

#include <algorithm>

#include "net/ecn.hpp"
#include "net/network.hpp"
#include "net/wire.hpp"

namespace fabricsim::net {
std::uint64_t Network::xoff_threshold(NodeId sw) const {
  if (cfg_.sw.pfc_xoff_bytes) return cfg_.sw.pfc_xoff_bytes;
  const SwitchState& s = switches_[sw];
  return std::uint64_t(cfg_.sw.pfc_alpha * double(s.shared_cap - s.shared_used));
}

PortId Network::route(Ctx& ctx, NodeId sw, const Packet& pkt) {
  const auto hops = routes_.next_hops(sw, nic_index_[pkt.dst]);
  if (hops.size() == 1) return hops[0];
  const std::size_t hashed = ecmp_hash(pkt.src, pkt.dst, pkt.flow, sw) % hops.size();
  if (pkt.type != PacketType::kData) return hops[hashed];
  switch (cfg_.sw.routing) {
    case Routing::kEcmp:
      return hops[hashed];
    case Routing::kSpray:
      return hops[ctx.rng().below(static_cast<std::uint32_t>(hops.size()))];
    case Routing::kAdaptive: {
      // Fewest queued bytes; ties go to the first candidate after the flow's hashed port.
      std::size_t best = hashed;
      for (std::size_t i = 1; i < hops.size(); ++i) {
        const std::size_t c = (hashed + i) % hops.size();
        if (port(sw, hops[c]).queued[kDataClass] < port(sw, hops[best]).queued[kDataClass]) {
          best = c;
        }
      }
      return hops[best];
    }
  }
  return hops[hashed];
}

bool Network::admit(Ctx& ctx, NodeId sw, PortId in, PortId out, const Packet& pkt) {
  SwitchState& s = switches_[sw];
  Port& ip = port(sw, in);
  const std::uint64_t bytes = pkt.wire;
  if (!cfg_.sw.pfc) {
    const std::uint64_t free = cfg_.sw.buffer_bytes - s.used;
    if (bytes > free ||
        double(port(sw, out).queued[kDataClass] + bytes) > cfg_.sw.egress_alpha * double(free)) {
      return false;
    }
    s.used += bytes;
    return true;
  }
  if (ip.ingress_shared + bytes <= xoff_threshold(sw) && s.shared_used + bytes <= s.shared_cap) {
    ip.ingress_shared += bytes;
    s.shared_used += bytes;
  } else if (ip.ingress_headroom + bytes <= headroom_[port_base_[sw] + in]) {
    ip.ingress_headroom += bytes;
  } else {
    lossless_overrun(ctx, sw, in, pkt);
  }
  s.used += bytes;
  if (!ip.peer_paused && (ip.ingress_headroom > 0 || ip.ingress_shared >= xoff_threshold(sw))) {
    send_pause(ctx, sw, in, true);
  }
  return true;
}

void Network::lossless_overrun(Ctx& ctx, NodeId sw, PortId in, const Packet& pkt) {
  const Port& ip = port(sw, in);
  throw LosslessDrop(fmt::format(
      "lossless fabric dropped a packet at {} port {} (from {}) at {:.3f} us: the port's PFC "
      "headroom ({} bytes, {} in use) cannot take a {}-byte packet after XOFF{}; raise "
      "network.pfc_headroom_factor or network.buffer",
      topo_.nodes[sw].name, in, topo_.nodes[topo_.peer(sw, in)].name, double(ctx.now()) * 1e-6,
      headroom_[port_base_[sw] + in], ip.ingress_headroom, pkt.wire,
      ip.peer_paused ? "" : " (no XOFF was sent: the shared pool is exhausted)"));
}

void Network::switch_receive(Ctx& ctx, NodeId sw, PortId in, const Packet& pkt) {
  const PortId out = route(ctx, sw, pkt);
  Port& op = port(sw, out);
  const TrafficClass tc = pkt.traffic_class();
  if (tc == kDataClass) {
    if (!admit(ctx, sw, in, out, pkt)) {
      Port& ip = port(sw, in);
      ++ip.stats.drops;
      ip.stats.dropped_bytes += pkt.payload;
      return;
    }
    note_queue(op, ctx.now());
  }
  op.queue[tc].push(pkt);
  op.queue[tc].back().in_port = in;
  op.queued[tc] += pkt.wire;
  if (tc == kDataClass)
    op.stats.max_queue_bytes = std::max(op.stats.max_queue_bytes, op.queued[tc]);
  try_transmit(ctx, sw, out);
}

void Network::switch_dequeued(Ctx& ctx, NodeId sw, PortId out, Packet& pkt) {
  SwitchState& s = switches_[sw];
  Port& ip = port(sw, pkt.in_port);
  s.used -= pkt.wire;
  if (cfg_.sw.pfc) {
    // Any packet leaving that came in on this port frees its headroom first, whichever pool the
    // packet itself was admitted to (HPCC-ns3 switch-mmu.cc RemoveFromIngressAdmission): the
    // headroom then empties as soon as the port drains at all, not when the very packets that
    // overflowed into it reach the head of a deep queue, and XON is not held back for that long.
    const std::uint64_t from_headroom = std::min<std::uint64_t>(ip.ingress_headroom, pkt.wire);
    ip.ingress_headroom -= from_headroom;
    ip.ingress_shared -= pkt.wire - from_headroom;
    s.shared_used -= pkt.wire - from_headroom;
    if (ip.peer_paused && ip.ingress_headroom == 0 &&
        ip.ingress_shared + cfg_.sw.pfc_resume_offset <= xoff_threshold(sw)) {
      send_pause(ctx, sw, pkt.in_port, false);
    }
  }
  Port& op = port(sw, out);
  const std::uint64_t q = op.queued[kDataClass];
  if (cfg_.sw.ecn) {
    const std::size_t i = port_base_[sw] + out;
    const double p = red_probability(q, kmin_[i], kmax_[i], cfg_.sw.pmax);
    if (p > 0 && ctx.rng().uniform() < p) {
      if (!pkt.ce) ++op.stats.ecn_marks;
      pkt.ce = true;
    }
  }
  if (hpcc_ && pkt.hops < cc::kMaxIntHops) {
    const Link& l = topo_.link_at(sw, out);
    pkt.stamps[pkt.hops++] =
        IntStamp{static_cast<std::uint32_t>(std::min<std::uint64_t>(q, ~0u)),
                 static_cast<std::uint32_t>(l.rate / 1'000'000), op.stats.tx_bytes, ctx.now()};
  }
}

core::Time Network::pause_refresh(Bps rate) const {
  return cfg_.sw.pfc_refresh ? cfg_.sw.pfc_refresh : pause_duration(cfg_, rate) / 2;
}

void Network::send_pause(Ctx& ctx, NodeId sw, PortId p, bool on) {
  Port& pt = port(sw, p);
  Packet pause;
  pause.type = PacketType::kPause;
  pause.wire = kPauseWireBytes;
  const Bps rate = topo_.link_at(sw, p).rate;
  pause.sent = on ? pause_duration(cfg_, rate) : 0;
  pt.peer_paused = on;
  if (on) {
    ++pt.stats.pauses_sent;
    // One pending refresh per port: a refresh still armed from an earlier pause fires first and
    // re-arms itself.
    if (pt.refresh_at < 0) {
      pt.refresh_at = ctx.now() + pause_refresh(rate);
      ctx.schedule(pt.refresh_at - ctx.now(), kPfcRefresh, Payload{.a = p});
    }
  }
  pt.queue[kMacControl].push(pause);
  pt.queued[kMacControl] += pause.wire;
  try_transmit(ctx, sw, p);
}

void Network::refresh_pause(Ctx& ctx, NodeId sw, PortId p) {
  Port& pt = port(sw, p);
  pt.refresh_at = -1;
  // XON was sent meanwhile (the port drained below the resume threshold): nothing to refresh.
  if (pt.peer_paused) send_pause(ctx, sw, p, true);
}

}  // namespace fabricsim::net
