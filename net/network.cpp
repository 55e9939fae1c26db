#include "net/network.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "net/topology/partition.hpp"
#include "net/topology/validate.hpp"
#include "net/wire.hpp"

namespace fabricsim::net {

std::uint64_t port_headroom(const Link& l, const NetworkConfig& cfg) {
  return std::uint64_t(cfg.sw.pfc_headroom_factor * double(l.rate) * (double(l.delay) * 1e-12) /
                       8.0) +
         2 * data_wire_bytes(cfg.nic.mtu);
}

core::Time pause_duration(const NetworkConfig& cfg, Bps rate) {
  return serialization(std::uint64_t{cfg.sw.pfc_pause_quanta} * 64, rate);
}

void check_config(const Topology& topo, const NetworkConfig& cfg) {
  if (const char* bad = cc::validate(cfg.cc)) throw std::invalid_argument(bad);
  if (cfg.nic.mtu == 0) throw std::invalid_argument("network.mtu must be positive");
  if (cfg.nic.ack_every == 0) throw std::invalid_argument("network.ack_every must be positive");
  // XON needs room below XOFF, or a paused port would only ever resume by expiry.
  if (cfg.sw.pfc && cfg.sw.pfc_xoff_bytes &&
      cfg.sw.pfc_xoff_bytes <= cfg.sw.pfc_resume_offset + data_wire_bytes(cfg.nic.mtu)) {
    throw std::invalid_argument(fmt::format(
        "network.pfc_xoff ({} bytes) must exceed network.pfc_resume_offset ({} bytes) plus one "
        "full packet on the wire ({} bytes)",
        cfg.sw.pfc_xoff_bytes, cfg.sw.pfc_resume_offset, data_wire_bytes(cfg.nic.mtu)));
  }
  if (cfg.cc.kind == cc::Kind::kHpcc && cfg.sw.routing != Routing::kEcmp) {
    // HPCC compares each hop's telemetry with the previous ACK's for the same hop; per-packet
    // routing mixes hops of different paths and the window collapses to its floor.
    throw std::invalid_argument(
        "network.cc=hpcc needs network.routing=ecmp: HPCC's per-hop telemetry assumes one path "
        "per flow, and spray/adaptive routing give each packet its own");
  }
  if (cfg.sw.buffer_bytes < data_wire_bytes(cfg.nic.mtu)) {
    // Every full packet would be dropped (lossy) or could never be admitted (PFC).
    throw std::invalid_argument(fmt::format(
        "network.buffer ({} bytes) cannot hold one full packet ({} bytes on the wire with "
        "network.mtu = {})",
        cfg.sw.buffer_bytes, data_wire_bytes(cfg.nic.mtu), cfg.nic.mtu));
  }
  if (!cfg.sw.pfc) return;
  if (cfg.sw.pfc_pause_quanta == 0 || cfg.sw.pfc_pause_quanta > 65535) {
    throw std::invalid_argument(
        fmt::format("network.pfc_pause_quanta ({}) must be 1-65535 (the 16-bit PAUSE time field)",
                    cfg.sw.pfc_pause_quanta));
  }
  for (NodeId v = 0; v < topo.nodes.size(); ++v) {
    const Node& node = topo.nodes[v];
    if (node.kind != NodeKind::kSwitch) continue;
    std::uint64_t headroom = 0;
    for (PortId p = 0; p < node.ports.size(); ++p) {
      const Link& l = topo.link_at(v, p);
      headroom += port_headroom(l, cfg);
      const core::Time pause = pause_duration(cfg, l.rate);
      if (cfg.sw.pfc_refresh >= pause) {
        throw std::invalid_argument(fmt::format(
            "network.pfc_refresh ({:.3f} us) must be shorter than one PAUSE ({} quanta = {:.3f} "
            "us at {} Gb/s, on port {} of switch {}), or pauses lapse while congested",
            double(cfg.sw.pfc_refresh) * 1e-6, cfg.sw.pfc_pause_quanta, double(pause) * 1e-6,
            double(l.rate) * 1e-9, p, node.name));
      }
    }
    if (headroom >= cfg.sw.buffer_bytes) {
      throw std::invalid_argument(fmt::format(
          "switch {}: PFC headroom of its {} ports ({} bytes) does not fit in the {}-byte "
          "buffer; raise network.buffer or lower network.pfc_headroom_factor",
          node.name, node.ports.size(), headroom, cfg.sw.buffer_bytes));
    }
  }
}

namespace {

std::uint64_t default_memory_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) / 4 * 3
                               : std::uint64_t{16} << 30;
}

std::atomic<std::uint64_t> g_memory_limit{default_memory_limit()};

}  // namespace

void set_memory_limit(std::uint64_t bytes) {
  g_memory_limit.store(bytes);
}

std::uint64_t memory_limit() {
  return g_memory_limit.load();
}

void Network::check_memory() const {
  const std::uint64_t routes = Routes::estimate_bytes(topo_);
  std::uint64_t ports = 0;
  for (const Node& n : topo_.nodes) ports += n.ports.size();
  const std::uint64_t nodes = topo_.nodes.size();
  const std::uint64_t per_flow = sizeof(FlowSpec) + sizeof(SendState) + sizeof(RecvState) +
                                 sizeof(FlowResult) + sizeof(core::Time);
  // Per port: its state plus RED thresholds and headroom; per node: switch state plus the
  // kernel's sequence counter, RNG stream and LP map (~64 bytes).
  const std::uint64_t need = routes + ports * (sizeof(Port) + 3 * sizeof(std::uint64_t)) +
                             nodes * (sizeof(SwitchState) + 64) +
                             topo_.nics.size() * sizeof(NicState) + flows_.size() * per_flow;
  if (need <= memory_limit()) return;
  const auto size = [](std::uint64_t b) {
    return b >= 1'000'000'000 ? fmt::format("{:.1f} GB", double(b) * 1e-9)
           : b >= 1'000'000   ? fmt::format("{:.1f} MB", double(b) * 1e-6)
                              : fmt::format("{} bytes", b);
  };
  throw std::length_error(fmt::format(
      "this network needs about {} ({} of routing tables for {} switches, {} ports, {} flows), "
      "above the {} limit (--max-memory; default 75% of this machine's memory): make the "
      "cluster or the flow list smaller",
      size(need), size(routes), nodes - topo_.nics.size(), ports, flows_.size(),
      size(memory_limit())));
}

Network::Network(const Topology& topo, const NetworkConfig& cfg, std::vector<FlowSpec> flows)
    : topo_(topo), cfg_(cfg), flows_(std::move(flows)) {
  validate(topo_);
  check_config(topo_, cfg_);
  check_memory();
  routes_ = Routes::build(topo_);
  hpcc_ = cfg_.cc.kind == cc::Kind::kHpcc;
  dcqcn_ = cfg_.cc.kind == cc::Kind::kDcqcn;

  const std::size_t n = topo_.nodes.size();
  nic_index_.assign(n, ~0u);
  for (std::uint32_t i = 0; i < topo_.nics.size(); ++i) nic_index_[topo_.nics[i]] = i;
  port_base_.resize(n + 1);
  for (std::size_t v = 0; v < n; ++v) {
    port_base_[v + 1] = port_base_[v] + static_cast<std::uint32_t>(topo_.nodes[v].ports.size());
  }
  ports_.resize(port_base_[n]);
  arrival_port_.resize(ports_.size());
  for (NodeId v = 0; v < n; ++v) {
    for (PortId p = 0; p < topo_.nodes[v].ports.size(); ++p) {
      arrival_port_[port_base_[v] + p] = topo_.peer_port(v, p);
    }
  }
  kmin_.resize(ports_.size());
  kmax_.resize(ports_.size());
  headroom_.resize(ports_.size());
  switches_.resize(n);
  for (NodeId v = 0; v < n; ++v) {
    const Node& node = topo_.nodes[v];
    std::uint64_t headroom = 0;
    for (PortId p = 0; p < node.ports.size(); ++p) {
      const Link& l = topo_.link_at(v, p);
      // RED thresholds scale with the port rate (HPCC-ns3 run.py, see SwitchConfig).
      const double scale = double(l.rate) / double(25 * kGbps);
      kmin_[port_base_[v] + p] =
          cfg_.sw.kmin_bytes ? cfg_.sw.kmin_bytes : std::uint64_t(100'000 * scale);
      kmax_[port_base_[v] + p] =
          cfg_.sw.kmax_bytes ? cfg_.sw.kmax_bytes : std::uint64_t(400'000 * scale);
      headroom_[port_base_[v] + p] = port_headroom(l, cfg_);
      headroom += headroom_[port_base_[v] + p];
    }
    if (node.kind == NodeKind::kSwitch) {
      switches_[v].shared_cap =
          cfg_.sw.pfc ? cfg_.sw.buffer_bytes - headroom : cfg_.sw.buffer_bytes;
    }
  }
  nics_.resize(topo_.nics.size());
  send_.resize(flows_.size());
  recv_.resize(flows_.size());
  results_.resize(flows_.size());
  base_rtt_.resize(flows_.size());
  for (std::uint32_t f = 0; f < flows_.size(); ++f) {
    const FlowSpec& fs = flows_[f];
    if (fs.src_nic >= topo_.nics.size() || fs.dst_nic >= topo_.nics.size()) {
      throw std::invalid_argument(
          fmt::format("flow {}: NIC index out of range ({} NICs)", f, topo_.nics.size()));
    }
    if (fs.src_nic == fs.dst_nic) {
      throw std::invalid_argument(
          fmt::format("flow {}: source and destination are the same NIC", f));
    }
    if (fs.bytes == 0) throw std::invalid_argument(fmt::format("flow {}: zero bytes", f));
    if (fs.start < 0) throw std::invalid_argument(fmt::format("flow {}: negative start", f));
    if (!fs.messages.empty()) {
      if (!std::is_sorted(fs.messages.begin(), fs.messages.end()) ||
          fs.messages.back() != fs.bytes ||
          std::adjacent_find(fs.messages.begin(), fs.messages.end()) != fs.messages.end() ||
          fs.messages.front() == 0) {
        throw std::invalid_argument(
            fmt::format("flow {}: message ends must increase and the last must equal its {} bytes",
                        f, fs.bytes));
      }
      // Out-of-order placement indexes packets by offset / MTU, which needs MTU-aligned
      // packets; messages of any size break that.
      if (cfg_.nic.out_of_order) {
        throw std::invalid_argument(
            "network.out_of_order is not supported with collectives yet (their messages are "
            "not MTU-aligned)");
      }
    } else {
      send_[f].posted = fs.bytes;
    }
    results_[f].start = fs.start;
    // Unloaded round trip: a full data packet out and an ACK back over the shortest path.
    // Unloaded FCT: the first packet crosses every hop store-and-forward, the rest follow at
    // the slowest hop's rate (the reference of FCT slowdown, as HPCC's fct analysis).
    core::Time rtt = 0, first = 0;
    Bps slowest = 0;
    const std::uint32_t first_payload =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(cfg_.nic.mtu, fs.bytes));
    NodeId at = topo_.nics[fs.src_nic];
    while (at != topo_.nics[fs.dst_nic]) {
      const PortId p = routes_.next_hops(at, fs.dst_nic)[0];
      const Link& l = topo_.link_at(at, p);
      rtt += 2 * l.delay + serialization(data_wire_bytes(cfg_.nic.mtu), l.rate) +
             serialization(kAckWireBytes, l.rate);
      first += l.delay + serialization(data_wire_bytes(first_payload), l.rate);
      slowest = slowest ? std::min(slowest, l.rate) : l.rate;
      at = topo_.peer(at, p);
    }
    base_rtt_[f] = rtt;
    const std::uint64_t full = (fs.bytes - first_payload) / cfg_.nic.mtu;
    const std::uint64_t tail = (fs.bytes - first_payload) % cfg_.nic.mtu;
    const std::uint64_t rest_wire =
        full * data_wire_bytes(cfg_.nic.mtu) + (tail ? data_wire_bytes(std::uint32_t(tail)) : 0);
    results_[f].ideal = first + serialization(rest_wire, slowest);
  }
  if (hpcc_ && cfg_.cc.hpcc.global_base_rtt && !base_rtt_.empty()) {
    const core::Time t = *std::max_element(base_rtt_.begin(), base_rtt_.end());
    std::fill(base_rtt_.begin(), base_rtt_.end(), t);
  }
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
  sc.lp_of_node = partition(topo_, std::max<std::uint32_t>(1, opt.lps));
  // A host agent lives with one of its NICs, so some of the NIC events it exchanges stay on one
  // LP. Agents run the hosts' executors (NVLink model, step bookkeeping): a large share of a
  // collective's work. With one NIC per rail, a host's NICs sit on different LPs, and putting
  // every agent with its first NIC would pile all of them on the LP of rail 0; each agent goes
  // instead to the LP of its NICs holding the fewest agents so far (first such NIC on a tie).
  {
    std::vector<std::uint32_t> agents(std::max<std::uint32_t>(1, opt.lps), 0);  // by LP
    for (std::size_t h = 0; h < hosts; ++h) {
      core::LpId best = sc.lp_of_node[topo_.hosts[h].nics.front()];
      for (NodeId nic : topo_.hosts[h].nics) {
        const core::LpId lp = sc.lp_of_node[nic];
        if (agents[lp] < agents[best]) best = lp;
      }
      ++agents[best];
      sc.lp_of_node.push_back(best);
    }
  }
  sc.threads = opt.threads;
  sc.seed = opt.seed;
  sc.end = opt.end;
  sc.progress = opt.progress;
  sc.progress_ctx = opt.progress_ctx;
  core::Simulation<Network> sim(*this, sc);
  // One FIFO channel per port, numbered as the port (frames on a link arrive in the order they
  // were sent): every packet crosses its link in at least the propagation delay plus the
  // serialization of the smallest frame.
  for (NodeId v = 0; v < topo_.nodes.size(); ++v) {
    for (PortId p = 0; p < topo_.nodes[v].ports.size(); ++p) {
      const Link& l = topo_.link_at(v, p);
      const std::uint32_t fifo = sim.add_fifo(
          v, topo_.peer(v, p), l.delay + serialization(padded_wire_bytes(kMinFrame), l.rate));
      if (fifo != port_base_[v] + p) throw std::logic_error("link channels out of port order");
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
  // Once every flow is acknowledged only stale timers remain; time-averaged statistics are
  // taken over the traffic, not over the timers.
  r.end = r.kernel.end_time;
  if (!results_.empty() && std::all_of(results_.begin(), results_.end(),
                                       [](const FlowResult& f) { return f.acked >= 0; })) {
    r.end = 0;
    for (const FlowResult& f : results_) r.end = std::max(r.end, f.acked);
  }
  r.flows = results_;
  r.port_base.assign(port_base_.begin(), port_base_.end() - 1);
  r.ports.reserve(ports_.size());
  for (Port& p : ports_) {
    PortStats s = p.stats;
    s.queue_byte_ps += double(p.queued[kDataClass]) * double(r.end - p.queue_changed);
    // Close a pause still running at the end.
    if (p.paused_until > p.pause_began) {
      s.paused += std::max<core::Time>(0, std::min(p.paused_until, r.end) - p.pause_began);
    }
    r.ports.push_back(s);
    r.dropped += s.dropped_bytes;
  }
  for (const NicState& n : nics_) {
    r.nic_data_sent += n.data_sent;
    r.nic_data_received += n.data_received;
    r.delivered += n.delivered;
  }
  return r;
}

void Network::receive(Ctx& ctx, std::uint32_t fifo, const Packet& pkt) {
  const NodeId node = ctx.node();
  const PortId in = arrival_port_[fifo];
  if (pkt.type == PacketType::kPause) {
    on_pause_frame(ctx, node, in, pkt);
  } else if (is_nic(node)) {
    nic_receive(ctx, node, pkt);
  } else {
    switch_receive(ctx, node, in, pkt);
  }
}

void Network::handle(Ctx& ctx, const core::Event<Payload>& ev) {
  const NodeId node = ev.dst;
  const Payload& p = ev.payload;
  switch (static_cast<Kind>(ev.kind)) {
    case kTxDone:
      port(node, p.a).busy = false;
      try_transmit(ctx, node, p.a);
      return;
    case kPortWake: {
      Port& pt = port(node, p.a);
      if (pt.wake_at != ctx.now()) return;  // superseded
      pt.wake_at = -1;
      try_transmit(ctx, node, p.a);
      return;
    }
    case kNicWake: {
      NicState& nic = nics_[nic_index_[node]];
      if (nic.wake_at != ctx.now()) return;  // superseded
      nic.wake_at = -1;
      try_transmit(ctx, node, 0);
      return;
    }
    case kFlowStart:
      flow_start(ctx, p.a);
      return;
    case kRto:
      flow_timeout(ctx, p.a);
      return;
    case kPost:
      app_post(ctx, p.a, p.c);
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
      refresh_pause(ctx, node, p.a);
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
