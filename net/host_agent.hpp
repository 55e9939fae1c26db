#pragma once
// The host-agent interface: what runs on the hosts (a collective executor), seen from the
// network. Every host has an agent node of its own in the kernel, on the LP of one of its NICs.
// An agent posts bytes to its NICs' queue pairs and sends messages to other agents
// (Network::post, Network::host_send); the network calls it back per message, never per packet.
#include <cstdint>

#include "net/context.hpp"

namespace fabricsim::net {

// A small message between host agents, or a host agent's timer: the app's own encoding.
struct AppMsg {
  std::uint32_t a = 0, b = 0;
  std::uint64_t c = 0;
};

// These calls run in the events of the host's agent node, so an app keeps per-host state that
// only its host's calls touch.
class HostApp {
 public:
  virtual ~HostApp() = default;
  virtual void on_start(Ctx& ctx, std::uint32_t host) = 0;
  // A timer of this host, or a message from another host (Network::host_send).
  virtual void on_message(Ctx& ctx, std::uint32_t host, const AppMsg& m) = 0;
  // The receiving NIC of app flow `flow` holds its first `messages` messages in order.
  virtual void on_delivered(Ctx& ctx, std::uint32_t host, std::uint32_t flow,
                            std::uint32_t messages) = 0;
};

}  // namespace fabricsim::net
