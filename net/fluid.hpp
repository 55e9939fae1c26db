#pragma once
// The flow-level network (`simulation.fidelity: flow`): every queue pair is a fluid flow on its
// ECMP path, moving at its max-min fair share of the links it crosses (and never faster than
// its own limit, FlowSpec::max_rate). Shares are recomputed when a flow gets bytes to send or
// runs out of them. No packets, queues, PFC or congestion control: data leaves the source NIC
// at the flow's rate and reaches the receiver one path latency after its last byte (the
// propagation delays, and the last packet stored and forwarded at every switch). A message
// costs a few events, not a few per packet and hop, and a change recomputes only the shares
// of the flows it can affect (core/max_min.hpp).
//
// Runs on one logical process: the shares couple every flow that crosses a common link.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/due_heap.hpp"
#include "core/max_min.hpp"
#include "core/time.hpp"
#include "net/config.hpp"
#include "net/context.hpp"
#include "net/topology/routing.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::net {

struct FlowSpec;
struct FlowResult;
class Ports;

class Fluid {
 public:
  Fluid() = default;
  // Topology, flows, results and ports must outlive this object.
  Fluid(const Topology& topo, const NetworkConfig& cfg, const Routes& routes,
        const std::vector<FlowSpec>& flows, std::vector<FlowResult>& results, const Ports& ports);
  // Where the hosts' agents are (deliveries of app-flow messages), as Nics::set_hosts.
  void set_hosts(NodeId first_agent, core::Time host_delay) {
    first_agent_ = first_agent;
    host_delay_ = host_delay;
  }

  // kFlowStart: a flow without messages, all of its bytes at once.
  void flow_start(Ctx& ctx, std::uint32_t flow);
  // kPost: the host posted `bytes` more of app flow `flow`.
  void app_post(Ctx& ctx, std::uint32_t flow, std::uint64_t bytes);
  // kFluidWake with the generation it was scheduled for (older ones are stale).
  void wake(Ctx& ctx, std::uint64_t generation);

  // After the run, as of `end` (the run's last event; flows may be cut short there): per port
  // index the payload and wire bytes sent and the time spent sending them; the payload bytes
  // that left the source NICs (a fluid loses none: all of them arrive); per port and tag
  // (port * tags + tag) the payload bytes, when some flow has a tag.
  struct PortTotals {
    std::vector<std::uint64_t> data, wire;
    std::vector<core::Time> busy;
  };
  PortTotals port_totals(core::Time end) const;
  std::uint64_t payload_sent(core::Time end) const;
  std::vector<std::uint64_t> tag_bytes(std::uint32_t tags, core::Time end) const;

 private:
  struct FlowState {
    double sent = 0;       // payload bytes that left the source NIC by `since`
    core::Time since = 0;  // when `sent` was taken; rate is constant after it
    double rate = 0;       // payload bytes per ps
    double cap = 0;        // the flow's own limit, payload bytes per ps
    std::uint64_t posted = 0;
    std::uint32_t path_begin = 0, path_end = 0;  // its ports in path_
    std::uint32_t messages_done = 0;
    std::uint32_t share = 0;  // its id in shares_ while active
    core::Time tail = 0;      // last byte out of the source NIC -> at the receiving NIC
    core::Time ack = 0;       // and the ACK's way back
    bool active = false;
    bool joined = false, moved = false;  // listed in joined_ / moved_ for the next settle
  };

  double sent_at(const FlowState& s, core::Time now) const {
    return s.sent + s.rate * double(now - s.since);
  }
  // Whole payload bytes flow `s` has sent by `end`.
  std::uint64_t sent_by(const FlowState& s, core::Time end) const {
    if (!s.active || end <= s.since) return static_cast<std::uint64_t>(s.sent);
    return static_cast<std::uint64_t>(std::min(sent_at(s, end), double(s.posted)));
  }
  // The next byte offset at which something happens: a message ends, or the posted bytes do.
  std::uint64_t boundary(std::uint32_t flow) const;
  void soon(Ctx& ctx);                       // a wake now: something changed
  void reach(Ctx& ctx, std::uint32_t flow);  // the flow is at its boundary now
  void leave(std::uint32_t flow);            // it ran out of posted bytes
  void settle(core::Time now);               // shares and due times after the changes
  void set_due(core::Time now, std::uint32_t flow);
  void schedule_next(Ctx& ctx);

  const Topology* topo_ = nullptr;
  const std::vector<FlowSpec>* flows_ = nullptr;
  std::vector<FlowResult>* results_ = nullptr;
  double payload_share_ = 1;  // payload bytes per wire byte of a full packet
  std::uint32_t mtu_ = 0;
  std::vector<Bps> rate_;            // per port index: line rate
  std::vector<std::uint32_t> path_;  // every flow's ports, flow after flow
  std::vector<FlowState> state_;
  // The ports' capacities (payload bytes per ps) shared among the active flows.
  core::MaxMinShares shares_;
  std::vector<std::uint32_t> flow_of_share_;
  // Changes since the last settle: flows that got bytes to send, and busy flows whose boundary
  // moved (a post) or that went on to their next message.
  std::vector<std::uint32_t> joined_, moved_;
  core::DueHeap due_;  // when flows reach their boundaries
  std::uint64_t generation_ = 0;
  core::Time wake_at_ = -1;  // the pending wake's time (-1: none)
  NodeId first_agent_ = 0;
  core::Time host_delay_ = 0;
};

}  // namespace fabricsim::net
