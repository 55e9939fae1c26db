#pragma once
// Ports and links. A port is one direction of a link, at its sending node: the frames waiting
// to go (one FIFO per traffic class) and a serializer that sends one at a time. The link carries
// what the serializer sends to the peer's port, in order, after its propagation delay: a kernel
// FIFO channel per port, numbered as the port, so only the frame at the head of each link is in
// the event list. A port chooses nothing: the NIC or switch that owns it picks the next frame
// (Nics::transmit, Switches::transmit) and hands it down here.
#include <cstdint>
#include <vector>

#include "core/ranks.hpp"
#include "core/ring.hpp"
#include "core/time.hpp"
#include "net/context.hpp"
#include "net/outages.hpp"
#include "net/packet.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::net {

// Counters of one port (one direction of a link: what this port sends).
struct PortStats {
  std::uint64_t tx_bytes = 0;         // wire bytes sent
  std::uint64_t tx_data_bytes = 0;    // payload bytes of data packets sent
  core::Time busy = 0;                // time spent serializing
  std::uint64_t max_queue_bytes = 0;  // data queue
  double queue_byte_ps = 0;           // integral of the data queue over time
  std::uint64_t ecn_marks = 0;
  std::uint64_t drops = 0, dropped_bytes = 0;  // data packets this egress queue could not take
  std::uint64_t lost = 0, lost_bytes = 0;  // frames sent into a failed link (bytes: data payload)
  std::uint64_t pauses_sent = 0, pauses_received = 0;
  core::Time paused = 0;  // time this port's data class was paused by its peer
};

// Written only by the owning node's LP; its own cache lines, since the ports of neighbouring
// nodes run on other threads.
struct alignas(64) Port {
  core::Ring<Packet> queue[kClasses];
  core::Ring<Telemetry> telemetry[kClasses];  // of the queued packets that carry one, in order
  std::uint64_t queued[kClasses] = {};        // bytes
  core::Time paused_until = 0;                // our data class is paused by the peer until then
  core::Time pause_began = 0;
  core::Time wake_at = -1;  // pending kPortWake
  core::Time queue_changed = 0;
  core::Time free_at = 0;        // the serializer is busy until then
  core::Time frame_start = 0;    // with the frame that began then
  core::Time data_until = 0;     // the last data frame sent ends then
  bool tx_done_pending = false;  // a kTxDone at free_at is in the event list
  PortStats stats;

  bool idle(core::Time now) const { return now >= free_at; }
  bool data_paused(core::Time now) const { return paused_until > now; }
  bool has_control() const { return !queue[kMacControl].empty() || !queue[kControl].empty(); }
  // `t`: the packet's telemetry (needed when pkt.hops > 0).
  void enqueue(const Packet& pkt, const Telemetry* t) {
    const TrafficClass tc = pkt.traffic_class();
    queue[tc].push(pkt);
    if (pkt.hops) telemetry[tc].push(*t);
    queued[tc] += pkt.wire;
  }
  const Telemetry* front_telemetry(TrafficClass tc) const {
    return queue[tc].front().hops ? &telemetry[tc].front() : nullptr;
  }
  void pop(TrafficClass tc) {
    if (queue[tc].front().hops) telemetry[tc].pop();
    queue[tc].pop();
  }
  // Adds the data queue's bytes since the last change to the queue integral.
  void note_queue(core::Time now) {
    stats.queue_byte_ps += double(queued[kDataClass]) * double(now - queue_changed);
    queue_changed = now;
  }
};

class Ports {
 public:
  Ports() = default;
  // `flow_tag`: per flow, its FlowSpec::tag. With every tag 0 nothing is counted by tag.
  // `outages` (must outlive this object): links that fail during the run; frames on them are lost.
  Ports(const Topology& topo, std::vector<std::uint16_t> flow_tag,
        const Outages* outages = nullptr);
  static constexpr std::uint64_t bytes_per_port() { return sizeof(Port) + sizeof(PortId); }

  std::uint32_t index(NodeId n, PortId p) const { return base_[n] + p; }
  Port& at(NodeId n, PortId p) { return ports_[base_[n] + p]; }
  const Port& at(NodeId n, PortId p) const { return ports_[base_[n] + p]; }
  std::size_t size() const { return ports_.size(); }
  const std::vector<Port>& all() const { return ports_; }
  const std::vector<std::uint32_t>& base() const { return base_; }  // by node, plus the total
  std::uint32_t tags() const { return tags_; }
  const std::vector<std::uint64_t>& tag_bytes() const { return tag_bytes_; }
  // The port a frame on link channel `channel` arrives at.
  PortId arrival_port(std::uint32_t channel) const { return arrival_[channel]; }

  // Starts serializing `pkt` (the port is idle): the port is busy for the frame's time on the
  // wire, and the frame reaches the peer one propagation delay after its last bit.
  // `t`: the packet's telemetry, when pkt.hops > 0.
  void start_tx(Ctx& ctx, NodeId node, PortId p, const Packet& pkt, const Telemetry* t);
  // A kTxDone when the current frame ends, unless one is set: the owner has more to send. A
  // port that ends a frame with nothing waiting has no event of its own (the owner calls this
  // when something arrives for it), so a link's idle direction costs nothing per frame.
  void resume_when_idle(Ctx& ctx, NodeId node, PortId p);
  // Starts the next control frame (MAC control first), if one waits; false if none does.
  bool send_control(Ctx& ctx, NodeId node, PortId p);
  // Starts the frame at the head of class `tc` (it must not be empty).
  void send_head(Ctx& ctx, NodeId node, PortId p, TrafficClass tc);
  // A kPortWake at t (a pause ends), unless an earlier one is pending.
  void wake_at(Ctx& ctx, NodeId node, PortId p, core::Time t);
  // A PFC frame from the peer: XOFF pauses data for its duration, XON resumes it. True when it
  // resumed a paused port (the owner may send data again).
  bool on_pause_frame(Ctx& ctx, NodeId node, PortId p, const Packet& pkt);
  // After a run over MPI ranks: what the run's results read of every port (its counters, its
  // serializer's and queue's last state, its bytes by tag), as the rank of its node left it.
  // `mine`: by node, whether this rank ran it.
  void take_owners(const core::Ranks& ranks, const std::vector<char>& mine);

 private:
  const Topology* topo_ = nullptr;
  const Outages* outages_ = nullptr;
  std::vector<std::uint32_t> base_;  // node -> its port 0 in ports_; last: the port count
  std::vector<Port> ports_;
  std::vector<PortId> arrival_;  // by channel (sending port): the receiving port
  std::vector<std::uint16_t> flow_tag_;
  std::uint32_t tags_ = 0;
  // port x tag; a port's entries are written by its node's LP only.
  std::vector<std::uint64_t> tag_bytes_;
};

}  // namespace fabricsim::net
