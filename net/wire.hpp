#pragma once
// What a RoCEv2 packet costs on the wire. Header sizes: IEEE 802.3 (Ethernet, preamble, IFG),
// RFC 791 (IPv4), RFC 768 (UDP), IBTA RoCEv2 Annex A17 (BTH, AETH, ICRC); tabulated in
// shared/reference/cc-defaults.md section 1.
#include <cstdint>

#include "core/time.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::net {

inline constexpr std::uint32_t kPreambleSfd = 8;
inline constexpr std::uint32_t kEthernetHeader = 14;  // no VLAN tag: priority from DSCP
inline constexpr std::uint32_t kIpv4Header = 20;
inline constexpr std::uint32_t kUdpHeader = 8;
inline constexpr std::uint32_t kBth = 12;
inline constexpr std::uint32_t kAeth = 4;  // on ACK / NAK
inline constexpr std::uint32_t kIcrc = 4;
inline constexpr std::uint32_t kFcs = 4;
inline constexpr std::uint32_t kInterFrameGap = 12;
inline constexpr std::uint32_t kMinFrame = 64;  // Ethernet minimum frame, header to FCS
// A CNP carries 16 reserved bytes after the BTH (IBTA RoCEv2 Annex A17.9.2).
inline constexpr std::uint32_t kCnpPayload = 16;

// A frame padded to the Ethernet minimum, plus preamble and IFG.
inline constexpr std::uint32_t padded_wire_bytes(std::uint32_t frame) {
  return kPreambleSfd + (frame < kMinFrame ? kMinFrame : frame) + kInterFrameGap;
}

// Bytes a data packet of `payload` bytes occupies on the wire, preamble and IFG included:
// payload + 82 with IPv4 and no VLAN, and never less than a minimum frame.
inline constexpr std::uint32_t data_wire_bytes(std::uint32_t payload) {
  return padded_wire_bytes(kEthernetHeader + kIpv4Header + kUdpHeader + kBth + payload + kIcrc +
                           kFcs);
}

inline constexpr std::uint32_t kAckWireBytes =
    padded_wire_bytes(kEthernetHeader + kIpv4Header + kUdpHeader + kBth + kAeth + kIcrc + kFcs);
inline constexpr std::uint32_t kCnpWireBytes = padded_wire_bytes(
    kEthernetHeader + kIpv4Header + kUdpHeader + kBth + kCnpPayload + kIcrc + kFcs);
// HPCC's in-band telemetry header on every data packet and on the ACK that echoes it: room for
// 5 hops of 8 bytes and a 2-byte hop count (HPCC-ns3 int-header.h, IntHeader::GetStaticSize in
// its HPCC mode; the HPCC paper, section 5.1, counts the same 42 bytes). fabricsim carries the
// stamps beside the packet (net/packet.hpp); these bytes are what they cost on the wire.
inline constexpr std::uint32_t kHpccIntBytes = 5 * 8 + 2;
// An 802.1Qbb PFC frame is a minimum-size MAC control frame.
inline constexpr std::uint32_t kPauseWireBytes = padded_wire_bytes(kMinFrame);

[[noreturn]] void throw_too_long_on_wire(std::uint64_t bytes, Bps rate);

// Time to put `bytes` on a link of `rate`, rounded up to a whole picosecond.
// Throws core::HorizonError when that time passes the largest simulated time.
inline Time serialization(std::uint64_t bytes, Bps rate) {
  // Frames and messages up to 2 MB at rates up to 1 Eb/s fit 64 bits, whose division is several
  // times cheaper than the 128-bit one; the result is the same.
  if (bytes <= 2'000'000 && rate >= 2 && rate <= 1'000'000'000'000'000'000ULL) {
    return static_cast<Time>((bytes * 8'000'000'000'000ULL + rate - 1) / rate);
  }
  const unsigned __int128 bits_ps =
      static_cast<unsigned __int128>(bytes) * 8 * 1'000'000'000'000ULL;
  const unsigned __int128 t = (bits_ps + rate - 1) / rate;
  if (t > static_cast<unsigned __int128>(core::kTimeMax)) [[unlikely]] {
    throw_too_long_on_wire(bytes, rate);
  }
  return static_cast<Time>(t);
}

}  // namespace fabricsim::net
