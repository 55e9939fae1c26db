// Checks of a network configuration against its topology that need no run, and the PFC
// quantities they are made of.
#include <fmt/format.h>

#include "core/error.hpp"
#include "net/network.hpp"
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

namespace {

// PAUSE quanta, refresh and headroom against every switch port.
void check_pfc(const Topology& topo, const NetworkConfig& cfg) {
  if (cfg.sw.pfc_pause_quanta == 0 || cfg.sw.pfc_pause_quanta > 65535) {
    throw std::invalid_argument(
        fmt::format("network.pfc_pause_quanta ({}) must be 1-65535 (the 16-bit PAUSE time field)",
                    cfg.sw.pfc_pause_quanta));
  }
  // A quantum is 512 bit times at the port's rate, so whatever the rate a pause must outlast
  // the frame that carries it, or it lapses before the next one can arrive.
  if (std::uint64_t{cfg.sw.pfc_pause_quanta} * 512 <= std::uint64_t{kPauseWireBytes} * 8) {
    throw std::invalid_argument(fmt::format(
        "network.pfc_pause_quanta ({}) pauses for {} bit times, no longer than the PAUSE frame "
        "that carries it ({} bit times on the wire): pauses would lapse as they arrive; use at "
        "least {} (65535, the default, is what switches send)",
        cfg.sw.pfc_pause_quanta, cfg.sw.pfc_pause_quanta * 512, kPauseWireBytes * 8,
        kPauseWireBytes * 8 / 512 + 1));
  }
  for (NodeId v = 0; v < topo.nodes.size(); ++v) {
    const Node& node = topo.nodes[v];
    if (node.kind != NodeKind::kSwitch) continue;
    std::uint64_t headroom = 0;
    for (PortId p = 0; p < node.ports.size(); ++p) {
      const Link& l = topo.link_at(v, p);
      headroom += port_headroom(l, cfg);
      core::Time pause = 0;
      try {
        pause = pause_duration(cfg, l.rate);
      } catch (const core::HorizonError&) {
        throw std::invalid_argument(fmt::format(
            "port {} of switch {} runs at {} bit/s: one PAUSE of {} quanta would last beyond the "
            "largest simulated time (2^63 ps, about 106.7 days); the link rate is out of scale",
            p, node.name, l.rate, cfg.sw.pfc_pause_quanta));
      }
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

}  // namespace

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
  if (cfg.fidelity == Fidelity::kFlow && cfg.sw.routing != Routing::kEcmp) {
    // A fluid flow keeps one path; spraying and adaptive routing are per-packet decisions.
    throw std::invalid_argument(
        "network.routing=spray and adaptive choose a path per packet; the flow fidelity routes "
        "each flow on its ECMP path: use network.routing=ecmp or simulation.fidelity: packet");
  }
  if (cfg.fidelity == Fidelity::kFlow && !cfg.outages.empty()) {
    // A fluid flow has no packets to lose and keeps its path for life.
    throw std::invalid_argument(
        "cluster.failed_links needs the packet level (frames lost on a failing link, recovered "
        "by the transport, and routes that change mid-run): use simulation.fidelity: packet");
  }
  if (cfg.cc.kind == cc::Kind::kHpcc && cfg.sw.routing != Routing::kEcmp) {
    // HPCC compares each hop's telemetry with the previous ACK's for the same hop; per-packet
    // routing mixes hops of different paths and the window collapses to its floor.
    throw std::invalid_argument(
        "network.cc=hpcc needs network.routing=ecmp: HPCC's per-hop telemetry assumes one path "
        "per flow, and spray/adaptive routing give each packet its own");
  }
  if (cfg.sw.ecn && (cfg.sw.kmin_bytes == 0) != (cfg.sw.kmax_bytes == 0)) {
    // One threshold given, the other scaled with each port's rate: RED needs Kmin <= Kmax on
    // every switch port (else it marks every packet above Kmax, below Kmin).
    for (const Node& node : topo.nodes) {
      if (node.kind != NodeKind::kSwitch) continue;
      for (PortId p = 0; p < node.ports.size(); ++p) {
        const Bps rate = topo.links[node.ports[p]].rate;
        if (cfg.sw.kmin_at(rate) <= cfg.sw.kmax_at(rate)) continue;
        throw std::invalid_argument(fmt::format(
            "network.ecn_kmin ({} bytes) is above network.ecn_kmax ({} bytes) on the {:g} Gb/s "
            "ports of {} (the unset one scales with the port rate: 100 KB / 400 KB x rate / 25 "
            "Gb/s); set both",
            cfg.sw.kmin_at(rate), cfg.sw.kmax_at(rate), double(rate) / 1e9, node.name));
      }
    }
  }
  if (cfg.sw.buffer_bytes < data_wire_bytes(cfg.nic.mtu)) {
    // Every full packet would be dropped (lossy) or could never be admitted (PFC).
    throw std::invalid_argument(fmt::format(
        "network.buffer ({} bytes) cannot hold one full packet ({} bytes on the wire with "
        "network.mtu = {})",
        cfg.sw.buffer_bytes, data_wire_bytes(cfg.nic.mtu), cfg.nic.mtu));
  }
  if (cfg.sw.pfc) check_pfc(topo, cfg);
  // The congestion control's rate floor is clamped to each path's line rate; a floor above a
  // NIC's own rate would hold that NIC's flows at line rate whatever the congestion.
  if (cfg.cc.kind != cc::Kind::kNone) {
    const Bps floor = cfg.cc.kind == cc::Kind::kDcqcn   ? cfg.cc.dcqcn.min_rate
                      : cfg.cc.kind == cc::Kind::kHpcc  ? cfg.cc.hpcc.min_rate
                      : cfg.cc.kind == cc::Kind::kDctcp ? cfg.cc.dctcp.min_rate
                                                        : cfg.cc.timely.min_rate;
    for (const Node& node : topo.nodes) {
      if (node.kind != NodeKind::kNic || node.ports.empty()) continue;
      const Bps rate = topo.links[node.ports[0]].rate;
      if (floor <= rate) continue;
      throw std::invalid_argument(fmt::format(
          "network.{}.min_rate ({:g} Gb/s) is above the line rate of NIC {} ({:g} Gb/s): the "
          "rate floor must sit below what the NIC can send",
          cc::name(cfg.cc.kind), double(floor) / 1e9, node.name, double(rate) / 1e9));
    }
  }
}

}  // namespace fabricsim::net
