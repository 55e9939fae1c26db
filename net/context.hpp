#pragma once
// The kernel context the network's parts and host agents are called with, declared without the
// kernel and the network themselves (net/network.hpp has both).
namespace fabricsim::core {
template <class Model>
class Context;
}

namespace fabricsim::net {
class Network;
using Ctx = core::Context<Network>;
}  // namespace fabricsim::net
