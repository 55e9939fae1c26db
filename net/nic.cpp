// The NIC's transport: pacing and round-robin over queue pairs, the receiver's ACK/NACK/CNP
// rules, go-back-N and the retransmission timeout.
#include "net/nic.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "net/network.hpp"
#include "net/wire.hpp"

namespace fabricsim::net {

Nics::Nics(const Topology& topo, const NetworkConfig& cfg, const std::vector<FlowSpec>& flows,
           std::vector<FlowResult>& results, std::vector<core::Time> base_rtt, Ports& ports)
    : topo_(&topo),
      cfg_(&cfg),
      flows_(&flows),
      results_(&results),
      ports_(&ports),
      base_rtt_(std::move(base_rtt)),
      nic_index_(topo.nic_index_of_nodes()),
      nics_(topo.nics.size()),
      send_(flows.size()),
      recv_(flows.size()),
      dcqcn_(cfg.cc.kind == cc::Kind::kDcqcn),
      dctcp_(cfg.cc.kind == cc::Kind::kDctcp),
      hpcc_(cfg.cc.kind == cc::Kind::kHpcc),
      fixed_rates_(cfg.cc.kind == cc::Kind::kNone),
      telemetry_wire_(cfg.cc.kind == cc::Kind::kHpcc ? kHpccIntBytes : 0) {
  // Plain flows may send all their bytes; app flows what their host posts.
  for (std::uint32_t f = 0; f < flows.size(); ++f) {
    if (flows[f].messages.empty()) send_[f].posted = flows[f].bytes;
  }
}

Nics::Totals Nics::totals() const {
  Totals t;
  for (const NicState& n : nics_) {
    t.data_sent += n.totals.data_sent;
    t.data_received += n.totals.data_received;
    t.delivered += n.totals.delivered;
  }
  return t;
}

void Nics::take_owners(const core::Ranks& ranks, const std::vector<char>& mine) {
  std::vector<Totals> t(nics_.size());
  for (std::size_t i = 0; i < nics_.size(); ++i) t[i] = nics_[i].totals;
  ranks.take_owners(t, [&](std::size_t i) { return mine[topo_->nics[i]] != 0; });
  for (std::size_t i = 0; i < nics_.size(); ++i) nics_[i].totals = t[i];
}

void Nics::transmit(Ctx& ctx, NodeId node) {
  Port& pt = ports_->at(node, 0);
  if (pt.idle(ctx.now())) start_next(ctx, node);
  if (!pt.idle(ctx.now()) &&
      (pt.has_control() || !pt.queue[kDataClass].empty() || !state_of(node).active.empty())) {
    ports_->resume_when_idle(ctx, node, 0);
  }
}

void Nics::start_next(Ctx& ctx, NodeId node) {
  Port& pt = ports_->at(node, 0);
  if (ports_->send_control(ctx, node, 0)) return;
  if (pt.data_paused(ctx.now())) {
    if (!state_of(node).active.empty() || !pt.queue[kDataClass].empty()) {
      ports_->wake_at(ctx, node, 0, pt.paused_until);
    }
    return;
  }
  // ACKs that travel with the data (NicConfig::ack_in_data_class) leave before the next data
  // packet: the responder answers before the queue pairs take their turn.
  if (!pt.queue[kDataClass].empty()) {
    ports_->send_head(ctx, node, 0, kDataClass);
    return;
  }
  Packet pkt;
  if (next_data(ctx, node, pkt)) ports_->start_tx(ctx, node, 0, pkt, nullptr);
}

void Nics::wake(Ctx& ctx, NodeId node) {
  NicState& n = state_of(node);
  if (n.wake_at != ctx.now()) return;  // superseded
  n.wake_at = -1;
  transmit(ctx, node);
}

void Nics::flow_start(Ctx& ctx, std::uint32_t f) {
  SendState& s = send_[f];
  const NodeId node = ctx.node();
  cc::init(s.cc, cfg_->cc, topo_->link_at(node, 0).rate, base_rtt_[f], cfg_->nic.mtu);
  s.active = true;
  NicState& nic = state_of(node);
  nic.active.push_back(f);
  nic.not_before.push_back(0);
  transmit(ctx, node);
}

void Nics::app_post(Ctx& ctx, std::uint32_t f, std::uint64_t bytes) {
  SendState& s = send_[f];
  s.posted += bytes;
  if (s.posted > (*flows_)[f].bytes) {
    throw std::logic_error(
        fmt::format("flow {}: the app posted more than its {} bytes", f, (*flows_)[f].bytes));
  }
  if (!s.active) {
    (*results_)[f].start = ctx.now();
    flow_start(ctx, f);
  } else {
    transmit(ctx, ctx.node());
  }
}

bool Nics::note_delivered(Ctx& ctx, NodeId nic, std::uint32_t f) {
  const std::vector<std::uint64_t>& ends = (*flows_)[f].messages;
  RecvState& r = recv_[f];
  const std::uint32_t before = r.messages_done;
  while (r.messages_done < ends.size() && ends[r.messages_done] <= r.rcv_nxt) ++r.messages_done;
  if (r.messages_done == before) return false;
  ctx.send(first_agent_ + topo_->nodes[nic].host, host_delay_, Network::kDelivered,
           Network::Payload{.a = f, .b = r.messages_done});
  return true;
}

void Nics::arm_rto(Ctx& ctx, std::uint32_t f) {
  SendState& s = send_[f];
  if (s.rto_event_at >= 0) return;  // the pending event re-arms itself at the deadline
  s.rto_event_at = s.rto_deadline;
  ctx.schedule(s.rto_deadline - ctx.now(), Network::kRto, Network::Payload{.a = f});
}

void Nics::flow_timeout(Ctx& ctx, std::uint32_t f) {
  SendState& s = send_[f];
  if (ctx.now() != s.rto_event_at) return;  // stale
  s.rto_event_at = -1;
  if (!s.active || s.rto_deadline < 0) return;
  if (ctx.now() < s.rto_deadline) {
    arm_rto(ctx, f);
    return;
  }
  // No progress for a whole timeout: go back to the first unacknowledged byte, at most
  // retry_count times in a row; then the queue pair fails, as an RC QP does with
  // IBV_WC_RETRY_EXC_ERR (and NCCL aborts), instead of retrying forever.
  ++(*results_)[f].timeouts;
  if (++s.retries > cfg_->nic.retry_count) transport_failed(ctx, f);
  s.snd_nxt = s.snd_una;
  s.rto_deadline = core::later(ctx.now(), cfg_->nic.rto, "a retransmission timeout");
  arm_rto(ctx, f);
  transmit(ctx, ctx.node());
}

void Nics::transport_failed(Ctx& ctx, std::uint32_t f) {
  const SendState& s = send_[f];
  // A lossless fabric without failing links loses no frame (a drop there stops the run), so
  // its timeouts mean that nothing moved at all.
  const char* causes =
      cfg_->sw.pfc && cfg_->outages.empty()
          ? "PFC is on and no link fails, so no frame was lost: nothing moved for a whole "
            "timeout. Likely causes: a PFC deadlock (paused ports in a cycle, as routes around "
            "a ring or torus can make), network.rto shorter than the round trip, or a link so "
            "slow that one packet outlasts the timeout"
          : "Likely causes: a lossy buffer too small for the burst, network.rto shorter than the "
            "round trip, or a link so slow that one packet outlasts the timeout";
  throw TransportError(fmt::format(
      "flow {} ({} -> {}) failed at {:.3f} us: {} retransmission timeouts of {:.3f} us in a row "
      "without an acknowledged byte (stuck at byte {} of {}), past network.retry_count = {}. {}",
      f, topo_->nodes[topo_->nics[(*flows_)[f].src_nic]].name,
      topo_->nodes[topo_->nics[(*flows_)[f].dst_nic]].name, double(ctx.now()) * 1e-6, s.retries,
      double(cfg_->nic.rto) * 1e-6, s.snd_una, (*flows_)[f].bytes, cfg_->nic.retry_count, causes));
}

bool Nics::next_data(Ctx& ctx, NodeId node, Packet& out) {
  NicState& nic = state_of(node);
  const core::Time now = ctx.now();
  core::Time earliest = core::kTimeMax;
  const std::size_t count = nic.active.size();
  std::size_t idx = count > 0 ? nic.rr % count : 0;
  for (std::size_t i = 0; i < count; ++i, idx = idx + 1 == count ? 0 : idx + 1) {
    if (nic.not_before[idx] > now) {
      earliest = std::min(earliest, nic.not_before[idx]);
      continue;
    }
    const std::uint32_t f = nic.active[idx];
    SendState& s = send_[f];
    // Everything (posted) sent: waiting for ACKs or for the app.
    if (s.snd_nxt >= s.posted) continue;
    cc::advance(s.cc, cfg_->cc, now);
    const std::uint32_t payload =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(cfg_->nic.mtu, s.posted - s.snd_nxt));
    const std::uint64_t window = cc::window_bytes(s.cc);
    const std::uint64_t in_flight = s.snd_nxt - s.snd_una;
    // A window limits bytes in flight. HPCC's lets a packet go while fewer bytes than the window
    // are in flight, so one may overshoot it (HPCC-ns3 RdmaQueuePair::IsWinBound: on the fly >=
    // w); with a window of 2.7 packets (a 100 Gb/s link of 50 ns) the stricter rule held a lone
    // flow to 2 packets a round trip, 75% of the line. DCTCP's is TCP's congestion window: a
    // segment must fit it, except that one may always go when nothing is in flight.
    if (window && (hpcc_ ? in_flight >= window : in_flight > 0 && in_flight + payload > window)) {
      continue;
    }
    // The rate limiter spaces packets by the last one's size at the current rate, re-timed
    // whenever the rate changes (HPCC-ns3 RdmaHw::ChangeRate): a flow cut to its floor is not
    // held back at that rate once the congestion control has raised it again.
    core::Time next_send = now;
    if (s.last_wire) {
      const Bps rate = std::max<Bps>(1, cc::rate(s.cc));
      if (rate != s.paced_rate) {
        s.paced_rate = rate;
        s.paced_until = s.last_send + serialization(s.last_wire, rate);
      }
      next_send = s.paced_until;
    }
    // The application's limit counts its own bytes: the last packet's payload at that rate.
    const Bps app_rate = (*flows_)[f].max_rate;
    if (app_rate > 0 && s.last_payload) next_send = std::max(next_send, s.app_until);
    if (next_send > now) {
      // The rate may rise before then on a timer of the congestion control: look again then.
      earliest = std::min({earliest, next_send, cc::next_increase(s.cc)});
      if (fixed_rates_) nic.not_before[idx] = next_send;
      continue;
    }
    out.type = PacketType::kData;  // `out` is a fresh Packet: the rest keeps its defaults
    out.seq = s.snd_nxt;
    out.sent = now;
    out.flow = f;
    out.payload = payload;
    out.wire = data_wire_bytes(payload) + telemetry_wire_;
    out.src = node;
    out.dst = topo_->nics[(*flows_)[f].dst_nic];
    if (s.snd_nxt < s.max_sent) (*results_)[f].retransmitted_bytes += payload;
    s.snd_nxt += payload;
    s.max_sent = std::max(s.max_sent, s.snd_nxt);
    cc::on_send(s.cc, cfg_->cc, now, payload);
    s.last_send = now;
    s.last_wire = out.wire;
    s.last_payload = payload;
    s.paced_rate = 0;  // the next scan times the next packet
    if (app_rate > 0) s.app_until = now + serialization(payload, app_rate);
    // When the window will stop the sender after this packet, ask for an ACK now: with
    // ack_every > 1 the receiver would otherwise wait for packets that never come.
    out.ack_req = s.snd_nxt >= s.posted ||
                  (window && (hpcc_ ? s.snd_nxt - s.snd_una >= window
                                    : s.snd_nxt - s.snd_una + cfg_->nic.mtu > window));
    if (s.rto_deadline < 0) {
      s.rto_deadline = core::later(now, cfg_->nic.rto, "a retransmission timeout");
      arm_rto(ctx, f);
    }
    nic.rr = static_cast<std::uint32_t>(idx + 1);
    nic.totals.data_sent += payload;
    return true;
  }
  if (earliest != core::kTimeMax && (nic.wake_at < 0 || earliest < nic.wake_at)) {
    nic.wake_at = earliest;
    ctx.schedule(earliest - now, Network::kNicWake, Network::Payload{});
  }
  return false;
}

void Nics::send_control(Ctx& ctx, NodeId node, const Packet& pkt, const Telemetry* t) {
  ports_->at(node, 0).enqueue(pkt, t);
  transmit(ctx, node);
}

void Nics::receive(Ctx& ctx, NodeId node, const Packet& pkt, const Telemetry* t) {
  switch (pkt.type) {
    case PacketType::kData:
      receive_data(ctx, node, pkt, t);
      return;
    case PacketType::kAck:
    case PacketType::kNack:
      receive_ack(ctx, node, pkt, t);
      return;
    case PacketType::kCnp:
      if (send_[pkt.flow].active) cc::on_cnp(send_[pkt.flow].cc, cfg_->cc, ctx.now());
      return;
    case PacketType::kPause:
      return;  // handled as a port event
  }
}

void Nics::receive_data(Ctx& ctx, NodeId node, const Packet& pkt, const Telemetry* t) {
  NicState& nic = state_of(node);
  RecvState& r = recv_[pkt.flow];
  const core::Time now = ctx.now();
  const std::uint64_t size = (*flows_)[pkt.flow].bytes;
  nic.totals.data_received += pkt.payload;

  Packet reply;
  reply.flow = pkt.flow;
  reply.src = node;
  reply.dst = pkt.src;
  reply.in_data = cfg_->nic.ack_in_data_class;
  // DCQCN notification point: at most one CNP per flow per interval.
  if (pkt.ce && dcqcn_ && (r.last_cnp < 0 || now - r.last_cnp >= cfg_->cc.dcqcn.cnp_interval)) {
    r.last_cnp = now;
    Packet cnp = reply;
    cnp.type = PacketType::kCnp;
    cnp.wire = kCnpWireBytes;
    send_control(ctx, node, cnp);
  }
  // DCTCP's receiver acknowledges at once when the CE mark of what it receives changes (RFC 8257,
  // section 3.2), so that each ACK's ECN-Echo stands for a run of packets marked alike: the packets
  // before this one are acknowledged with their own mark. Nothing else acknowledges a CE mark
  // early: a RoCE NIC answers it with a CNP (DCQCN, above), and HPCC-ns3 acknowledges at its ACK
  // interval only.
  if (dctcp_ && pkt.ce != r.ce_run) {
    if (r.since_ack > 0) {
      r.since_ack = 0;
      Packet early = reply;
      early.type = PacketType::kAck;
      early.seq = r.rcv_nxt;
      early.sent = pkt.sent;
      early.ce = r.ce_run;
      early.wire = kAckWireBytes + telemetry_wire_;
      send_control(ctx, node, early);
    }
    r.ce_run = pkt.ce;
  }
  bool ack = false;
  if (pkt.seq == r.rcv_nxt) {
    r.rcv_nxt += pkt.payload;
    nic.totals.delivered += pkt.payload;
    if (cfg_->nic.out_of_order) advance_over_ahead(r, size);
    if (r.rcv_nxt == size) (*results_)[pkt.flow].finish = now;
    const bool message_end =
        !(*flows_)[pkt.flow].messages.empty() && note_delivered(ctx, node, pkt.flow);
    ack = ++r.since_ack >= cfg_->nic.ack_every || r.rcv_nxt == size || message_end || pkt.ack_req;
  } else if (pkt.seq > r.rcv_nxt && cfg_->nic.out_of_order) {
    if (place_ahead(r, pkt, size)) nic.totals.delivered += pkt.payload;
    ack = ++r.since_ack >= cfg_->nic.ack_every || pkt.ack_req;
  } else if (pkt.seq > r.rcv_nxt) {
    // A gap: go-back-N receivers discard what comes after it and ask for the missing byte.
    if (r.nack_seq != r.rcv_nxt || now - r.nack_at >= cfg_->nic.nack_interval) {
      r.nack_seq = r.rcv_nxt;
      r.nack_at = now;
      Packet nack = reply;
      nack.type = PacketType::kNack;
      nack.seq = r.rcv_nxt;
      nack.wire = kAckWireBytes + telemetry_wire_;
      send_control(ctx, node, nack);
    }
    return;
  } else {
    ack = true;  // a duplicate: acknowledge again so the sender moves on
  }
  if (!ack) return;
  r.since_ack = 0;
  reply.type = PacketType::kAck;
  reply.seq = r.rcv_nxt;
  reply.sent = pkt.sent;
  reply.ce = pkt.ce;
  reply.wire = kAckWireBytes + telemetry_wire_;
  reply.hops = pkt.hops;
  send_control(ctx, node, reply, t);  // the ACK echoes the data packet's telemetry
}

bool Nics::place_ahead(RecvState& r, const Packet& pkt, std::uint64_t size) {
  const std::uint64_t index = pkt.seq / cfg_->nic.mtu;
  if (r.ahead.empty()) r.ahead.assign((size / cfg_->nic.mtu + 64) / 64, 0);
  std::uint64_t& word = r.ahead[index / 64];
  const std::uint64_t bit = std::uint64_t{1} << (index % 64);
  if (word & bit) return false;
  word |= bit;
  return true;
}

void Nics::advance_over_ahead(RecvState& r, std::uint64_t size) {
  if (r.ahead.empty()) return;
  for (;;) {
    const std::uint64_t index = r.rcv_nxt / cfg_->nic.mtu;
    if (r.rcv_nxt >= size || !(r.ahead[index / 64] & (std::uint64_t{1} << (index % 64)))) return;
    r.rcv_nxt += std::min<std::uint64_t>(cfg_->nic.mtu, size - r.rcv_nxt);
  }
}

void Nics::receive_ack(Ctx& ctx, NodeId node, const Packet& pkt, const Telemetry* t) {
  SendState& s = send_[pkt.flow];
  if (!s.active) return;  // a late ACK of a finished flow
  const core::Time now = ctx.now();
  const std::uint64_t size = (*flows_)[pkt.flow].bytes;
  if (pkt.seq > s.snd_una) {
    const std::uint64_t acked = pkt.seq - s.snd_una;
    s.snd_una = pkt.seq;
    s.snd_nxt = std::max(s.snd_nxt, s.snd_una);
    if (pkt.type == PacketType::kAck) {
      cc::AckInfo info;
      info.acked_bytes = acked;
      info.acked_seq = s.snd_una;
      info.snd_nxt = s.snd_nxt;
      info.ecn_echo = pkt.ce;
      if (pkt.ce) (*results_)[pkt.flow].ecn_echoed_bytes += acked;
      info.rtt = now - pkt.sent;
      info.hops = pkt.hops;
      for (std::uint8_t h = 0; h < pkt.hops; ++h) {
        const IntStamp& st = t->stamps[h];
        info.int_hops[h] =
            cc::IntHop{st.qlen_bytes, st.tx_bytes, st.ts, Bps(st.rate_mbps) * 1'000'000};
      }
      cc::on_ack(s.cc, cfg_->cc, now, info);
    }
    s.retries = 0;
    s.rto_deadline =
        s.snd_una < s.snd_nxt ? core::later(now, cfg_->nic.rto, "a retransmission timeout") : -1;
  }
  if (pkt.type == PacketType::kNack && pkt.seq < s.snd_nxt) s.snd_nxt = pkt.seq;  // go back N
  if (s.snd_una >= size) {
    s.active = false;
    s.rto_deadline = -1;
    (*results_)[pkt.flow].acked = now;
    NicState& nic = state_of(node);
    const auto it = std::find(nic.active.begin(), nic.active.end(), pkt.flow);
    const auto at = it - nic.active.begin();
    // Keep the round-robin turn on the QP that was next.
    if (static_cast<std::uint32_t>(at) < nic.rr) --nic.rr;
    nic.active.erase(it);
    nic.not_before.erase(nic.not_before.begin() + at);
  }
  transmit(ctx, node);
}

}  // namespace fabricsim::net
