#pragma once
// Network parameters: switches, NICs, congestion control, routing. Every default carries its
// source; the scenario layer (tools/) can override each one.
#include <cstdint>
#include <limits>
#include <vector>

#include "core/time.hpp"
#include "net/cc/params.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::net {

enum class Routing : std::uint8_t {
  kEcmp,      // per-flow hash over equal-cost next hops
  kSpray,     // per packet, uniformly at random over equal-cost next hops
  kAdaptive,  // per packet, the next hop with the fewest queued bytes
};

struct SwitchConfig {
  // Shared packet buffer per switch: HPCC-ns3 config.txt and SimAI.conf BUFFER_SIZE 32 (MB).
  std::uint64_t buffer_bytes = 32'000'000;
  // Lossless (PFC) or lossy (drop at overflow).
  bool pfc = true;
  // Dynamic PFC threshold: XOFF when an ingress port's shared-buffer bytes exceed
  // alpha x (free shared buffer); HPCC-ns3 switch-mmu.cc pfc_a_shift = 3, i.e. alpha = 1/8.
  double pfc_alpha = 1.0 / 8;
  // A port faster than the NICs gets alpha x 2 per doubling of its rate over the slowest NIC's,
  // at most x 8: HPCC-ns3 third.cc sets pfc_a_shift 3 and lowers it by one per doubling
  // ("set pfc alpha, proportional to link bw"), so a 400 Gb/s uplink over 100 Gb/s NICs pauses
  // at 1/2 of the free buffer where a host port pauses at 1/8.
  bool pfc_alpha_by_rate = true;
  // A static XOFF threshold per ingress port instead (bytes); 0 keeps the dynamic one.
  std::uint64_t pfc_xoff_bytes = 0;
  // XON when the port is back below XOFF by this much: HPCC-ns3 switch-mmu.cc resume_offset 3 KB.
  std::uint32_t pfc_resume_offset = 3 * 1024;
  // PFC headroom per ingress port = factor x rate x link delay / 8 bytes, plus two full packets
  // (one in flight each way when XOFF is sent): HPCC-ns3 third.cc uses 3 x rate x delay / 8.
  double pfc_headroom_factor = 3.0;
  // PAUSE time field in quanta of 512 bit times: 65535, the largest the 802.1Qbb frame carries
  // (IEEE 802.1Qbb / 802.3 Annex 31B), about 335 us at 100 Gb/s. A PAUSE lapses after that long.
  std::uint32_t pfc_pause_quanta = 65535;
  // While an ingress stays above XON the switch re-sends XOFF this often, so a pause never lapses
  // under congestion (a paused upstream sends nothing that could trigger a refresh). 0: half the
  // pause time. 802.1Qbb leaves the refresh period to the implementation; vendors do not publish
  // theirs (UNVERIFIED), and half the pause time keeps the peer paused across one lost frame.
  core::Time pfc_refresh = 0;
  // Lossy mode: an egress queue may take at most alpha x (free buffer) (dynamic threshold,
  // Choudhury & Hahne, IEEE/ACM ToN 1998; alpha = 1 is a common vendor default, UNVERIFIED).
  double egress_alpha = 1.0;
  // ECN by RED on the egress data queue, at dequeue (HPCC-ns3 switch-node.cc). Thresholds
  // scale with the port rate as HPCC-ns3 run.py: Kmin = 100 KB x rate/25G, Kmax = 400 KB x
  // rate/25G, Pmax = 0.2 (KB = 1000 B there). Nonzero kmin/kmax override the scaling.
  bool ecn = true;
  std::uint64_t kmin_bytes = 0;
  std::uint64_t kmax_bytes = 0;
  double pmax = 0.2;
  Routing routing = Routing::kEcmp;

  // The thresholds on a port of `rate`.
  std::uint64_t kmin_at(Bps rate) const {
    return kmin_bytes ? kmin_bytes : static_cast<std::uint64_t>(100'000 * per_25g(rate));
  }
  std::uint64_t kmax_at(Bps rate) const {
    return kmax_bytes ? kmax_bytes : static_cast<std::uint64_t>(400'000 * per_25g(rate));
  }
  static double per_25g(Bps rate) { return double(rate) / double(25 * kGbps); }
};

struct NicConfig {
  // Payload bytes per packet: RoCE path MTU 4096, the largest IB MTU enum (IBTA); SimAI
  // scenarios use 9000 (SimAI.conf PACKET_PAYLOAD_SIZE) and set it explicitly.
  std::uint32_t mtu = 4096;
  // ACK every n-th in-order packet, and always the last packet of a message and of the flow:
  // HPCC-ns3 L2_ACK_INTERVAL 1. kAckMessageEnds leaves only those: an RC responder may coalesce
  // its ACKs, but the requester needs the one for each message's last packet before it can
  // complete the message (the requester sets AckReq there; IBTA RC, MindShare "InfiniBand
  // Network Architecture" ch. 17-18).
  std::uint32_t ack_every = 1;
  static constexpr std::uint32_t kAckMessageEnds = std::numeric_limits<std::uint32_t>::max();
  // ACKs and NACKs travel in the data class (queued behind data, buffered and paused with it,
  // counted in the queue lengths HPCC's telemetry reports), as in HPCC-ns3's shipped
  // config.txt (ACK_HIGH_PRIO 0) and as RC responses share their queue pair's class on
  // InfiniBand and RoCE NICs; otherwise strictly above data, as HPCC-ns3 run.py and SimAI set
  // ACK_HIGH_PRIO 1. CNPs always go strictly above data (ConnectX CNP_802P_PRIO 6, a strict
  // class on NVIDIA switches' RoCE defaults).
  bool ack_in_data_class = false;
  // A receiver re-sends a NACK for the same gap only after this long: HPCC-ns3 NACK interval
  // 500 us (RdmaHw attribute default, cc-defaults.md section 2).
  core::Time nack_interval = 500 * core::kMicrosecond;
  // Receivers place packets that arrive out of order (as NICs built for adaptive routing and
  // spraying do) instead of discarding them and asking for a go-back-N resend; losses are then
  // recovered by the retransmission timeout. Off: the classic RoCE go-back-N receiver.
  bool out_of_order = false;
  // Retransmission timeout: IB local ACK timeout 4.096 us x 2^14 = 67 ms; 14 was NCCL's
  // NCCL_IB_TIMEOUT default before NCCL 2.14 (UNVERIFIED).
  core::Time rto = 4096 * core::kNanosecond * (1 << 14);
  // Timeouts in a row without progress before the queue pair fails (an error that stops the
  // run): IBTA Retry Count, a 3-bit field, so at most 7; NCCL_IB_RETRY_CNT default 7 (NCCL
  // environment-variable documentation).
  std::uint32_t retry_count = 7;
};

// How the network moves data: packet by packet through every mechanism above, or as fluid flows
// sharing the links max-min fairly (net/fluid.hpp: none of the switch, NIC or congestion-control
// mechanisms, a few events per message).
enum class Fidelity : std::uint8_t { kPacket, kFlow };

// A link out of service from `down` until `up`, both directions (net/outages.hpp).
struct LinkOutage {
  LinkId link = 0;
  core::Time down = 0;
  core::Time up = core::kTimeMax;  // never back
};

struct NetworkConfig {
  SwitchConfig sw;
  NicConfig nic;
  cc::Params cc;
  Fidelity fidelity = Fidelity::kPacket;
  std::vector<LinkOutage> outages;  // the scenario's cluster.failed_links
};

}  // namespace fabricsim::net
