// Switches: routing, shared-buffer admission with PFC or drops, ECN marking and HPCC telemetry
// at dequeue.
#include <algorithm>

#include "net/ecn.hpp"
#include "net/network.hpp"
#include "net/wire.hpp"

namespace fabricsim::net {
namespace {

// PAUSE with the largest time field: 65535 quanta of 512 bit times (IEEE 802.1Qbb).
core::Time max_pause(Bps rate) {
  return serialization(65535ULL * 512 / 8, rate);
}

}  // namespace

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

bool Network::admit(Ctx& ctx, NodeId sw, PortId in, PortId out, Packet& pkt) {
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
    pkt.in_headroom = false;
    return true;
  }
  if (ip.ingress_shared + bytes <= xoff_threshold(sw) && s.shared_used + bytes <= s.shared_cap) {
    ip.ingress_shared += bytes;
    s.shared_used += bytes;
    pkt.in_headroom = false;
  } else if (ip.ingress_headroom + bytes <= headroom_[port_base_[sw] + in]) {
    ip.ingress_headroom += bytes;
    pkt.in_headroom = true;
  } else {
    return false;  // headroom too small for the in-flight data: a misconfigured lossless fabric
  }
  s.used += bytes;
  const bool over = ip.ingress_headroom > 0 || ip.ingress_shared >= xoff_threshold(sw);
  if (over) {
    // A PAUSE expires on its own; refresh it halfway while still congested.
    const Link& l = topo_.link_at(sw, in);
    if (!ip.peer_paused || ctx.now() - ip.pause_sent_at > max_pause(l.rate) / 2) {
      send_pause(ctx, sw, in, true);
    }
  }
  return true;
}

void Network::switch_receive(Ctx& ctx, NodeId sw, PortId in, Packet pkt) {
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
    pkt.in_port = in;
    note_queue(op, ctx.now());
  }
  op.queue[tc].push(pkt);
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
    if (pkt.in_headroom) {
      ip.ingress_headroom -= pkt.wire;
    } else {
      ip.ingress_shared -= pkt.wire;
      s.shared_used -= pkt.wire;
    }
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

void Network::send_pause(Ctx& ctx, NodeId sw, PortId p, bool on) {
  Port& pt = port(sw, p);
  Packet pause;
  pause.type = PacketType::kPause;
  pause.wire = kPauseWireBytes;
  pause.sent = on ? max_pause(topo_.link_at(sw, p).rate) : 0;
  pt.peer_paused = on;
  if (on) {
    pt.pause_sent_at = ctx.now();
    ++pt.stats.pauses_sent;
  }
  pt.queue[kMacControl].push(pause);
  pt.queued[kMacControl] += pause.wire;
  try_transmit(ctx, sw, p);
}

}  // namespace fabricsim::net
