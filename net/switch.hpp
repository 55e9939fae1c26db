#pragma once
// Switches: routing, a shared buffer with PFC (lossless) or drops (lossy), ECN marking and HPCC
// telemetry at dequeue. Each switch's state is written only by its own events.
#include <cstdint>
#include <vector>

#include "core/time.hpp"
#include "net/config.hpp"
#include "net/outages.hpp"
#include "net/packet.hpp"
#include "net/port.hpp"
#include "net/topology/routing.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::net {

class Switches {
 public:
  Switches() = default;
  // The outages (with their routes) and ports must outlive this object.
  Switches(const Topology& topo, const NetworkConfig& cfg, const Outages& outages, Ports& ports);
  // What the tables of a network of `nodes` nodes and `ports` ports take (routes aside).
  static constexpr std::uint64_t bytes(std::uint64_t nodes, std::uint64_t ports) {
    return nodes * (sizeof(Buffer) + sizeof(std::uint32_t)) +
           ports * (sizeof(Ingress) + 3 * sizeof(std::uint64_t) + sizeof(double));
  }

  // A data or transport-control packet arrived on port `in`: route it, admit it to the buffer
  // (or drop it, lossy), queue it on its egress port and transmit if that port is idle.
  void receive(Ctx& ctx, NodeId sw, PortId in, const Packet& pkt, const Telemetry* t);
  // Port `out` may send: if it is idle, the next control frame, else the next data packet unless
  // paused; while it serializes, it is called back when the frame ends if more waits.
  void transmit(Ctx& ctx, NodeId sw, PortId out);
  // kPfcRefresh: re-sends XOFF on ingress port p while it is still above XON.
  void refresh_pause(Ctx& ctx, NodeId sw, PortId p);

 private:
  struct alignas(64) Buffer {
    std::uint64_t shared_used = 0;  // bytes in the shared pool
    std::uint64_t shared_cap = 0;   // buffer minus every port's headroom (PFC)
    std::uint64_t used = 0;         // all buffered data bytes
  };
  // PFC state of an ingress port (by port index; on its own line, as Port).
  struct alignas(64) Ingress {
    std::uint64_t shared = 0, headroom = 0;  // buffered bytes that arrived here, by pool
    bool peer_paused = false;                // we sent XOFF and no XON since
    core::Time refresh_at = -1;              // pending kPfcRefresh
  };

  void start_next(Ctx& ctx, NodeId sw, PortId out);  // the port is idle
  PortId route(Ctx& ctx, NodeId sw, const Packet& pkt);
  bool admit(Ctx& ctx, NodeId sw, PortId in, PortId out, const Packet& pkt);
  void dequeued(Ctx& ctx, NodeId sw, PortId out, Packet& pkt, Telemetry& t);
  void send_pause(Ctx& ctx, NodeId sw, PortId p, bool on);
  core::Time pause_refresh(Bps rate) const;  // how often XOFF is re-sent while congested
  std::uint64_t xoff_threshold(NodeId sw, std::uint32_t port_index) const;
  // A paused ingress port may send XON (its peer resumes).
  bool may_resume(NodeId sw, std::uint32_t port_index) const;
  [[noreturn]] void lossless_overrun(Ctx& ctx, NodeId sw, PortId in, const Packet& pkt);

  const Topology* topo_ = nullptr;
  const NetworkConfig* cfg_ = nullptr;
  const Outages* outages_ = nullptr;
  Ports* ports_ = nullptr;
  std::vector<std::uint32_t> nic_index_;    // node -> NIC index (routing tables are by NIC)
  std::vector<Buffer> buffers_;             // by node (unused for NICs)
  std::vector<Ingress> ingress_;            // by port index
  std::vector<std::uint64_t> kmin_, kmax_;  // by port index: RED thresholds
  std::vector<std::uint64_t> headroom_;     // by port index: PFC headroom of the ingress side
  std::vector<double> pfc_alpha_;           // by port index: the dynamic XOFF threshold's alpha
  bool hpcc_ = false;
};

}  // namespace fabricsim::net
