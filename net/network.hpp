#pragma once
// The packet-level network as a PDES model: NICs and switches are the kernel's nodes, links its
// FIFO channels. A packet's journey, part by part:
//   net/nic.*     a queue pair's pacing picks the next packet (Nics::transmit)
//   net/port.*    the NIC's port serializes it onto the link, which lands it at the peer
//   net/switch.*  routing, buffer admission (PFC or drop), egress queue, ECN/INT at dequeue,
//                 then the egress port (net/port.*) again
//   net/nic.*     the receiver accepts it and answers with an ACK, NACK or CNP
// This class owns the parts, builds them from a topology and a configuration, and hands each
// kernel event to the part it belongs to; parts call down (NIC or switch -> port), never up.
// Host agents (net/host_agent.hpp) are kernel nodes too.
//
// Each node's state is touched only by the handler of that node's events (the kernel's rule),
// so every table is indexed by node, port or flow and written by one logical process.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/simulation.hpp"
#include "net/config.hpp"
#include "net/fluid.hpp"
#include "net/host_agent.hpp"
#include "net/memory.hpp"
#include "net/nic.hpp"
#include "net/outages.hpp"
#include "net/packet.hpp"
#include "net/port.hpp"
#include "net/switch.hpp"
#include "net/topology/routing.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::net {

// A lossless (PFC) fabric had to drop a packet: its headroom could not absorb what was in flight
// after XOFF. That is a misconfiguration (or a model error), never a statistic.
class LosslessDrop : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NetworkResult {
  // Flow level: no queues, marks, pauses or drops exist (their statistics stay 0).
  Fidelity fidelity = Fidelity::kPacket;
  core::KernelStats kernel;
  std::vector<FlowResult> flows;
  std::vector<PortStats> ports;          // flattened: port_index(node, port)
  std::vector<std::uint32_t> port_base;  // per node: index of its port 0 in `ports`
  core::Time end = 0;                    // simulated time of the last event
  std::uint64_t nic_data_sent = 0;      // payload bytes the NICs transmitted (with retransmissions)
  std::uint64_t nic_data_received = 0;  // payload bytes that reached a receiving NIC
  std::uint64_t delivered = 0;  // payload bytes accepted in order (= sum of flow sizes when done)
  std::uint64_t dropped = 0;    // payload bytes dropped in switches or lost on failed links
  // When flows carry tags (FlowSpec::tag): per port, the payload bytes of data packets it sent
  // per tag, tag_bytes[port * tags + tag]; empty otherwise (every flow has tag 0).
  std::uint32_t tags = 0;
  std::vector<std::uint64_t> tag_bytes;
  // Payload bytes of tag `tag`'s data packets that port `port` sent, whether or not tags were
  // counted (with none, all data is tag 0's).
  std::uint64_t data_bytes(std::size_t port, std::uint32_t tag) const {
    if (tags == 0) return tag == 0 ? ports[port].tx_data_bytes : 0;
    return tag < tags ? tag_bytes[port * tags + tag] : 0;
  }
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

// The memory a Network may take (net/memory.hpp): its constructor estimates what the
// configuration needs (routing tables, per-port, per-node and per-flow state) and refuses one
// above the limit instead of exhausting the machine.

struct RunOptions {
  std::uint32_t lps = 1;
  unsigned threads = 1;
  std::uint64_t seed = 1;
  core::Time end = core::kTimeMax;
  core::ProgressFn progress = nullptr;  // see core::SimConfig
  void* progress_ctx = nullptr;
  // An MPI job: this rank runs its block of the LPs, and every rank's result is the whole run's.
  const core::Ranks* ranks = nullptr;
};

// Where a run puts every node of `topo` and, after them, the agents of its first `hosts` hosts:
// their logical processes (Network::run's partition for these options; an agent sits with one
// of its host's NICs). Throws std::invalid_argument for more MPI ranks than the topology can
// give an LP each.
std::vector<core::LpId> lp_of_nodes(const Topology& topo, std::size_t hosts, bool flow_level,
                                    const RunOptions& opt);

class Network {
 public:
  // A packet crosses a link as a message of the link's FIFO channel (one per direction,
  // numbered as the sending port, Ports::index); everything else is a small event.
  using Message = Packet;
  using Attachment = Telemetry;  // HPCC's, carried only by packets with Packet::hops > 0
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
    kFluidWake,   // flow level: a flow reaches a boundary, or shares change (c: generation)
  };

  // Throws TopologyError / std::invalid_argument on a bad topology, flow or parameter
  // (check_config names the configuration's checks).
  Network(const Topology& topo, const NetworkConfig& cfg, std::vector<FlowSpec> flows);
  // Its parts point at its topology, configuration and flows.
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  NetworkResult run(const RunOptions& opt);

  // The kernel's entry points: an event, and a packet at the far end of link channel `fifo`.
  void handle(Ctx& ctx, const core::Event<Payload>& ev);
  void receive(Ctx& ctx, std::uint32_t fifo, const Packet& pkt, const Telemetry* t);

  const Topology& topology() const { return topo_; }
  // After a run over MPI ranks: whether this rank ran node n (its state, and a host agent's
  // app state, is current here only then). Always true for a run in one process.
  bool ran_here(core::NodeId n) const { return mine_.empty() || mine_[n] != 0; }

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
  void post(Ctx& ctx, std::uint32_t flow, std::uint64_t bytes);
  // From a host agent's event: a message to host `to` (a timer when to is this host).
  void host_send(Ctx& ctx, std::uint32_t to, core::Time delay, const AppMsg& m);

 private:
  void check_memory() const;
  // After a run over MPI ranks: flows, ports and NIC totals as their owners' ranks left them.
  void take_owners(const core::Ranks& ranks, const std::vector<char>& mine);
  bool flow_level() const { return cfg_.fidelity == Fidelity::kFlow; }
  void transmit(Ctx& ctx, NodeId node, PortId p);  // the port's owner picks what it sends
  std::uint32_t host_of_agent(NodeId n) const {
    return static_cast<std::uint32_t>(n - topo_.nodes.size());
  }

  Topology topo_;
  NetworkConfig cfg_;
  std::vector<FlowSpec> flows_;
  std::vector<FlowResult> results_;  // by flow
  Outages outages_;                  // the link failures, and the routes in force between them
  Ports ports_;
  Switches switches_;
  Nics nics_;
  Fluid fluid_;  // flow level only
  HostApp* app_ = nullptr;
  core::Time host_delay_ = 0;
  struct HostChannel {
    std::uint32_t a, b;
    core::Time delay;
  };
  std::vector<HostChannel> host_channels_;
  bool ran_ = false;
  std::vector<char> mine_;  // by node, over MPI ranks: whether this rank ran it
};

}  // namespace fabricsim::net
