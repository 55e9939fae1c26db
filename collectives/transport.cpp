#include "collectives/transport.hpp"

#include <array>

#include "collectives/protocol.hpp"

namespace fabricsim::collectives {
namespace {

// aws-ofi-nccl figures are from aws/aws-ofi-nccl @ 2daf7d30 (2026-08-21):
// - reported latency: src/platform-aws.cpp platform_data_map `.latency`. Its commit (d87d61e0,
//   2023) calls 75 us a tuning choice: lower values were "slightly better for large
//   deployments" but made NCCL pick a much slower algorithm on two nodes. p5en / p6-b200: 35
//   us, "based on empirical search" (2496e7de, 2025).
// - message latency: the plugin's own tuner model (src/tuner/nccl_ofi_model.cpp
//   model_platform_params `.net_lat`, "2 nodes, 8B RDMA w/imm lat"): p5 / p5e 20 us, p5en 18 us;
//   for Simple it adds TUNER_NET_COMP_OVERHEAD, 3 us (include/nccl_ofi_param.h: ~2 us in the
//   device and ~1 us to write the completion to the host).
// - p6-b200 shares p5en's platform entry (same reported latency, same EFA features); the tuner
//   model has no p6 entry, so p5en's 18 us stands for it too.
// - p4d / p4de have no measured figure there. EFA's first generation lacks RDMA write, so the
//   plugin runs its send/recv protocol on them (default_protocol SENDRECV), which does not take
//   less than p5's RDMA write: p5's 20 us stands in, a lower bound (UNVERIFIED).
// - Simple only on p4d / p4de: at its first endpoint the plugin asks the EFA provider for
//   in-order delivery of aligned 128-byte blocks (FI_OPT_EFA_SENDRECV_IN_ORDER_ALIGNED_128_BYTES
//   under SENDRECV) and, refused, sets NCCL_PROTO=simple unless the user set it
//   (src/platform-aws.c configure_nccl_proto, present from v1.6 through v1.8.1-aws and later; a
//   p4d.24xlarge log with v1.11.0: "Setting FI_OPT_EFA_SENDRECV_IN_ORDER_ALIGNED_128_BYTES not
//   supported" then "Setting NCCL_PROTO to "simple"", aws/aws-ofi-nccl#715). p5 under RDMA
//   skips the check and keeps LL and LL128 (aws/aws-ofi-nccl#280).
constexpr std::array<TransportFacts, 4> kTransports{{
    // NCCL's IB verbs transport reports no latency (src/transport/net_ib/init.cc: "Not set").
    {"ib", 0.0, -1.0, 0.0, false},
    {"efa-p4d", 75.0, 20.0, 3.0, true},
    {"efa-p5", 75.0, 20.0, 3.0, false},
    {"efa-p5en", 35.0, 18.0, 3.0, false},
}};

}  // namespace

const TransportFacts& transport_facts(Transport t) {
  return kTransports[static_cast<std::size_t>(t)];
}

std::optional<Transport> find_transport(std::string_view name) {
  for (std::size_t i = 0; i < kTransports.size(); ++i) {
    if (kTransports[i].name == name) return static_cast<Transport>(i);
  }
  return std::nullopt;
}

std::string transport_names() {
  std::string out;
  for (const TransportFacts& f : kTransports) {
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

double net_hop_latency_us(Transport t, Algo a, Proto p, int version) {
  const TransportFacts& f = transport_facts(t);
  if (f.hop_latency_us < 0) return hw_latency_us(a, p, Hop::Net, version);
  return f.hop_latency_us + (p == Proto::Simple ? f.simple_completion_us : 0.0);
}

double tuned_net_latency_us(Transport t, Algo a, Proto p, int version) {
  const double reported = transport_facts(t).reported_latency_us;
  return hw_latency_us(a, p, Hop::Net, version) + reported * (p == Proto::Simple ? 2.0 : 1.0);
}

}  // namespace fabricsim::collectives
