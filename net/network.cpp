#include "net/network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "net/topology/partition.hpp"
#include "net/topology/validate.hpp"
#include "net/wire.hpp"

namespace fabricsim::net {

namespace {

void check_flow(const Topology& topo, const NetworkConfig& cfg, const FlowSpec& fs,
                std::uint32_t f) {
  if (fs.src_nic >= topo.nics.size() || fs.dst_nic >= topo.nics.size()) {
    throw std::invalid_argument(
        fmt::format("flow {}: NIC index out of range ({} NICs)", f, topo.nics.size()));
  }
  if (fs.src_nic == fs.dst_nic) {
    throw std::invalid_argument(fmt::format("flow {}: source and destination are the same NIC", f));
  }
  if (fs.bytes == 0) throw std::invalid_argument(fmt::format("flow {}: zero bytes", f));
  if (fs.start < 0) throw std::invalid_argument(fmt::format("flow {}: negative start", f));
  if (fs.messages.empty()) return;
  if (!std::is_sorted(fs.messages.begin(), fs.messages.end()) || fs.messages.back() != fs.bytes ||
      std::adjacent_find(fs.messages.begin(), fs.messages.end()) != fs.messages.end() ||
      fs.messages.front() == 0) {
    throw std::invalid_argument(fmt::format(
        "flow {}: message ends must increase and the last must equal its {} bytes", f, fs.bytes));
  }
  // Out-of-order placement indexes packets by offset / MTU, which needs MTU-aligned packets;
  // messages of any size break that.
  if (cfg.nic.out_of_order) {
    throw std::invalid_argument(
        "network.out_of_order is not supported with collectives yet (their messages are not "
        "MTU-aligned)");
  }
}

}  // namespace

Network::Network(const Topology& topo, const NetworkConfig& cfg, std::vector<FlowSpec> flows)
    : topo_(topo), cfg_(cfg), flows_(std::move(flows)) {
  validate(topo_);
  check_config(topo_, cfg_);
  check_memory();
  outages_ = Outages(topo_, cfg_.outages);
  const Routes& routes = outages_.routes(0);
  results_.resize(flows_.size());
  std::vector<core::Time> base_rtt(flows_.size());
  std::vector<Bps> hop_rates;  // of a flow's path, in order
  // Per-packet routing can give a flow alone its best path; per-flow ECMP its hashed one.
  const bool per_packet = cfg_.sw.routing != Routing::kEcmp;
  WidestPath widest(topo_);
  for (std::uint32_t f = 0; f < flows_.size(); ++f) {
    const FlowSpec& fs = flows_[f];
    check_flow(topo_, cfg_, fs, f);
    results_[f].start = fs.start;
    // Unloaded round trip: a full data packet out and an ACK back, each on the path the
    // switches' ECMP gives it (with unequal paths the first of the shortest is not the flow's);
    // under spraying or adaptive routing the data's best path (ACKs are hashed all the same).
    core::Time delays = 0, ack_back = 0, data_out = 0;
    hop_rates.clear();
    const NodeId src = topo_.nics[fs.src_nic], dst = topo_.nics[fs.dst_nic];
    const auto data_hop = [&](NodeId at, PortId p) {
      const Link& l = topo_.link_at(at, p);
      data_out += l.delay + serialization(data_wire_bytes(cfg_.nic.mtu), l.rate);
      delays += l.delay;
      hop_rates.push_back(l.rate);
    };
    if (per_packet) {
      widest.walk(topo_, routes, src, dst, fs.dst_nic, data_hop);
    } else {
      walk_ecmp_path(topo_, routes, src, dst, fs.dst_nic, f, data_hop);
    }
    walk_ecmp_path(topo_, routes, dst, src, fs.src_nic, f, [&](NodeId at, PortId p) {
      const Link& l = topo_.link_at(at, p);
      ack_back += l.delay + serialization(kAckWireBytes, l.rate);
    });
    const core::Time rtt = data_out + ack_back;
    // A timeout within the unloaded round trip fires before any ACK can return: every packet
    // would be sent again and again until retry_count gives up. Refused before the run.
    if (cfg_.nic.rto <= rtt) {
      throw std::invalid_argument(fmt::format(
          "network.rto ({:.3f} us) is not longer than the unloaded round trip of flow {} ({} -> "
          "{}: {:.3f} us), so every packet would time out before its ACK could return; raise "
          "network.rto (default {:.0f} us, the InfiniBand timeout 4.096 us x 2^14)",
          double(cfg_.nic.rto) * 1e-6, f, topo_.nodes[topo_.nics[fs.src_nic]].name,
          topo_.nodes[topo_.nics[fs.dst_nic]].name, double(rtt) * 1e-6,
          double(NicConfig{}.rto) * 1e-6));
    }
    base_rtt[f] = rtt;
    // Unloaded FCT (the reference of FCT slowdown, as HPCC's fct analysis): packets sent back
    // to back through store-and-forward hops, the last one perhaps short. The last leaves the
    // last hop at the longest monotone path through (packet, hop): for some hop h, every packet
    // but the last crosses the hops up to h and queues at the slowest of them, then the last
    // crosses h and the hops after it (a short last packet may wait at a fast hop after the
    // slowest for the full one ahead of it).
    const std::uint64_t packets = (fs.bytes + cfg_.nic.mtu - 1) / cfg_.nic.mtu;
    const std::uint32_t last_payload =
        static_cast<std::uint32_t>(fs.bytes - (packets - 1) * cfg_.nic.mtu);
    const std::uint64_t full_wire = data_wire_bytes(cfg_.nic.mtu);
    const std::uint64_t last_wire = data_wire_bytes(last_payload);
    // The whole flow over its slowest hop must fit the simulated horizon (serialization()
    // refuses it otherwise); below, the frames are timed one by one, as the NIC sends them.
    if (packets > 1) {
      serialization((packets - 2) * full_wire,
                    *std::min_element(hop_rates.begin(), hop_rates.end()));
    }
    core::Time longest = 0;
    core::Time first = 0;  // the first packet through the hops up to h
    Bps slowest = 0;       // of the hops up to h
    for (std::size_t h = 0; h < hop_rates.size(); ++h) {
      slowest = h == 0 ? hop_rates[0] : std::min(slowest, hop_rates[h]);
      core::Time t = 0;
      if (packets > 1) {
        first += serialization(full_wire, hop_rates[h]);
        t = first + static_cast<core::Time>(packets - 2) * serialization(full_wire, slowest);
      }
      for (std::size_t i = h; i < hop_rates.size(); ++i)
        t += serialization(last_wire, hop_rates[i]);
      longest = std::max(longest, t);
    }
    results_[f].ideal = delays + longest;
    results_[f].ideal_acked = results_[f].ideal + ack_back;
  }
  if (cfg_.cc.kind == cc::Kind::kHpcc && cfg_.cc.hpcc.global_base_rtt && !base_rtt.empty()) {
    const core::Time t = *std::max_element(base_rtt.begin(), base_rtt.end());
    std::fill(base_rtt.begin(), base_rtt.end(), t);
  }
  std::vector<std::uint16_t> flow_tag(flows_.size());
  for (std::uint32_t f = 0; f < flows_.size(); ++f) flow_tag[f] = flows_[f].tag;
  // Without failures the ports skip the check per frame altogether.
  ports_ = Ports(topo_, std::move(flow_tag), cfg_.outages.empty() ? nullptr : &outages_);
  switches_ = Switches(topo_, cfg_, outages_, ports_);
  nics_ = Nics(topo_, cfg_, flows_, results_, std::move(base_rtt), ports_);
  if (flow_level()) fluid_ = Fluid(topo_, cfg_, routes, flows_, results_, ports_);
}

std::vector<core::LpId> lp_of_nodes(const Topology& topo, std::size_t hosts, bool flow_level,
                                    const RunOptions& opt) {
  const std::uint32_t ranks = opt.ranks ? std::uint32_t(opt.ranks->size()) : 1;
  // Every MPI rank needs an LP, and threads need one each to work side by side: a topology with
  // fewer switch groups than that (one switch, two leaves) is cut between the NICs and their
  // switch instead, at the cost of a shorter lookahead (a NIC link's delay); results are the
  // same for any partition.
  const std::uint32_t workers = std::max<std::uint32_t>(ranks, opt.threads);
  const bool split_nics = workers > 1 && partition_groups(topo) < workers;
  // The flow level's shares couple every flow crossing a common link: one LP holds them all.
  const std::uint32_t lps = flow_level ? 1 : std::max({1u, opt.lps, ranks});
  if (ranks > 1 && partition_groups(topo, true) < ranks) {
    throw std::invalid_argument(
        fmt::format("{} MPI ranks for a network of {} nodes: run it on at most {}", ranks,
                    topo.nodes.size(), topo.nodes.size()));
  }
  std::vector<core::LpId> out = partition(topo, lps, split_nics);
  // A host agent lives with one of its NICs, so some of the NIC events it exchanges stay on one
  // LP. Agents run the hosts' executors (NVLink model, step bookkeeping): a large share of a
  // collective's work. With one NIC per rail, a host's NICs sit on different LPs, and putting
  // every agent with its first NIC would pile all of them on the LP of rail 0; each agent goes
  // instead to the LP of its NICs holding the fewest agents so far (first such NIC on a tie).
  std::vector<std::uint32_t> agents(lps, 0);  // by LP
  for (std::size_t h = 0; h < hosts; ++h) {
    core::LpId best = out[topo.hosts[h].nics.front()];
    for (NodeId nic : topo.hosts[h].nics) {
      const core::LpId lp = out[nic];
      if (agents[lp] < agents[best]) best = lp;
    }
    ++agents[best];
    out.push_back(best);
  }
  return out;
}

NetworkResult Network::run(const RunOptions& opt) {
  if (ran_) throw std::logic_error("a Network runs once; build a new one for another run");
  ran_ = true;
  if (!app_ && std::any_of(flows_.begin(), flows_.end(),
                           [](const FlowSpec& f) { return !f.messages.empty(); })) {
    throw std::invalid_argument("flows with messages need a HostApp (set_app) to post them");
  }
  core::SimConfig sc;
  const std::size_t hosts = app_ ? topo_.hosts.size() : 0;
  sc.nodes = static_cast<std::uint32_t>(topo_.nodes.size() + hosts);
  const std::uint32_t ranks = opt.ranks ? std::uint32_t(opt.ranks->size()) : 1;
  if (flow_level() && ranks > 1) {
    throw std::invalid_argument(
        "the flow level runs on one logical process (its shares couple every flow): it cannot "
        "be spread over MPI ranks; run it without mpirun");
  }
  sc.lp_of_node = lp_of_nodes(topo_, hosts, flow_level(), opt);
  sc.threads = opt.threads;
  sc.seed = opt.seed;
  sc.end = opt.end;
  sc.progress = opt.progress;
  sc.progress_ctx = opt.progress_ctx;
  sc.ranks = opt.ranks;
  // The flow level delivers a message from wherever its flow's shares were computed straight to
  // the receiving host's agent, never sooner than the host-NIC delay.
  if (flow_level() && app_) sc.any_to_any_delay = host_delay_;
  core::Simulation<Network> sim(*this, sc);
  // One FIFO channel per port, numbered as the port (frames on a link arrive in the order they
  // were sent): every packet crosses its link in at least the propagation delay plus the
  // serialization of the smallest frame.
  for (NodeId v = 0; v < topo_.nodes.size(); ++v) {
    for (PortId p = 0; p < topo_.nodes[v].ports.size(); ++p) {
      const Link& l = topo_.link_at(v, p);
      const std::uint32_t fifo = sim.add_fifo(
          v, topo_.peer(v, p), l.delay + serialization(padded_wire_bytes(kMinFrame), l.rate));
      if (fifo != ports_.index(v, p)) throw std::logic_error("link channels out of port order");
    }
  }
  for (std::uint32_t h = 0; h < hosts; ++h) {
    for (NodeId nic : topo_.hosts[h].nics) sim.add_channel(host_node(h), nic, host_delay_);
    sim.schedule_initial(host_node(h), 0, kHostStart);
  }
  for (const HostChannel& c : host_channels_) {
    sim.add_channel(host_node(c.a), host_node(c.b), c.delay);
  }
  for (std::uint32_t f = 0; f < flows_.size(); ++f) {
    if (!flows_[f].messages.empty()) continue;  // the app starts it
    sim.schedule_initial(topo_.nics[flows_[f].src_nic], flows_[f].start, kFlowStart,
                         Payload{.a = f});
  }

  NetworkResult r;
  r.kernel = sim.run();
  if (ranks > 1) {
    mine_.resize(sc.nodes);
    for (NodeId v = 0; v < mine_.size(); ++v) mine_[v] = sim.owns(v);
    take_owners(*opt.ranks, mine_);
  }
  // Once every flow is acknowledged only stale timers remain; time-averaged statistics are
  // taken over the traffic, not over the timers.
  r.end = r.kernel.end_time;
  if (!results_.empty() && std::all_of(results_.begin(), results_.end(),
                                       [](const FlowResult& f) { return f.acked >= 0; })) {
    r.end = 0;
    for (const FlowResult& f : results_) r.end = std::max(r.end, f.acked);
    // Go-back-N duplicates still queued when the last ACK arrives keep their links busy after
    // it: the traffic lasts until the last data frame is sent, or a port's busy time could
    // exceed the run's (118% on an adaptive-routed incast).
    if (!flow_level()) {
      for (const Port& p : ports_.all()) {
        r.end = std::max(r.end, std::min(p.data_until, r.kernel.end_time));
      }
    }
  }
  r.flows = results_;
  r.port_base.assign(ports_.base().begin(), ports_.base().end() - 1);
  r.ports.reserve(ports_.size());
  r.tags = ports_.tags();
  r.fidelity = cfg_.fidelity;
  if (flow_level()) {
    const Fluid::PortTotals t = fluid_.port_totals(r.kernel.end_time);
    for (std::size_t p = 0; p < ports_.size(); ++p) {
      PortStats s;
      s.tx_bytes = t.wire[p];
      s.tx_data_bytes = t.data[p];
      s.busy = t.busy[p];
      r.ports.push_back(s);
    }
    r.tag_bytes = fluid_.tag_bytes(r.tags, r.kernel.end_time);
    r.nic_data_sent = r.nic_data_received = r.delivered = fluid_.payload_sent(r.kernel.end_time);
    return r;
  }
  for (const Port& p : ports_.all()) {
    PortStats s = p.stats;
    // A frame counts its whole serialization when it starts: the part of one still on the
    // serializer at the end (a run cut off at simulation.end) is not busy time of the run.
    if (p.free_at > r.end) s.busy -= p.free_at - std::max(p.frame_start, r.end);
    s.queue_byte_ps += double(p.queued[kDataClass]) * double(r.end - p.queue_changed);
    // Close a pause still running at the end.
    if (p.paused_until > p.pause_began) {
      s.paused += std::max<core::Time>(0, std::min(p.paused_until, r.end) - p.pause_began);
    }
    r.ports.push_back(s);
    r.dropped += s.dropped_bytes + s.lost_bytes;
  }
  r.tag_bytes = ports_.tag_bytes();
  const Nics::Totals t = nics_.totals();
  r.nic_data_sent = t.data_sent;
  r.nic_data_received = t.data_received;
  r.delivered = t.delivered;
  return r;
}

void Network::take_owners(const core::Ranks& ranks, const std::vector<char>& mine) {
  // The sender's NIC writes a flow's start, last ACK, retransmissions, ECN echoes and timeouts,
  // the receiver's its finish.
  std::vector<core::Time> finish(results_.size());
  for (std::size_t f = 0; f < results_.size(); ++f) finish[f] = results_[f].finish;
  ranks.take_owners(results_, [&](std::size_t f) { return mine[topo_.nics[flows_[f].src_nic]]; });
  ranks.take_owners(finish, [&](std::size_t f) { return mine[topo_.nics[flows_[f].dst_nic]]; });
  for (std::size_t f = 0; f < results_.size(); ++f) results_[f].finish = finish[f];
  ports_.take_owners(ranks, mine);
  nics_.take_owners(ranks, mine);
}

void Network::receive(Ctx& ctx, std::uint32_t fifo, const Packet& pkt, const Telemetry* t) {
  const NodeId node = ctx.node();
  const PortId in = ports_.arrival_port(fifo);
  if (pkt.type == PacketType::kPause) {
    if (ports_.on_pause_frame(ctx, node, in, pkt)) transmit(ctx, node, in);
  } else if (topo_.nodes[node].kind == NodeKind::kNic) {
    nics_.receive(ctx, node, pkt, t);
  } else {
    switches_.receive(ctx, node, in, pkt, t);
  }
}

void Network::transmit(Ctx& ctx, NodeId node, PortId p) {
  if (topo_.nodes[node].kind == NodeKind::kNic) {
    nics_.transmit(ctx, node);
  } else {
    switches_.transmit(ctx, node, p);
  }
}

void Network::handle(Ctx& ctx, const core::Event<Payload>& ev) {
  const NodeId node = ev.dst;
  const Payload& p = ev.payload;
  switch (static_cast<Kind>(ev.kind)) {
    case kTxDone:
      ports_.at(node, p.a).tx_done_pending = false;
      transmit(ctx, node, p.a);
      return;
    case kPortWake: {
      Port& pt = ports_.at(node, p.a);
      if (pt.wake_at != ctx.now()) return;  // superseded
      pt.wake_at = -1;
      transmit(ctx, node, p.a);
      return;
    }
    case kNicWake:
      nics_.wake(ctx, node);
      return;
    case kFlowStart:
      if (flow_level()) {
        fluid_.flow_start(ctx, p.a);
      } else {
        nics_.flow_start(ctx, p.a);
      }
      return;
    case kRto:
      nics_.flow_timeout(ctx, p.a);
      return;
    case kPost:
      if (flow_level()) {
        fluid_.app_post(ctx, p.a, p.c);
      } else {
        nics_.app_post(ctx, p.a, p.c);
      }
      return;
    case kDelivered:
      app_->on_delivered(ctx, host_of_agent(node), p.a, p.b);
      return;
    case kApp:
      app_->on_message(ctx, host_of_agent(node), AppMsg{p.a, p.b, p.c});
      return;
    case kHostStart:
      app_->on_start(ctx, host_of_agent(node));
      return;
    case kPfcRefresh:
      switches_.refresh_pause(ctx, node, p.a);
      return;
    case kFluidWake:
      fluid_.wake(ctx, p.c);
      return;
  }
}

void Network::set_app(HostApp* app, core::Time host_delay) {
  if (ran_) throw std::logic_error("set_app after run");
  if (host_delay <= 0) throw std::invalid_argument("the host-NIC delay must be positive");
  for (const Host& h : topo_.hosts) {
    if (h.nics.empty()) throw std::invalid_argument("host " + h.name + " has no NIC");
  }
  app_ = app;
  host_delay_ = host_delay;
  nics_.set_hosts(host_node(0), host_delay);
  fluid_.set_hosts(host_node(0), host_delay);
}

void Network::add_host_channel(std::uint32_t a, std::uint32_t b, core::Time delay) {
  if (a >= topo_.hosts.size() || b >= topo_.hosts.size()) {
    throw std::invalid_argument("add_host_channel: host index out of range");
  }
  host_channels_.push_back({a, b, delay});
}

void Network::post(Ctx& ctx, std::uint32_t flow, std::uint64_t bytes) {
  ctx.send(topo_.nics[flows_[flow].src_nic], host_delay_, kPost, Payload{.a = flow, .c = bytes});
}

void Network::host_send(Ctx& ctx, std::uint32_t to, core::Time delay, const AppMsg& m) {
  const Payload p{m.a, m.b, m.c};
  if (host_node(to) == ctx.node()) {
    ctx.schedule(delay, kApp, p);
  } else {
    ctx.send(host_node(to), delay, kApp, p);
  }
}

}  // namespace fabricsim::net
