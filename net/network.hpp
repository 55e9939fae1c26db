#pragma once
// The packet-level network as a PDES model: NICs and switches are the kernel's nodes, links its
// channels. Packets are serialized on ports, cross links with their propagation delay, queue in
// switches (shared buffer, ECN, PFC) and are paced by the NICs' congestion control.
//
// Each node's state is touched only by the handler of that node's events (the kernel's rule),
// so every table below is indexed by node, port or flow and written by one logical process.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/ring.hpp"
#include "core/simulation.hpp"
#include "net/cc/congestion_control.hpp"
#include "net/config.hpp"
#include "net/packet.hpp"
#include "net/topology/routing.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::net {

struct FlowSpec {
  std::uint32_t src_nic = 0;  // index into Topology::nics
  std::uint32_t dst_nic = 0;
  std::uint64_t bytes = 0;
  core::Time start = 0;
  // Non-empty: a connection driven by a HostApp (a collective's queue pair). It carries a
  // sequence of messages whose cumulative end offsets these are (bytes = messages.back()),
  // sends only what the app has posted, and reports completed messages to the receiving
  // host. `start` is ignored: the first post starts it.
  std::vector<std::uint64_t> messages = {};
  // > 0: the queue pair never paces faster than this (wire bits per second), whatever its
  // congestion control allows: the sending application's own limit.
  Bps max_rate = 0;
};

// A small message between host agents, or a host agent's timer: the app's own encoding.
struct AppMsg {
  std::uint32_t a = 0, b = 0;
  std::uint64_t c = 0;
};

class Network;

// What runs on the hosts (a collective executor). Every host has an agent node of its own in
// the kernel, on the LP of one of its NICs; these calls run in that node's events, so an app
// keeps per-host state that only its host's calls touch. Called per message, never per packet.
class HostApp {
 public:
  virtual ~HostApp() = default;
  virtual void on_start(core::Context<Network>& ctx, std::uint32_t host) = 0;
  // A timer of this host, or a message from another host (Network::host_send).
  virtual void on_message(core::Context<Network>& ctx, std::uint32_t host, const AppMsg& m) = 0;
  // The receiving NIC of app flow `flow` holds its first `messages` messages in order.
  virtual void on_delivered(core::Context<Network>& ctx, std::uint32_t host, std::uint32_t flow,
                            std::uint32_t messages) = 0;
};

// A lossless (PFC) fabric had to drop a packet: its headroom could not absorb what was in flight
// after XOFF. That is a misconfiguration (or a model error), never a statistic.
class LosslessDrop : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A queue pair gave up: retry_count retransmission timeouts in a row without progress.
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FlowResult {
  core::Time start = 0;
  core::Time finish = -1;  // the receiver holds the last byte (-1: not finished)
  core::Time acked = -1;   // the sender has the last ACK
  core::Time ideal = 0;    // FCT alone on the idle network (the reference of FCT slowdown)
  std::uint64_t retransmitted_bytes = 0;
  std::uint32_t timeouts = 0;
  core::Time fct() const { return finish < 0 ? -1 : finish - start; }
  double slowdown() const { return double(fct()) / double(ideal); }
};

// Counters of one port (one direction of a link: what this port sends).
struct PortStats {
  std::uint64_t tx_bytes = 0;         // wire bytes sent
  std::uint64_t tx_data_bytes = 0;    // payload bytes of data packets sent
  core::Time busy = 0;                // time spent serializing
  std::uint64_t max_queue_bytes = 0;  // data queue
  double queue_byte_ps = 0;           // integral of the data queue over time
  std::uint64_t ecn_marks = 0;
  std::uint64_t drops = 0, dropped_bytes = 0;  // data packets dropped on arrival at this port
  std::uint64_t pauses_sent = 0, pauses_received = 0;
  core::Time paused = 0;  // time this port's data class was paused by its peer
};

struct NetworkResult {
  core::KernelStats kernel;
  std::vector<FlowResult> flows;
  std::vector<PortStats> ports;          // flattened: port_index(node, port)
  std::vector<std::uint32_t> port_base;  // per node: index of its port 0 in `ports`
  core::Time end = 0;                    // simulated time of the last event
  std::uint64_t nic_data_sent = 0;      // payload bytes the NICs transmitted (with retransmissions)
  std::uint64_t nic_data_received = 0;  // payload bytes that reached a receiving NIC
  std::uint64_t delivered = 0;  // payload bytes accepted in order (= sum of flow sizes when done)
  std::uint64_t dropped = 0;    // payload bytes dropped in switches
};

// The checks of a configuration against a topology that need no run (congestion-control
// parameters, PFC thresholds, PFC headroom against every switch's buffer, HPCC with per-packet
// routing); throws std::invalid_argument naming the network.* key.
void check_config(const Topology& topo, const NetworkConfig& cfg);

// How long one XOFF pauses the peer on a link of `rate`: pfc_pause_quanta quanta of 512 bit
// times (64 bytes) each.
core::Time pause_duration(const NetworkConfig& cfg, Bps rate);

// PFC headroom a port reserves: what arrives during pfc_headroom_factor one-way delays at line
// rate, plus two full packets.
std::uint64_t port_headroom(const Link& l, const NetworkConfig& cfg);

// The memory a Network may take. Its constructor estimates what the configuration needs
// (routing tables, per-port, per-node and per-flow state) and refuses one above the limit
// instead of exhausting the machine. Default: 75% of physical memory. Set before building
// networks (the CLI's --max-memory).
void set_memory_limit(std::uint64_t bytes);
std::uint64_t memory_limit();

struct RunOptions {
  std::uint32_t lps = 1;
  unsigned threads = 1;
  std::uint64_t seed = 1;
  core::Time end = core::kTimeMax;
  core::ProgressFn progress = nullptr;  // see core::SimConfig
  void* progress_ctx = nullptr;
};

class Network {
 public:
  // A packet crosses a link as a message of the link's FIFO channel (one per direction,
  // numbered as the sending port: port_base_[node] + port); everything else is a small event.
  using Message = Packet;
  struct Payload {
    std::uint32_t a = 0;  // the port (port events) or the flow (flow, post, delivery events)
    std::uint32_t b = 0;  // kDelivered: messages complete
    std::uint64_t c = 0;  // kPost: bytes posted
  };
  enum Kind : core::EventKind {
    kTxDone,
    kPortWake,
    kFlowStart,
    kNicWake,
    kRto,
    kPost,       // host agent -> NIC: more bytes of an app flow may go
    kDelivered,  // NIC -> host agent: app-flow messages complete at the receiver
    kApp,        // host agent timer or host-to-host message (a, b, c: the AppMsg)
    kHostStart,
    kPfcRefresh,  // a switch ingress port re-sends XOFF while it stays above XON
  };

  // Throws TopologyError / std::invalid_argument on a bad topology, flow or parameter
  // (check_config names the configuration's checks).
  Network(const Topology& topo, const NetworkConfig& cfg, std::vector<FlowSpec> flows);

  NetworkResult run(const RunOptions& opt);

  // The kernel's entry points: an event, and a packet at the far end of link channel `fifo`.
  void handle(core::Context<Network>& ctx, const core::Event<Payload>& ev);
  void receive(core::Context<Network>& ctx, std::uint32_t fifo, const Packet& pkt);

  const Topology& topology() const { return topo_; }

  // Attaches the hosts' application before run(). `host_delay` is the latency between a host
  // agent and its NICs (PCIe doorbell / completion), each way; it is also a kernel channel
  // delay, so it bounds the lookahead.
  void set_app(HostApp* app, core::Time host_delay);
  // Lets host a send to host b (and b to a) with at least `delay` (before run()).
  void add_host_channel(std::uint32_t a, std::uint32_t b, core::Time delay);
  core::NodeId host_node(std::uint32_t host) const {
    return static_cast<core::NodeId>(topo_.nodes.size() + host);
  }
  // From a host agent's event: lets `bytes` more of app flow `flow` go (its first post
  // starts the queue pair).
  void post(core::Context<Network>& ctx, std::uint32_t flow, std::uint64_t bytes);
  // From a host agent's event: a message to host `to` (a timer when to is this host).
  void host_send(core::Context<Network>& ctx, std::uint32_t to, core::Time delay, const AppMsg& m);

 private:
  using Ctx = core::Context<Network>;

  struct alignas(64) Port {
    core::Ring<Packet> queue[kClasses];
    std::uint64_t queued[kClasses] = {};  // bytes
    core::Time paused_until = 0;          // our data class is paused by the peer until then
    core::Time pause_began = 0;
    core::Time wake_at = -1;  // pending kPortWake
    bool busy = false;
    // Switch ingress side (PFC): bytes buffered that arrived here, and whether we paused the peer.
    std::uint64_t ingress_shared = 0, ingress_headroom = 0;
    bool peer_paused = false;
    core::Time refresh_at = -1;  // pending kPfcRefresh (XOFF re-sent while still congested)
    core::Time queue_changed = 0;
    PortStats stats;
  };
  // Per-node state on its own cache lines: neighbouring switches and NICs run on other threads.
  struct alignas(64) SwitchState {
    std::uint64_t shared_used = 0;  // bytes in the shared pool
    std::uint64_t shared_cap = 0;   // buffer minus every port's headroom (PFC)
    std::uint64_t used = 0;         // all buffered data bytes
  };
  struct SendState {  // owned by the source NIC's LP
    cc::State cc;
    std::uint64_t snd_nxt = 0, snd_una = 0, max_sent = 0;
    core::Time last_send = 0;      // when the last data packet went (pacing)
    std::uint32_t last_wire = 0;   // its wire bytes; 0: nothing sent yet
    core::Time rto_deadline = -1;  // a timeout fires then unless the flow makes progress
    core::Time rto_event_at = -1;  // the pending kRto event, if any
    std::uint64_t posted = 0;      // bytes the sender may send (app flows: posted so far)
    std::uint32_t retries = 0;     // timeouts in a row without an acknowledged byte
    bool active = false;
  };
  struct alignas(64) RecvState {  // owned by the destination NIC's LP; own cache line, since
                                  // neighbouring flows have receivers on other threads
    std::uint64_t rcv_nxt = 0;
    std::uint32_t since_ack = 0;
    core::Time last_cnp = -1;
    core::Time nack_at = -1;
    std::uint64_t nack_seq = ~0ULL;
    std::uint32_t messages_done = 0;  // app flows: messages fully received in order
    // out_of_order: packets received beyond rcv_nxt, by packet index (offset / MTU); allocated
    // on the first gap, once per flow.
    std::vector<std::uint64_t> ahead;
  };
  struct alignas(64) NicState {
    std::vector<std::uint32_t> active;  // flows with data or unacknowledged bytes
    std::uint32_t rr = 0;
    core::Time wake_at = -1;
    std::uint64_t data_sent = 0, data_received = 0, delivered = 0;
  };

  Port& port(NodeId n, PortId p) { return ports_[port_base_[n] + p]; }
  bool is_nic(NodeId n) const { return topo_.nodes[n].kind == NodeKind::kNic; }
  std::uint32_t host_of_agent(NodeId n) const {
    return static_cast<std::uint32_t>(n - topo_.nodes.size());
  }

  // Ports (net/port.cpp): start the next transmission if the port is idle.
  void try_transmit(Ctx& ctx, NodeId node, PortId p);
  void start_tx(Ctx& ctx, NodeId node, PortId p, Packet& pkt);
  void note_queue(Port& port, core::Time now);
  void on_pause_frame(Ctx& ctx, NodeId node, PortId p, const Packet& pkt);
  bool data_paused(Port& port, core::Time now) const { return port.paused_until > now; }
  void wake_at(Ctx& ctx, NodeId node, PortId p, core::Time t);

  // Switches (net/switch.cpp).
  void switch_receive(Ctx& ctx, NodeId sw, PortId in, const Packet& pkt);
  PortId route(Ctx& ctx, NodeId sw, const Packet& pkt);
  bool admit(Ctx& ctx, NodeId sw, PortId in, PortId out, const Packet& pkt);
  void switch_dequeued(Ctx& ctx, NodeId sw, PortId out, Packet& pkt);
  void send_pause(Ctx& ctx, NodeId sw, PortId p, bool on);
  void refresh_pause(Ctx& ctx, NodeId sw, PortId p);
  core::Time pause_refresh(Bps rate) const;  // how often XOFF is re-sent while congested
  [[noreturn]] void lossless_overrun(Ctx& ctx, NodeId sw, PortId in, const Packet& pkt);
  void check_memory() const;
  void arm_rto(Ctx& ctx, std::uint32_t flow);
  std::uint64_t xoff_threshold(NodeId sw) const;

  // NICs (net/nic.cpp).
  bool nic_next_data(Ctx& ctx, NodeId nic, Packet& out);
  void nic_receive(Ctx& ctx, NodeId nic, const Packet& pkt);
  void nic_receive_data(Ctx& ctx, NodeId nic, const Packet& pkt);
  // Out-of-order receivers: records a packet beyond rcv_nxt; false if it was already there.
  bool place_ahead(RecvState& r, const Packet& pkt, std::uint64_t size);
  // Moves rcv_nxt over packets received ahead of it.
  void advance_over_ahead(RecvState& r, std::uint64_t size);
  void nic_receive_ack(Ctx& ctx, NodeId nic, const Packet& pkt);
  void nic_send_control(Ctx& ctx, NodeId nic, Packet pkt);
  void flow_start(Ctx& ctx, std::uint32_t flow);
  void flow_timeout(Ctx& ctx, std::uint32_t flow);
  [[noreturn]] void transport_failed(Ctx& ctx, std::uint32_t flow);
  void app_post(Ctx& ctx, std::uint32_t flow, std::uint64_t bytes);
  void note_delivered(Ctx& ctx, NodeId nic, std::uint32_t flow);

  Topology topo_;
  NetworkConfig cfg_;
  Routes routes_;
  std::vector<FlowSpec> flows_;
  std::vector<std::uint32_t> nic_index_;  // node -> NIC index (NICs only)
  std::vector<std::uint32_t> port_base_;  // node -> first port in ports_
  std::vector<PortId> arrival_port_;      // by link channel (sending port): the receiving port
  std::vector<Port> ports_;
  std::vector<SwitchState> switches_;  // by node (unused for NICs)
  std::vector<NicState> nics_;         // by NIC index
  std::vector<SendState> send_;        // by flow
  std::vector<RecvState> recv_;        // by flow
  std::vector<FlowResult>
      results_;  // by flow: start/acked/retx by the sender, finish by the receiver
  std::vector<core::Time> base_rtt_;        // by flow
  std::vector<std::uint64_t> kmin_, kmax_;  // by port: RED thresholds
  std::vector<std::uint64_t> headroom_;     // by port: PFC headroom of the ingress side
  HostApp* app_ = nullptr;
  core::Time host_delay_ = 0;
  struct HostChannel {
    std::uint32_t a, b;
    core::Time delay;
  };
  std::vector<HostChannel> host_channels_;
  bool hpcc_ = false, dcqcn_ = false;
  bool ran_ = false;
};

}  // namespace fabricsim::net
