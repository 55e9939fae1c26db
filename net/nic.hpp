#pragma once
// RDMA NICs (RoCEv2, reliable connection): one queue pair per flow, paced by its congestion
// control, served round-robin; cumulative ACKs, NACK and go-back-N on a gap (or out-of-order
// placement), a retransmission timeout, and CNPs at the receiver for DCQCN. A flow's sending
// state is written only by its source NIC's events, its receiving state by its destination's.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/ranks.hpp"
#include "core/time.hpp"
#include "net/cc/congestion_control.hpp"
#include "net/config.hpp"
#include "net/packet.hpp"
#include "net/port.hpp"
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
  // > 0: the queue pair never sends payload faster than this (bits per second), whatever its
  // congestion control allows: the sending application's own limit, the pace at which it
  // produces the data (headers are the NIC's, on top).
  Bps max_rate = 0;
  // Whose traffic this is (a training job): every port counts the data it sends per tag
  // (NetworkResult::tag_bytes) when some flow has a tag above 0.
  std::uint16_t tag = 0;
};

struct FlowResult {
  core::Time start = 0;
  core::Time finish = -1;  // the receiver holds the last byte (-1: not finished)
  core::Time acked = -1;   // the sender has the last ACK
  core::Time ideal = 0;    // FCT alone on the idle network (the reference of FCT slowdown)
  // Alone on the idle network, when the sender would hold the last ACK: the sender-side
  // reference HPCC's analysis divides by (its standalone FCT: base RTT + bytes / bottleneck).
  core::Time ideal_acked = 0;
  std::uint64_t retransmitted_bytes = 0;
  // Bytes the sender saw acknowledged with ECN-Echo: those of the packets that arrived CE-marked
  // with an ACK per packet, and under DCTCP with coalesced ACKs too (its receiver keeps marked
  // and unmarked runs apart); otherwise an ACK echoes its last packet's mark for all it covers.
  std::uint64_t ecn_echoed_bytes = 0;
  std::uint32_t timeouts = 0;
  core::Time fct() const { return finish < 0 ? -1 : finish - start; }
  double slowdown() const { return double(fct()) / double(ideal); }
};

// A queue pair gave up: retry_count retransmission timeouts in a row without progress.
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Nics {
 public:
  // What all NICs sent and received (payload bytes).
  struct Totals {
    std::uint64_t data_sent = 0;      // with retransmissions
    std::uint64_t data_received = 0;  // that reached a receiving NIC
    std::uint64_t delivered = 0;      // accepted in order
  };

  Nics() = default;
  // The flows' per-flow round trips (`base_rtt`, for the congestion control) come from the
  // network; topology, configuration, flows, results and ports must outlive this object.
  Nics(const Topology& topo, const NetworkConfig& cfg, const std::vector<FlowSpec>& flows,
       std::vector<FlowResult>& results, std::vector<core::Time> base_rtt, Ports& ports);
  // What the tables of `nics` NICs carrying `flows` flows take.
  static constexpr std::uint64_t bytes(std::uint64_t nics, std::uint64_t flows) {
    return nics * (sizeof(NicState) + sizeof(std::uint32_t)) +
           flows * (sizeof(SendState) + sizeof(RecvState) + sizeof(core::Time));
  }
  // Where the hosts' agents are (NIC -> agent messages): node of host 0 and the PCIe delay.
  void set_hosts(NodeId first_agent, core::Time host_delay) {
    first_agent_ = first_agent;
    host_delay_ = host_delay;
  }

  // The NIC's port may send: a control frame first, else the next data packet its queue pairs'
  // pacing and windows allow (or a wake-up when one will be allowed).
  void transmit(Ctx& ctx, NodeId nic);
  // `t`: the packet's HPCC telemetry, when pkt.hops > 0.
  void receive(Ctx& ctx, NodeId nic, const Packet& pkt, const Telemetry* t);
  void wake(Ctx& ctx, NodeId nic);  // kNicWake
  void flow_start(Ctx& ctx, std::uint32_t flow);
  void flow_timeout(Ctx& ctx, std::uint32_t flow);  // kRto
  // The host posted `bytes` more of app flow `flow` (its first post starts the queue pair).
  void app_post(Ctx& ctx, std::uint32_t flow, std::uint64_t bytes);
  Totals totals() const;
  // After a run over MPI ranks: every NIC's totals as its rank left them (`mine`: by node).
  void take_owners(const core::Ranks& ranks, const std::vector<char>& mine);

 private:
  struct alignas(64) SendState {  // own cache lines: neighbouring flows' senders run elsewhere
    // What a scan of the NIC's queue pairs reads first, in the first cache line: most queue
    // pairs it passes have nothing to send.
    std::uint64_t snd_nxt = 0, snd_una = 0, max_sent = 0;
    std::uint64_t posted = 0;        // bytes the sender may send (app flows: posted so far)
    core::Time last_send = 0;        // when the last data packet went (pacing)
    std::uint32_t last_wire = 0;     // its wire bytes; 0: nothing sent yet
    std::uint32_t last_payload = 0;  // and its payload
    // Pacing, computed once per packet rather than on every scan of the NIC's queue pairs: the
    // next packet's time at paced_rate (0: not yet computed), and at the application's limit.
    Bps paced_rate = 0;
    core::Time paced_until = 0;
    core::Time app_until = 0;
    core::Time rto_deadline = -1;  // a timeout fires then unless the flow makes progress
    core::Time rto_event_at = -1;  // the pending kRto event, if any
    std::uint32_t retries = 0;     // timeouts in a row without an acknowledged byte
    bool active = false;
    cc::State cc;
  };
  struct alignas(64) RecvState {  // own cache line: neighbouring flows' receivers run elsewhere
    std::uint64_t rcv_nxt = 0;
    std::uint32_t since_ack = 0;
    bool ce_run = false;  // DCTCP: the CE mark of the packets received since the last ACK
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
    // Beside `active`: a time before which that queue pair cannot send (0: look). Kept only
    // without congestion control, where a paced queue pair's next packet time changes only when
    // it sends: the scan passes it without reading its state (a collective's paced queue pairs
    // are most of what a scan meets).
    std::vector<core::Time> not_before;
    std::uint32_t rr = 0;
    core::Time wake_at = -1;
    Totals totals;
  };

  NicState& state_of(NodeId node) { return nics_[nic_index_[node]]; }
  void start_next(Ctx& ctx, NodeId node);  // the port is idle
  // Fills `out` (a default-constructed Packet) with the next data packet a queue pair may send.
  bool next_data(Ctx& ctx, NodeId node, Packet& out);
  void receive_data(Ctx& ctx, NodeId node, const Packet& pkt, const Telemetry* t);
  void receive_ack(Ctx& ctx, NodeId node, const Packet& pkt, const Telemetry* t);
  void send_control(Ctx& ctx, NodeId node, const Packet& pkt, const Telemetry* t = nullptr);
  // Out-of-order receivers: records a packet beyond rcv_nxt; false if it was already there.
  bool place_ahead(RecvState& r, const Packet& pkt, std::uint64_t size);
  // Moves rcv_nxt over packets received ahead of it.
  void advance_over_ahead(RecvState& r, std::uint64_t size);
  // Returns whether a message of the flow completed.
  bool note_delivered(Ctx& ctx, NodeId node, std::uint32_t flow);
  void arm_rto(Ctx& ctx, std::uint32_t flow);
  [[noreturn]] void transport_failed(Ctx& ctx, std::uint32_t flow);

  const Topology* topo_ = nullptr;
  const NetworkConfig* cfg_ = nullptr;
  const std::vector<FlowSpec>* flows_ = nullptr;
  std::vector<FlowResult>* results_ = nullptr;  // start/acked/retx by the sender, finish by the
                                                // receiver
  Ports* ports_ = nullptr;
  std::vector<core::Time> base_rtt_;      // by flow
  std::vector<std::uint32_t> nic_index_;  // node -> NIC index
  std::vector<NicState> nics_;            // by NIC index
  std::vector<SendState> send_;           // by flow
  std::vector<RecvState> recv_;           // by flow
  NodeId first_agent_ = 0;
  core::Time host_delay_ = 0;
  bool dcqcn_ = false;
  bool dctcp_ = false;
  bool hpcc_ = false;
  bool fixed_rates_ = false;          // no congestion control: a queue pair's rate never changes
  std::uint32_t telemetry_wire_ = 0;  // INT bytes on data packets and their ACKs (HPCC)
};

}  // namespace fabricsim::net
