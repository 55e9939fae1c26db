#pragma once
// A packet as it travels: plain data, copied into events and port queues (no per-packet heap).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/time.hpp"
#include "net/cc/feedback.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::net {

enum class PacketType : std::uint8_t { kData, kAck, kNack, kCnp, kPause };

// Traffic classes of a port, served in strict priority: PFC frames (MAC control, so an XOFF
// never waits behind other frames), then transport control (ACK, NACK, CNP: HPCC-ns3 / SimAI
// ACK_HIGH_PRIO), then data. Only data is ever paused.
enum TrafficClass : std::uint8_t { kMacControl = 0, kControl = 1, kDataClass = 2, kClasses = 3 };

// HPCC telemetry stamped by one egress port, in a compact form of cc::IntHop.
struct IntStamp {
  std::uint32_t qlen_bytes;
  std::uint32_t rate_mbps;
  std::uint64_t tx_bytes;
  core::Time ts;
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
  bool ce = false;        // data: ECN congestion experienced; ACK: echo of CE
  bool ack_req = false;   // data: acknowledge at once (IB BTH AckReq), whatever ack_every says
  std::uint8_t hops = 0;  // valid entries of stamps
  IntStamp stamps[cc::kMaxIntHops] = {};

  // Copies the parts in use: the header and the valid stamps (HPCC only). Copies of a packet in
  // port queues and on links move only these; the unused stamps are 120 bytes of the 168. (The
  // header is copied at its fixed size, which the compiler inlines; a copy of a variable length
  // is a call to memcpy and was slower than copying the whole packet.)
  static void copy(Packet& to, const Packet& from) {
    std::memcpy(static_cast<void*>(&to), &from, offsetof(Packet, stamps));
    for (std::uint8_t h = 0; h < from.hops; ++h) to.stamps[h] = from.stamps[h];
  }

  TrafficClass traffic_class() const {
    switch (type) {
      case PacketType::kData:
        return kDataClass;
      case PacketType::kPause:
        return kMacControl;
      default:
        return kControl;
    }
  }
};

}  // namespace fabricsim::net
