#include "workload/comm_model.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

#include "collectives/plan.hpp"
#include "core/error.hpp"
#include "net/wire.hpp"

namespace fabricsim::workload {

namespace {

using collectives::RankInfo;

// A closed form's duration, checked: a size or rate out of scale is a HorizonError, not a
// wrapped time.
core::Time seconds(double s) {
  return core::later(0, std::ceil(s * 1e12), "a communication timed by a closed form");
}

// A GPU's usable NVLink (or PCIe) bandwidth inside its host, bytes per second.
double nvlink_rate(const net::Topology& topo, const RankInfo& r, const ExecParams& params) {
  return double(topo.hosts[r.host].gpu_link_rate) / 8 * params.nvlink_efficiency;
}

net::NodeId nic_node(const net::Topology& topo, const RankInfo& r) {
  return topo.hosts[r.host].nics[r.nic];
}

// A NIC's payload rate on its link, bytes per second: full packets carry their headers.
double nic_goodput(const net::Topology& topo, net::NodeId nic, const net::NetworkConfig& cfg) {
  const double line = double(topo.link_at(nic, 0).rate) / 8;
  return line * cfg.nic.mtu / net::data_wire_bytes(cfg.nic.mtu);
}

// Propagation over a path of fewest hops between two nodes (on the symmetric fabrics of the
// training scenarios every such path has the same delays).
core::Time path_delay(const net::Topology& topo, net::NodeId from, net::NodeId to) {
  std::vector<std::int64_t> via(topo.nodes.size(), -1);  // the link that reached a node
  std::deque<net::NodeId> queue{from};
  via[from] = -2;
  while (!queue.empty() && via[to] == -1) {
    const net::NodeId v = queue.front();
    queue.pop_front();
    for (net::PortId p = 0; p < topo.nodes[v].ports.size(); ++p) {
      const net::NodeId w = topo.peer(v, p);
      if (via[w] != -1) continue;
      via[w] = topo.nodes[v].ports[p];
      queue.push_back(w);
    }
  }
  if (via[to] == -1) throw std::invalid_argument("no path between two NICs");
  core::Time d = 0;
  for (net::NodeId v = to; v != from;) {
    const net::Link& l = topo.links[static_cast<std::size_t>(via[v])];
    d += l.delay;
    v = l.a == v ? l.b : l.a;
  }
  return d;
}

// Latency of one transfer from a to b: an NVLink hop inside a host; between hosts the
// host-NIC delay at both ends and the network path.
core::Time latency(const net::Topology& topo, const RankInfo& a, const RankInfo& b,
                   const ExecParams& params) {
  if (a.host == b.host) return topo.hosts[a.host].gpu_link_latency;
  return 2 * params.host_delay + path_delay(topo, nic_node(topo, a), nic_node(topo, b));
}

core::Time send_recv(const collectives::Call& call, const collectives::RankLayout& m,
                     const net::Topology& topo, const net::NetworkConfig& cfg,
                     const ExecParams& params) {
  const auto pair = [&](std::size_t from, std::size_t to) {
    const RankInfo& a = m.ranks[from];
    const RankInfo& b = m.ranks[to];
    const double rate = a.host == b.host ? nvlink_rate(topo, a, params)
                                         : std::min(nic_goodput(topo, nic_node(topo, a), cfg),
                                                    nic_goodput(topo, nic_node(topo, b), cfg));
    return latency(topo, a, b, params) + seconds(double(call.bytes) / rate);
  };
  if (call.peer != collectives::Call::kShift) {
    return pair(static_cast<std::size_t>(call.root), static_cast<std::size_t>(call.peer));
  }
  // Every rank to the next at once: the slowest pair decides.
  core::Time worst = 0;
  for (std::size_t r = 0; r < m.ranks.size(); ++r) {
    worst = std::max(worst, pair(r, (r + 1) % m.ranks.size()));
  }
  return worst;
}

// Every rank sends bytes/n to each other rank; the slowest rank's NVLink or NIC part decides.
core::Time all_to_all(const collectives::Call& call, const collectives::RankLayout& m,
                      const net::Topology& topo, const net::NetworkConfig& cfg,
                      const ExecParams& params) {
  const std::size_t n = m.ranks.size();
  const double share = double(call.bytes) / double(n);
  std::map<std::pair<int, int>, int> on_nic;  // members sending through each (host, NIC)
  for (const RankInfo& r : m.ranks) ++on_nic[{r.host, r.nic}];
  core::Time worst = 0;
  for (const RankInfo& r : m.ranks) {
    std::size_t local = 0;
    for (const RankInfo& o : m.ranks) local += o.host == r.host;
    const std::size_t remote = n - local;
    const double inside = double(local - 1) * share / nvlink_rate(topo, r, params);
    double outside = 0;
    core::Time lat = local > 1 ? topo.hosts[r.host].gpu_link_latency : 0;
    if (remote > 0) {
      outside = double(remote) * share * on_nic[{r.host, r.nic}] /
                nic_goodput(topo, nic_node(topo, r), cfg);
      for (const RankInfo& o : m.ranks) {
        if (o.host != r.host) {
          lat = std::max(lat, latency(topo, r, o, params));
          break;  // every remote peer is as far on a symmetric fabric
        }
      }
    }
    worst = std::max(worst, lat + seconds(std::max(inside, outside)));
  }
  return worst;
}

}  // namespace

core::Time model_communication(const collectives::Call& call,
                               const collectives::RankLayout& members, const net::Topology& topo,
                               const net::NetworkConfig& cfg, const ExecParams& params) {
  if (members.ranks.size() < 2 || call.bytes == 0) return 0;
  switch (call.op) {
    case collectives::Op::SendRecv:
      return send_recv(call, members, topo, cfg, params);
    case collectives::Op::AllToAll:
      return all_to_all(call, members, topo, cfg, params);
    default:
      return seconds(collectives::model_time(call, members).time_us * 1e-6);
  }
}

CommTimes model_communications(const Dag& dag, const net::Topology& topo,
                               const net::NetworkConfig& cfg, const collectives::RankLayout& layout,
                               const ExecParams& params) {
  const CommShapes cs = comm_shapes(dag, layout);
  std::vector<core::Time> shape_time(cs.first.size());
  for (std::size_t k = 0; k < shape_time.size(); ++k) {
    const std::size_t c = cs.first[k];
    shape_time[k] = model_communication(comm_call(dag.comms[c]), comm_members(dag, c, layout), topo,
                                        cfg, params);
  }
  CommTimes out;
  out.shapes = shape_time.size();
  out.time.reserve(dag.comms.size());
  for (const std::size_t s : cs.shape_of) out.time.push_back(shape_time[s]);
  return out;
}

}  // namespace fabricsim::workload
