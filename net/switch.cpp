#include "net/switch.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "net/ecn.hpp"
#include "net/network.hpp"
#include "net/wire.hpp"

namespace fabricsim::net {

Switches::Switches(const Topology& topo, const NetworkConfig& cfg, const Outages& outages,
                   Ports& ports)
    : topo_(&topo), cfg_(&cfg), outages_(&outages), ports_(&ports) {
  const std::size_t n = topo.nodes.size();
  nic_index_ = topo.nic_index_of_nodes();
  buffers_.resize(n);
  ingress_.resize(ports.size());
  kmin_.resize(ports.size());
  kmax_.resize(ports.size());
  headroom_.resize(ports.size());
  pfc_alpha_.resize(ports.size());
  Bps nic_rate = 0;
  for (const NodeId nic : topo.nics) {
    const Bps r = topo.link_at(nic, 0).rate;
    nic_rate = nic_rate ? std::min(nic_rate, r) : r;
  }
  for (NodeId v = 0; v < n; ++v) {
    const Node& node = topo.nodes[v];
    std::uint64_t headroom = 0;
    for (PortId p = 0; p < node.ports.size(); ++p) {
      const Link& l = topo.link_at(v, p);
      const std::uint32_t i = ports.index(v, p);
      // RED thresholds scale with the port rate (HPCC-ns3 run.py, see SwitchConfig).
      kmin_[i] = cfg.sw.kmin_at(l.rate);
      kmax_[i] = cfg.sw.kmax_at(l.rate);
      headroom_[i] = port_headroom(l, cfg);
      pfc_alpha_[i] = cfg.sw.pfc_alpha;
      for (int k = 0; cfg.sw.pfc_alpha_by_rate && nic_rate > 0 && k < 3 && l.rate > (nic_rate << k);
           ++k) {
        pfc_alpha_[i] *= 2;
      }
      headroom += headroom_[i];
    }
    if (node.kind == NodeKind::kSwitch) {
      buffers_[v].shared_cap = cfg.sw.pfc ? cfg.sw.buffer_bytes - headroom : cfg.sw.buffer_bytes;
    }
  }
  hpcc_ = cfg.cc.kind == cc::Kind::kHpcc;
}

std::uint64_t Switches::xoff_threshold(NodeId sw, std::uint32_t port_index) const {
  if (cfg_->sw.pfc_xoff_bytes) return cfg_->sw.pfc_xoff_bytes;
  const Buffer& b = buffers_[sw];
  return std::uint64_t(pfc_alpha_[port_index] * double(b.shared_cap - b.shared_used));
}

PortId Switches::route(Ctx& ctx, NodeId sw, const Packet& pkt) {
  const auto hops = outages_->routes(ctx.now()).next_hops(sw, nic_index_[pkt.dst]);
  if (hops.size() == 1) return hops[0];
  const std::size_t hashed = ecmp_choice(hops.size(), pkt.src, pkt.dst, pkt.flow, sw);
  if (pkt.type != PacketType::kData) return hops[hashed];
  switch (cfg_->sw.routing) {
    case Routing::kEcmp:
      return hops[hashed];
    case Routing::kSpray:
      return hops[ctx.rng().below(static_cast<std::uint32_t>(hops.size()))];
    case Routing::kAdaptive: {
      // Fewest queued bytes; ties go to the first candidate after the flow's hashed port.
      std::size_t best = hashed;
      for (std::size_t i = 1; i < hops.size(); ++i) {
        const std::size_t c = (hashed + i) % hops.size();
        if (ports_->at(sw, hops[c]).queued[kDataClass] <
            ports_->at(sw, hops[best]).queued[kDataClass]) {
          best = c;
        }
      }
      return hops[best];
    }
  }
  return hops[hashed];
}

bool Switches::admit(Ctx& ctx, NodeId sw, PortId in, PortId out, const Packet& pkt) {
  Buffer& b = buffers_[sw];
  const std::uint64_t bytes = pkt.wire;
  if (!cfg_->sw.pfc) {
    const std::uint64_t free = cfg_->sw.buffer_bytes - b.used;
    if (bytes > free || double(ports_->at(sw, out).queued[kDataClass] + bytes) >
                            cfg_->sw.egress_alpha * double(free)) {
      return false;
    }
    b.used += bytes;
    return true;
  }
  const std::uint32_t i = ports_->index(sw, in);
  Ingress& ig = ingress_[i];
  if (ig.shared + bytes <= xoff_threshold(sw, i) && b.shared_used + bytes <= b.shared_cap) {
    ig.shared += bytes;
    b.shared_used += bytes;
  } else if (ig.headroom + bytes <= headroom_[i]) {
    ig.headroom += bytes;
  } else {
    lossless_overrun(ctx, sw, in, pkt);
  }
  b.used += bytes;
  if (!ig.peer_paused && (ig.headroom > 0 || ig.shared >= xoff_threshold(sw, i))) {
    send_pause(ctx, sw, in, true);
  }
  return true;
}

void Switches::lossless_overrun(Ctx& ctx, NodeId sw, PortId in, const Packet& pkt) {
  const std::uint32_t i = ports_->index(sw, in);
  throw LosslessDrop(fmt::format(
      "lossless fabric dropped a packet at {} port {} (from {}) at {:.3f} us: the port's PFC "
      "headroom ({} bytes, {} in use) cannot take a {}-byte packet after XOFF{}; raise "
      "network.pfc_headroom_factor or network.buffer",
      topo_->nodes[sw].name, in, topo_->nodes[topo_->peer(sw, in)].name, double(ctx.now()) * 1e-6,
      headroom_[i], ingress_[i].headroom, pkt.wire,
      ingress_[i].peer_paused ? "" : " (no XOFF was sent: the shared pool is exhausted)"));
}

void Switches::receive(Ctx& ctx, NodeId sw, PortId in, const Packet& pkt, const Telemetry* t) {
  const PortId out = route(ctx, sw, pkt);
  Port& op = ports_->at(sw, out);
  const TrafficClass tc = pkt.traffic_class();
  if (tc == kDataClass) {
    if (!admit(ctx, sw, in, out, pkt)) {
      // Counted where switches count tail drops: at the egress queue that could not take it.
      PortStats& s = op.stats;
      ++s.drops;
      s.dropped_bytes += pkt.payload;
      return;
    }
    op.note_queue(ctx.now());
  }
  op.enqueue(pkt, t);
  op.queue[tc].back().in_port = in;
  if (tc == kDataClass) {
    op.stats.max_queue_bytes = std::max(op.stats.max_queue_bytes, op.queued[tc]);
  }
  transmit(ctx, sw, out);
}

void Switches::transmit(Ctx& ctx, NodeId sw, PortId out) {
  Port& op = ports_->at(sw, out);
  if (op.idle(ctx.now())) start_next(ctx, sw, out);
  if (!op.idle(ctx.now()) && (op.has_control() || !op.queue[kDataClass].empty())) {
    ports_->resume_when_idle(ctx, sw, out);
  }
}

void Switches::start_next(Ctx& ctx, NodeId sw, PortId out) {
  Port& op = ports_->at(sw, out);
  if (ports_->send_control(ctx, sw, out) || op.queue[kDataClass].empty()) return;
  if (op.data_paused(ctx.now())) {
    ports_->wake_at(ctx, sw, out, op.paused_until);
    return;
  }
  // A copy: ECN and telemetry change it on its way out, after it has left the queue.
  Packet pkt = op.queue[kDataClass].front();
  Telemetry t;  // filled only where it can travel on: HPCC stamps it, or it already has stamps
  if (pkt.hops) {
    t = *op.front_telemetry(kDataClass);
  } else if (hpcc_) {
    t = Telemetry{};
  }
  op.pop(kDataClass);
  op.note_queue(ctx.now());
  op.queued[kDataClass] -= pkt.wire;
  dequeued(ctx, sw, out, pkt, t);
  ports_->start_tx(ctx, sw, out, pkt, &t);
}

void Switches::dequeued(Ctx& ctx, NodeId sw, PortId out, Packet& pkt, Telemetry& t) {
  Buffer& b = buffers_[sw];
  b.used -= pkt.wire;
  if (cfg_->sw.pfc) {
    // Any packet leaving that came in on this port frees its headroom first, whichever pool the
    // packet itself was admitted to (HPCC-ns3 switch-mmu.cc RemoveFromIngressAdmission): the
    // headroom then empties as soon as the port drains at all, not when the very packets that
    // overflowed into it reach the head of a deep queue, and XON is not held back for that long.
    const std::uint32_t in = ports_->index(sw, pkt.in_port);
    Ingress& ig = ingress_[in];
    const std::uint64_t from_headroom = std::min<std::uint64_t>(ig.headroom, pkt.wire);
    ig.headroom -= from_headroom;
    ig.shared -= pkt.wire - from_headroom;
    b.shared_used -= pkt.wire - from_headroom;
    if (ig.peer_paused && may_resume(sw, in)) send_pause(ctx, sw, pkt.in_port, false);
  }
  Port& op = ports_->at(sw, out);
  const std::uint64_t q = op.queued[kDataClass];
  const std::uint32_t i = ports_->index(sw, out);
  // ACKs in the data class are neither marked (their CE bit echoes the data packet's) nor
  // stamped (their telemetry is the data packet's, echoed); HPCC-ns3 adds INT to data only.
  if (pkt.type != PacketType::kData) return;
  if (cfg_->sw.ecn) {
    const double p = red_probability(q, kmin_[i], kmax_[i], cfg_->sw.pmax);
    if (p > 0 && ctx.rng().uniform() < p) {
      if (!pkt.ce) ++op.stats.ecn_marks;
      pkt.ce = true;
    }
  }
  if (hpcc_ && pkt.hops < cc::kMaxIntHops) {
    const Link& l = topo_->link_at(sw, out);
    t.stamps[pkt.hops++] =
        IntStamp{static_cast<std::uint32_t>(std::min<std::uint64_t>(q, ~0u)),
                 static_cast<std::uint32_t>(l.rate / 1'000'000), op.stats.tx_bytes, ctx.now()};
  }
}

core::Time Switches::pause_refresh(Bps rate) const {
  return cfg_->sw.pfc_refresh ? cfg_->sw.pfc_refresh : pause_duration(*cfg_, rate) / 2;
}

void Switches::send_pause(Ctx& ctx, NodeId sw, PortId p, bool on) {
  Port& pt = ports_->at(sw, p);
  Ingress& ig = ingress_[ports_->index(sw, p)];
  Packet pause;
  pause.type = PacketType::kPause;
  pause.wire = kPauseWireBytes;
  const Bps rate = topo_->link_at(sw, p).rate;
  pause.sent = on ? pause_duration(*cfg_, rate) : 0;
  ig.peer_paused = on;
  if (on) {
    ++pt.stats.pauses_sent;
    // One pending refresh per port: a refresh still armed from an earlier pause fires first and
    // re-arms itself.
    if (ig.refresh_at < 0) {
      ig.refresh_at = ctx.now() + pause_refresh(rate);
      ctx.schedule(ig.refresh_at - ctx.now(), Network::kPfcRefresh, Network::Payload{.a = p});
    }
  }
  pt.enqueue(pause, nullptr);
  transmit(ctx, sw, p);
}

bool Switches::may_resume(NodeId sw, std::uint32_t port_index) const {
  const Ingress& ig = ingress_[port_index];
  // HPCC-ns3 switch-mmu.cc CheckShouldResume: no headroom in use, and either nothing of the
  // port's in the shared pool or below the threshold by the resume offset. A port holding
  // nothing always resumes: its threshold shrinks as other ports fill the pool, and a port that
  // emptied while it was low would otherwise stay paused with nothing left to dequeue.
  return ig.headroom == 0 && (ig.shared == 0 || ig.shared + cfg_->sw.pfc_resume_offset <=
                                                    xoff_threshold(sw, port_index));
}

void Switches::refresh_pause(Ctx& ctx, NodeId sw, PortId p) {
  const std::uint32_t i = ports_->index(sw, p);
  Ingress& ig = ingress_[i];
  ig.refresh_at = -1;
  // XON was sent meanwhile (the port drained below the resume threshold): nothing to refresh.
  if (!ig.peer_paused) return;
  // The threshold rises as other ports drain the shared pool: a port now below it resumes
  // instead of pausing its peer again.
  send_pause(ctx, sw, p, !may_resume(sw, i));
}

}  // namespace fabricsim::net
