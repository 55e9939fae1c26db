#pragma once
// What the NIC hands to the congestion-control state machines: the fixed properties of the
// QP's path and, per ACK, the acknowledgement and its telemetry.
#include <cstdint>

#include "net/cc/params.hpp"

namespace fabricsim::net::cc {

// Fixed at QP creation.
struct Path {
  Bps line_rate = 0;              // the sending NIC port's rate
  Time base_rtt = 0;              // unloaded round trip (HPCC's T, DCTCP's initial BDP)
  std::uint32_t mtu_payload = 0;  // payload bytes of a full packet (DCTCP's increase step)
};

// HPCC-ns3 int-header.h IntHeader::maxHop = 5.
inline constexpr int kMaxIntHops = 5;

// In-band telemetry of one egress port, stamped when the data packet left it.
struct IntHop {
  std::uint32_t qlen_bytes = 0;  // egress queue length
  std::uint64_t tx_bytes = 0;    // cumulative bytes transmitted by the port
  Time ts = 0;                   // egress timestamp
  Bps rate = 0;                  // port line rate
};

struct AckInfo {
  std::uint64_t acked_bytes = 0;  // newly acknowledged payload bytes
  std::uint64_t acked_seq = 0;    // cumulative acked byte offset
  std::uint64_t snd_nxt = 0;      // sender's next byte offset when the ACK arrives
  bool ecn_echo = false;          // DCTCP: the acknowledged packet carried CE
  Time rtt = 0;                   // TIMELY: now - send time of the acknowledged packet
  std::uint8_t hops = 0;          // HPCC: valid entries of int_hops, in path order
  IntHop int_hops[kMaxIntHops];
};

}  // namespace fabricsim::net::cc
