#include "workload/collective_exec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <queue>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collectives/protocol.hpp"
#include "workload/nvlink_fluid.hpp"

namespace fabricsim::workload {

using collectives::Dir;
using collectives::Plan;
using collectives::Step;
using core::Time;

collectives::RankLayout rank_layout(const net::Topology& topo, const collectives::Hardware& hw) {
  collectives::RankLayout layout;
  layout.hw = hw;
  for (std::size_t h = 0; h < topo.hosts.size(); ++h) {
    const net::Host& host = topo.hosts[h];
    for (std::uint32_t g = 0; g < host.gpus; ++g) {
      layout.ranks.push_back({static_cast<int>(h), static_cast<int>(g),
                              static_cast<int>(host.gpu_to_nic.empty() ? 0 : host.gpu_to_nic[g])});
    }
  }
  return layout;
}

collectives::Plan merge_plans(const std::vector<collectives::Plan>& plans,
                              const std::vector<std::vector<int>>& groups, int n_ranks) {
  if (plans.empty() || plans.size() != groups.size()) {
    throw std::invalid_argument("merge_plans: one group per plan");
  }
  Plan out;
  out.op = plans.front().op;
  out.algo = plans.front().algo;
  out.proto = plans.front().proto;
  out.channels = plans.front().channels;
  out.credits = plans.front().credits;
  out.channel_gbps = plans.front().channel_gbps;
  out.channel_net_gbps = plans.front().channel_net_gbps;
  out.slice_bytes = plans.front().slice_bytes;
  out.n_ranks = n_ranks;
  out.steps.resize(static_cast<std::size_t>(n_ranks));
  std::vector<char> used(static_cast<std::size_t>(n_ranks), 0);
  for (std::size_t g = 0; g < plans.size(); ++g) {
    const Plan& p = plans[g];
    const std::vector<int>& map = groups[g];
    if (!p.switch_host.empty()) throw std::invalid_argument("merge_plans: NVLS plans cannot merge");
    if (p.credits != out.credits || p.algo != out.algo || p.proto != out.proto) {
      throw std::invalid_argument("merge_plans: the groups' plans differ in algorithm or protocol");
    }
    if (map.size() != static_cast<std::size_t>(p.n_ranks)) {
      throw std::invalid_argument("merge_plans: a group's size differs from its plan's ranks");
    }
    for (int r = 0; r < p.n_ranks; ++r) {
      const int global = map[static_cast<std::size_t>(r)];
      if (global < 0 || global >= n_ranks || used[static_cast<std::size_t>(global)]++) {
        throw std::invalid_argument(
            fmt::format("merge_plans: rank {} is in no or two groups", global));
      }
      std::vector<Step>& dst = out.steps[static_cast<std::size_t>(global)];
      dst = p.steps[static_cast<std::size_t>(r)];
      for (Step& s : dst) s.peer = map[static_cast<std::size_t>(s.peer)];
    }
  }
  return out;
}

namespace {

Time us(double v) {
  return static_cast<Time>(v * static_cast<double>(core::kMicrosecond) + 0.5);
}

// Host-agent message types (AppMsg::a).
enum Msg : std::uint32_t { kBegin, kLaunch, kCredit, kFluidTimer, kPost };

// What the executor reads and writes of a step while it runs, in one record: a plan's steps
// are read all over the place (every rank and channel advances at once, so most reads miss the
// cache), and one 32-byte record instead of three arrays and the plan's 72-byte Step took 7%
// off S3.
struct StepState {
  std::uint64_t wire = 0;        // sends: wire bytes (at least 1)
  std::uint32_t pending = 0;     // dependencies not yet done
  std::uint32_t next_begin = 0;  // the steps that depend on it: Participant::next[begin, end)
  std::uint32_t next_end = 0;
  std::uint32_t conn = 0;
  std::int32_t seq = 0;  // position on its connection
  bool send = false;
  bool pays_latency = true;  // sends: the connection's step latency holds it first
};

struct Participant {
  int host = 0;
  int local = kSwitchEnd;  // GPU index in its host; kSwitchEnd for an NVSwitch agent
  int nic = -1;            // GPU ranks: the host's NIC next to it (its rail)
  std::vector<StepState> steps;
  std::vector<std::uint32_t> next;  // dependents of every step, step by step
  std::uint32_t done = 0;
  Time last = 0;
};

struct Conn {
  int from = 0, to = 0;  // participants
  bool net = false;
  std::uint32_t flow = 0;  // net: the network flow (queue pair)
  Time credit_delay = 0;   // net: a freed slot's trip back to the sender
  // A send holds its connection this long before its data moves (the GPU's part of a step).
  Time step_latency = 0;
  // Net: then the proxy and the NIC take this long to put it on the wire; successive sends of
  // the connection overlap here (the proxy keeps up to NCCL_STEPS sends in flight).
  Time post_delay = 0;
  double wire_scale = 1.0;  // NVLS: switch transfers run at nvls_efficiency
  // Sender side (its host's events only).
  int freed = 0;
  std::int64_t blocked = -1;  // a send waiting for a slot
  // Receiver side.
  int arrived = 0;
  std::int64_t waiting = -1;  // a receive waiting for its data
};

struct HostState {
  explicit HostState(int gpus, double cap) : fluid(gpus, cap) {}
  NvlinkFluid fluid;
  std::uint64_t fluid_gen = 0;
  bool fluid_changed = false;  // transfers started or ended in the current event
  std::vector<std::pair<std::uint32_t, std::uint32_t>> work;  // (participant, step) now ready
  std::vector<std::uint64_t> finished;
  std::vector<std::uint32_t> members;  // participants on this host
};

// Shortest one-way propagation delay between two nodes (Dijkstra over link delays).
std::vector<Time> delays_from(const net::Topology& topo, core::NodeId src) {
  std::vector<Time> d(topo.nodes.size(), core::kTimeMax);
  using Item = std::pair<Time, core::NodeId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  d[src] = 0;
  q.push({0, src});
  while (!q.empty()) {
    const auto [t, v] = q.top();
    q.pop();
    if (t != d[v]) continue;
    for (net::PortId p = 0; p < topo.nodes[v].ports.size(); ++p) {
      const net::Link& l = topo.link_at(v, p);
      const core::NodeId u = topo.peer(v, p);
      if (t + l.delay < d[u]) d[u] = t + l.delay, q.push({d[u], u});
    }
  }
  return d;
}

class Executor final : public net::HostApp {
  using Ctx = core::Context<net::Network>;

 public:
  // Takes the plan's steps over: each participant's list is freed once indexed, so a large
  // plan and its executor state are never both whole in memory.
  Executor(const net::Topology& topo, Plan& plan, const collectives::RankLayout& layout,
           const ExecParams& params)
      : topo_(topo),
        algo_(plan.algo),
        proto_(plan.proto),
        credits_(plan.credits),
        net_overhead_us_(layout.hw.net_overhead_us),
        params_(params) {
    // GB/s of payload -> wire bytes per ps.
    const auto wire_rate = [&](double gbps) {
      return gbps > 0 ? gbps * 1e-3 / collectives::wire_efficiency(plan.proto)
                      : NvlinkFluid::kUnbounded;
    };
    block_rate_ = wire_rate(plan.channel_gbps);
    if (plan.algo == collectives::Algo::NvlsTree) {
      // NVLSTree's ceiling is the heads' network throughput, not a thread block's writing:
      // it paces the queue pairs, overlapping the wire.
      qp_rate_ = static_cast<net::Bps>(plan.channel_net_gbps * 8e9);
    } else {
      block_net_rate_ = wire_rate(plan.channel_net_gbps);
    }
    const std::size_t parts = plan.steps.size();
    if (static_cast<std::size_t>(plan.n_ranks) != layout.ranks.size()) {
      throw std::invalid_argument(
          fmt::format("the plan has {} ranks, the layout {}", plan.n_ranks, layout.ranks.size()));
    }
    for (const net::Host& h : topo.hosts) {
      const double cap = static_cast<double>(h.gpu_link_rate) / 8.0 * params.nvlink_efficiency /
                         static_cast<double>(core::kSecond);
      hosts_.emplace_back(static_cast<int>(h.gpus), cap);
    }
    nic_index_ = topo.nic_index_of_nodes();

    parts_.resize(parts);
    for (std::size_t p = 0; p < parts; ++p) {
      Participant& part = parts_[p];
      if (p < static_cast<std::size_t>(plan.n_ranks)) {
        part.host = layout.ranks[p].host;
        part.local = layout.ranks[p].local;
        part.nic = layout.ranks[p].nic;
      } else {
        part.host = plan.switch_host.at(p - static_cast<std::size_t>(plan.n_ranks));
      }
      if (part.host < 0 || static_cast<std::size_t>(part.host) >= topo.hosts.size()) {
        throw std::invalid_argument(
            fmt::format("participant {} is on host {}, which the "
                        "topology does not have",
                        p, part.host));
      }
      if (part.local != kSwitchEnd &&
          static_cast<std::uint32_t>(part.local) >= topo.hosts[part.host].gpus) {
        throw std::invalid_argument(fmt::format("rank {} is GPU {} of host {}, which has {} GPUs",
                                                p, part.local, topo.hosts[part.host].name,
                                                topo.hosts[part.host].gpus));
      }
      hosts_[part.host].members.push_back(static_cast<std::uint32_t>(p));
    }
    Connections found;
    found.ids.reserve(parts * 4);
    for (std::size_t p = 0; p < parts; ++p) {
      index_steps(parts_[p], plan.steps[p]);
      connect_steps(p, plan.steps[p], found);
      std::vector<Step>().swap(plan.steps[p]);
    }
    for (std::size_t f = 0; f < flows_.size(); ++f) {
      std::uint64_t end = 0;
      for (std::uint64_t m : found.messages[f]) flows_[f].messages.push_back(end += m);
      flows_[f].bytes = end;
    }
  }

  // The queue pairs, for the network (once).
  std::vector<net::FlowSpec> take_flows() { return std::move(flows_); }

  void add_channels(net::Network& network) const {
    for (const auto& [key, delay] : host_pairs_) {
      network.add_host_channel(key.first, key.second, delay);
    }
  }

  void attach(net::Network* network) { net_ = network; }

  CollectiveResult result() const {
    CollectiveResult r;
    for (std::size_t p = 0; p < parts_.size(); ++p) {
      const Participant& part = parts_[p];
      if (part.done != part.steps.size()) {
        throw std::runtime_error(
            fmt::format("the collective stalled: participant {} completed {} of its {} steps", p,
                        part.done, part.steps.size()));
      }
      r.time = std::max(r.time, part.last);
      r.steps += part.done;
    }
    r.net_bytes = net_bytes_;
    r.nvlink_bytes = nvlink_bytes_;
    r.queue_pairs = static_cast<std::uint32_t>(flow_conn_.size());
    return r;
  }

  void on_start(Ctx& ctx, std::uint32_t host) override {
    if (hosts_[host].members.empty()) return;
    Time start = 0;
    if (params_.latencies && params_.fixed_step_latency < 0) {
      start = us(collectives::base_latency_us(algo_, proto_));
      if (algo_ == collectives::Algo::Nvls || algo_ == collectives::Algo::NvlsTree) {
        start += us(collectives::hw_latency_us(algo_, proto_, collectives::Hop::NVLink));
      }
    }
    net_->host_send(ctx, host, start, net::AppMsg{kBegin, 0, 0});
  }

  void on_message(Ctx& ctx, std::uint32_t host, const net::AppMsg& m) override {
    HostState& hs = hosts_[host];
    switch (static_cast<Msg>(m.a)) {
      case kBegin:
        for (std::uint32_t p : hs.members) {
          for (std::uint32_t i = 0; i < parts_[p].steps.size(); ++i) {
            if (parts_[p].steps[i].pending == 0) hs.work.push_back({p, i});
          }
        }
        break;
      case kLaunch:
        launch(ctx, host, m.b, static_cast<std::uint32_t>(m.c));
        break;
      case kCredit: {
        Conn& c = conns_[m.b];
        ++c.freed;
        unblock(hs, c);
        break;
      }
      case kPost:
        net_->post(ctx, conns_[m.b].flow, m.c);
        break;
      case kFluidTimer:
        if (m.c != hs.fluid_gen) return;  // superseded by a later change
        hs.finished.clear();
        hs.fluid.finish(ctx.now(), hs.finished);
        for (std::uint64_t tag : hs.finished) {
          fluid_done(ctx, static_cast<std::uint32_t>(tag >> 32), static_cast<std::uint32_t>(tag));
        }
        hs.fluid_changed = true;
        break;
    }
    drain(ctx, host);
  }

  void on_delivered(Ctx& ctx, std::uint32_t host, std::uint32_t flow,
                    std::uint32_t messages) override {
    Conn& c = conns_[flow_conn_[flow]];
    c.arrived = static_cast<int>(messages);
    try_receive(ctx, c);
    drain(ctx, host);
  }

 private:
  void index_steps(Participant& part, const std::vector<Step>& steps) {
    std::vector<StepState>& st = part.steps;
    st.resize(steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const Step& s = steps[i];
      st[i].pending = static_cast<std::uint32_t>(s.deps.size());
      st[i].send = s.dir == Dir::Send;
      st[i].seq = s.seq;
      st[i].wire = std::max<std::uint64_t>(1, s.wire_bytes);
      st[i].pays_latency = !params_.fixed_latency_per_ring_step || s.slice == 0;
      for (std::uint32_t d : s.deps) {
        if (d >= i) throw std::invalid_argument("plan step depends on a later step");
        ++st[d].next_end;  // counts dependents for now
      }
    }
    std::uint32_t at = 0;
    for (StepState& x : st) {
      x.next_begin = at;
      at += x.next_end;
      x.next_end = x.next_begin;
    }
    part.next.resize(at);
    for (std::uint32_t i = 0; i < steps.size(); ++i) {
      for (std::uint32_t d : steps[i].deps) part.next[st[d].next_end++] = i;
    }
  }

  std::uint32_t nic_of(int host, int rail) const {
    const net::Host& h = topo_.hosts[static_cast<std::size_t>(host)];
    if (rail < 0 || static_cast<std::size_t>(rail) >= h.nics.size()) {
      throw std::invalid_argument(
          fmt::format("host {} has no NIC {} (it has {})", h.name, rail, h.nics.size()));
    }
    return nic_index_[h.nics[static_cast<std::size_t>(rail)]];
  }

  struct Connections {  // what connect_steps() has found so far
    // Connection id by (from, to, channel), packed: looked up once per step.
    std::unordered_map<std::uint64_t, std::uint32_t> ids;
    std::map<std::uint32_t, std::vector<Time>> delays;  // by source NIC node
    std::vector<std::vector<std::uint64_t>> messages;   // per flow: message wire sizes
  };

  void connect_steps(std::size_t p, const std::vector<Step>& steps, Connections& found) {
    auto& [ids, delays, messages] = found;
    Participant& part = parts_[p];
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const Step& s = steps[i];
      const int from = s.dir == Dir::Send ? static_cast<int>(p) : s.peer;
      const int to = s.dir == Dir::Send ? s.peer : static_cast<int>(p);
      if (s.peer < 0 || static_cast<std::size_t>(s.peer) >= parts_.size()) {
        throw std::invalid_argument(
            fmt::format("participant {} step {}: no peer {}", p, i, s.peer));
      }
      const std::uint64_t key = static_cast<std::uint64_t>(from) << 40 |
                                static_cast<std::uint64_t>(to) << 16 |
                                static_cast<std::uint64_t>(s.channel);
      auto [it, fresh] = ids.try_emplace(key, static_cast<std::uint32_t>(conns_.size()));
      if (fresh) conns_.push_back(new_conn(from, to, s, delays, messages));
      part.steps[i].conn = it->second;
      Conn& c = conns_[it->second];
      if (s.dir == Dir::Send) {
        const std::uint64_t wire = std::max<std::uint64_t>(1, s.wire_bytes);
        if (c.net) {
          messages[c.flow].push_back(wire);
          net_bytes_ += wire;
        } else {
          nvlink_bytes_ += wire;
        }
      }
    }
  }

  Conn new_conn(int from, int to, const Step& s, std::map<std::uint32_t, std::vector<Time>>& delays,
                std::vector<std::vector<std::uint64_t>>& messages) {
    Conn c;
    c.from = from;
    c.to = to;
    const int hf = parts_[from].host, ht = parts_[to].host;
    c.net = hf != ht;
    using collectives::Hop;
    const bool pcie = topo_.hosts[hf].intra == net::IntraHost::kPcie;
    const Hop hop = c.net ? Hop::Net : pcie ? Hop::PCI : Hop::NVLink;
    if (params_.fixed_step_latency >= 0) {
      c.step_latency = params_.fixed_step_latency;
    } else if (params_.latencies && algo_ == collectives::Algo::NvlsTree) {
      // NVLS's latency is paid once at the start; the tree's network hops as any other.
      if (c.net) net_step_latency(c, 0.0);
    } else if (params_.latencies && algo_ != collectives::Algo::Nvls) {
      c.step_latency = us(collectives::hw_latency_us(algo_, proto_, hop));
      if (c.net) {
        net_step_latency(c,
                         collectives::hw_latency_us(algo_, proto_, pcie ? Hop::PCI : Hop::NVLink));
      }
    }
    if (parts_[from].local == kSwitchEnd || parts_[to].local == kSwitchEnd) {
      c.wire_scale = 1.0 / params_.nvls_efficiency;
    }
    if (!c.net) return c;
    if (s.rail == collectives::kNoRail) {
      throw std::invalid_argument(fmt::format("a step between hosts {} and {} names no NIC rail",
                                              topo_.hosts[hf].name, topo_.hosts[ht].name));
    }
    net::FlowSpec fs;
    fs.src_nic = nic_of(hf, params_.own_nics ? parts_[from].nic : s.rail);
    fs.dst_nic = nic_of(ht, params_.own_nics ? parts_[to].nic : s.rail);
    fs.max_rate = qp_rate_;
    c.flow = static_cast<std::uint32_t>(flows_.size());
    flows_.push_back(fs);
    messages.emplace_back();
    flow_conn_.push_back(static_cast<std::uint32_t>(conns_.size()));
    const core::NodeId src = topo_.nics[fs.src_nic];
    auto it = delays.find(src);
    if (it == delays.end()) it = delays.emplace(src, delays_from(topo_, src)).first;
    const Time path = it->second[topo_.nics[fs.dst_nic]];
    // The slot release is an RDMA write back to the sender: NIC to NIC plus both host hops.
    c.credit_delay = path + 2 * params_.host_delay;
    const std::pair<std::uint32_t, std::uint32_t> pair{
        static_cast<std::uint32_t>(std::min(hf, ht)), static_cast<std::uint32_t>(std::max(hf, ht))};
    auto [hp, fresh] = host_pairs_.try_emplace(pair, c.credit_delay);
    if (!fresh) hp->second = std::min(hp->second, c.credit_delay);
    return c;
  }

  // A step to another host is the GPU's step (its hop latency inside the host, but at least
  // the proxy's per-step overhead: NCCL's tuning model says inter-node rings "still have to
  // launch nsteps * net overhead", x3 for Simple; src/graph/tuning.cc, nccl-facts.md §4), then
  // the proxy and NIC pipeline for the rest of NCCL's network hop latency. The pipeline part
  // does not hold the connection: the send proxy posts a step as soon as the GPU has written it,
  // with up to NCCL_STEPS in flight (sendProxyProgress, src/transport/net.cc).
  void net_step_latency(Conn& c, double gpu_us) const {
    using collectives::hw_latency_us;
    const double overhead = net_overhead_us_ * (proto_ == collectives::Proto::Simple ? 3.0 : 1.0);
    c.step_latency = us(std::max(gpu_us, overhead));
    c.post_delay =
        std::max<Time>(0, us(hw_latency_us(algo_, proto_, collectives::Hop::Net)) - c.step_latency);
  }

  // Runs the steps that became ready, then re-arms the NVLink timer once for all the transfers
  // that started or ended in this event.
  void drain(Ctx& ctx, std::uint32_t host) {
    HostState& hs = hosts_[host];
    while (!hs.work.empty()) {
      const auto [p, i] = hs.work.back();
      hs.work.pop_back();
      ready(ctx, p, i);
    }
    if (hs.fluid_changed) {
      hs.fluid_changed = false;
      arm_fluid(ctx, host);
    }
  }

  void ready(Ctx& ctx, std::uint32_t p, std::uint32_t i) {
    const StepState& s = parts_[p].steps[i];
    Conn& c = conns_[s.conn];
    if (!s.send) {
      c.waiting = i;
      try_receive(ctx, c);
      return;
    }
    if (s.seq >= c.freed + credits_) {
      c.blocked = i;
      return;
    }
    // To another host the thread block writes the step into the proxy's buffer at its own
    // pace before the proxy can send it.
    // (An unbounded rate makes that time 0.)
    const Time hold =
        (s.pays_latency ? c.step_latency : 0) +
        (c.net ? static_cast<Time>(static_cast<double>(s.wire) / block_net_rate_) : 0);
    if (hold > 0) {
      net_->host_send(ctx, static_cast<std::uint32_t>(parts_[p].host), hold,
                      net::AppMsg{kLaunch, p, i});
    } else {
      launch(ctx, static_cast<std::uint32_t>(parts_[p].host), p, i);
    }
  }

  void launch(Ctx& ctx, std::uint32_t host, std::uint32_t p, std::uint32_t i) {
    const StepState& s = parts_[p].steps[i];
    Conn& c = conns_[s.conn];
    if (c.net) {
      if (c.post_delay > 0) {
        net_->host_send(ctx, host, c.post_delay, net::AppMsg{kPost, s.conn, s.wire});
      } else {
        net_->post(ctx, c.flow, s.wire);
      }
      complete(ctx, p, i);
      return;
    }
    HostState& hs = hosts_[host];
    hs.fluid.add(ctx.now(), parts_[p].local, parts_[c.to].local,
                 static_cast<double>(s.wire) * c.wire_scale, (std::uint64_t{p} << 32) | i,
                 block_rate_);
    hs.fluid_changed = true;
  }

  void arm_fluid(Ctx& ctx, std::uint32_t host) {
    HostState& hs = hosts_[host];
    ++hs.fluid_gen;
    if (hs.fluid.idle()) return;
    net_->host_send(ctx, host, hs.fluid.next_finish() - ctx.now(),
                    net::AppMsg{kFluidTimer, 0, hs.fluid_gen});
  }

  // A send inside a host is done when its data is in the peer's buffer.
  void fluid_done(Ctx& ctx, std::uint32_t p, std::uint32_t i) {
    Conn& c = conns_[parts_[p].steps[i].conn];
    complete(ctx, p, i);
    ++c.arrived;
    try_receive(ctx, c);
  }

  void try_receive(Ctx& ctx, Conn& c) {
    if (c.waiting < 0) return;
    const auto i = static_cast<std::uint32_t>(c.waiting);
    const std::uint32_t p = static_cast<std::uint32_t>(c.to);
    if (c.arrived <= parts_[p].steps[i].seq) return;
    c.waiting = -1;
    complete(ctx, p, i);
    // The FIFO slot is free again.
    if (c.net) {
      net_->host_send(ctx, static_cast<std::uint32_t>(parts_[c.from].host), c.credit_delay,
                      net::AppMsg{kCredit, static_cast<std::uint32_t>(&c - conns_.data()), 0});
    } else {
      ++c.freed;
      unblock(hosts_[parts_[c.from].host], c);
    }
  }

  void unblock(HostState& hs, Conn& c) {
    if (c.blocked < 0) return;
    hs.work.push_back({static_cast<std::uint32_t>(c.from), static_cast<std::uint32_t>(c.blocked)});
    c.blocked = -1;
  }

  void complete(Ctx& ctx, std::uint32_t p, std::uint32_t i) {
    Participant& part = parts_[p];
    ++part.done;
    part.last = ctx.now();
    HostState& hs = hosts_[part.host];
    const StepState& s = part.steps[i];
    for (std::uint32_t k = s.next_begin; k < s.next_end; ++k) {
      const std::uint32_t j = part.next[k];
      if (--part.steps[j].pending == 0) hs.work.push_back({p, j});
    }
  }

  const net::Topology& topo_;
  collectives::Algo algo_;
  collectives::Proto proto_;
  int credits_;
  double net_overhead_us_;
  // Wire bytes per ps one channel's thread block moves at most inside a host and to another
  // host (plan.channel_gbps, channel_net_gbps).
  double block_rate_ = NvlinkFluid::kUnbounded;
  double block_net_rate_ = NvlinkFluid::kUnbounded;
  net::Bps qp_rate_ = 0;  // each queue pair's own limit (0: none)
  ExecParams params_;
  net::Network* net_ = nullptr;
  std::vector<HostState> hosts_;
  std::vector<Participant> parts_;
  std::vector<Conn> conns_;
  std::vector<net::FlowSpec> flows_;
  std::vector<std::uint32_t> flow_conn_;
  std::vector<std::uint32_t> nic_index_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, Time> host_pairs_;
  std::uint64_t net_bytes_ = 0, nvlink_bytes_ = 0;
};

}  // namespace

CollectiveResult run_collective(const net::Topology& topo, const net::NetworkConfig& cfg, Plan plan,
                                const collectives::RankLayout& layout, const ExecParams& params,
                                const net::RunOptions& run) {
  if (!(params.nvlink_efficiency > 0 && params.nvlink_efficiency <= 1) ||
      !(params.nvls_efficiency > 0 && params.nvls_efficiency <= 1)) {
    throw std::invalid_argument("NVLink and NVLS efficiencies must be in (0, 1]");
  }
  for (const net::Host& h : topo.hosts) {
    if (h.gpus > 0 && h.gpu_link_rate == 0) {
      throw std::invalid_argument("host " + h.name + " has GPUs but no GPU link rate");
    }
  }
  Executor exec(topo, plan, layout, params);
  net::Network network(topo, cfg, exec.take_flows());
  network.set_app(&exec, params.host_delay);
  exec.add_channels(network);
  exec.attach(&network);
  net::NetworkResult nr = network.run(run);
  CollectiveResult r = exec.result();
  r.net = std::move(nr);
  return r;
}

}  // namespace fabricsim::workload
