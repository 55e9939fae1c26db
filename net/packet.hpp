#pragma once
// A packet as it travels: plain data, copied into link channels and port queues (no per-packet
// heap).
#include <cstdint>

#include "core/time.hpp"
#include "net/cc/feedback.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::net {

enum class PacketType : std::uint8_t { kData, kAck, kNack, kCnp, kPause };

// Traffic classes of a port, served in strict priority: PFC frames (MAC control, so an XOFF
// never waits behind other frames), then transport control (CNP, and ACK/NACK unless they go
// with the data: NicConfig::ack_in_data_class), then data. Only the data class is ever paused.
enum TrafficClass : std::uint8_t { kMacControl = 0, kControl = 1, kDataClass = 2, kClasses = 3 };

// HPCC telemetry stamped by one egress port, in a compact form of cc::IntHop.
struct IntStamp {
  std::uint32_t qlen_bytes;
  std::uint32_t rate_mbps;
  std::uint64_t tx_bytes;
  core::Time ts;
};

// HPCC telemetry of a packet: the stamps of the egress ports it has left (Packet::hops of
// them). It travels beside its packet, on links (a kernel FIFO attachment) and in port queues,
// only when the packet has one, so a packet without it is 48 bytes instead of 168: under other
// congestion controls, packets queued by the thousand then fit 3.5 times more in cache.
struct Telemetry {
  IntStamp stamps[cc::kMaxIntHops];
};

struct Packet {
  std::uint64_t seq = 0;  // data: offset of the first payload byte; ACK/NACK: next expected
  core::Time sent = 0;    // data: when the NIC sent it (echoed by the ACK); PAUSE: duration
  std::uint32_t flow = 0;
  std::uint32_t payload = 0;  // data bytes
  std::uint32_t wire = 0;     // bytes on the wire, headers, preamble and IFG included
  NodeId src = 0, dst = 0;    // sending and receiving NIC nodes
  PortId in_port = 0;         // switch: the ingress port while buffered
  PacketType type = PacketType::kData;
  bool ce = false;       // data: ECN congestion experienced; ACK: echo of CE
  bool ack_req = false;  // data: acknowledge at once (IB BTH AckReq), whatever ack_every says
  bool in_data = false;  // ACK/NACK: travels in the data class (NicConfig::ack_in_data_class)
  // HPCC: valid stamps in the packet's Telemetry, which travels beside it (0: it has none).
  std::uint8_t hops = 0;

  TrafficClass traffic_class() const {
    switch (type) {
      case PacketType::kData:
        return kDataClass;
      case PacketType::kPause:
        return kMacControl;
      case PacketType::kAck:
      case PacketType::kNack:
        return in_data ? kDataClass : kControl;
      default:
        return kControl;
    }
  }
};

}  // namespace fabricsim::net
