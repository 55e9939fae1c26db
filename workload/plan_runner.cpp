#include "workload/plan_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <unordered_map>

#include "collectives/protocol.hpp"
#include "collectives/transport.hpp"
#include "collectives/tuning.hpp"

namespace fabricsim::workload {

using collectives::Dir;
using collectives::Plan;
using collectives::Step;
using core::Time;

namespace {

// What a step costs is NCCL's latest calibration of its latencies, whatever release the run
// models: a release's constants steer its tuner's choices (collectives/tuner_constants.hpp), and
// later releases re-measured the same hardware and protocols (LL's base latency 3.6 -> 6.6 us
// in 2.18, Blackwell's caps revised four times from 2.25's doubled Hopper figures).
constexpr int kCalibration = collectives::kNcclVersionModelled;

Time us(double v) {
  return static_cast<Time>(v * static_cast<double>(core::kMicrosecond) + 0.5);
}

// Host-agent message types (AppMsg::a), below PlanRunner::kFirstOwnerMsg.
enum Msg : std::uint32_t { kBegin, kLaunch, kCredit, kFluidTimer, kPost };

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

}  // namespace

PlanRunner::PlanRunner(const net::Topology& topo, const ExecParams& params,
                       const collectives::Hardware& hw)
    : topo_(topo),
      params_(params),
      net_overhead_us_(collectives::net_overhead_us(hw.cpu)),
      transport_(hw.transport) {
  if (!(params.nvlink_efficiency > 0 && params.nvlink_efficiency <= 1) ||
      !(params.nvls_efficiency > 0 && params.nvls_efficiency <= 1)) {
    throw std::invalid_argument("NVLink and NVLS efficiencies must be in (0, 1]");
  }
  for (const net::Host& h : topo.hosts) {
    if (h.gpus > 0 && h.gpu_link_rate == 0) {
      throw std::invalid_argument("host " + h.name + " has GPUs but no GPU link rate");
    }
    const double cap = static_cast<double>(h.gpu_link_rate) / 8.0 * params.nvlink_efficiency /
                       static_cast<double>(core::kSecond);
    hosts_.emplace_back(static_cast<int>(h.gpus), cap);
  }
  nic_index_ = topo.nic_index_of_nodes();
}

std::uint32_t PlanRunner::add_shape(Plan plan, const std::vector<collectives::RankInfo>& ranks) {
  Shape s;
  // GB/s of payload -> wire bytes per ps.
  const auto wire_rate = [&](double gbps) {
    return gbps > 0 ? gbps * 1e-3 / collectives::wire_efficiency(plan.proto)
                    : NvlinkFluid::kUnbounded;
  };
  s.block_rate = wire_rate(plan.channel_gbps);
  s.whole = plan.merged_latency_us >= 0;  // collectives/whole_transfers.hpp
  s.latency_once = s.whole && plan.algo != collectives::Algo::P2P;
  if (plan.algo == collectives::Algo::NvlsTree) {
    // NVLSTree's ceiling is the heads' network throughput, not a thread block's writing: it
    // paces the queue pairs, overlapping the wire.
    s.qp_rate = static_cast<net::Bps>(plan.channel_net_gbps * 8e9);
  } else if (params_.fixed_step_latency < 0 || plan.proto != collectives::Proto::Simple) {
    s.block_net_rate = wire_rate(plan.channel_net_gbps);
  }
  if (params_.latencies && params_.fixed_step_latency < 0 && s.latency_once) {
    s.base_latency = us(plan.merged_latency_us);
  } else if (params_.latencies && params_.fixed_step_latency < 0) {
    s.base_latency = us(collectives::base_latency_us(plan.algo, plan.proto, kCalibration));
    if (plan.algo == collectives::Algo::Nvls || plan.algo == collectives::Algo::NvlsTree) {
      s.base_latency += us(collectives::hw_latency_us(plan.algo, plan.proto,
                                                      collectives::Hop::NVLink, kCalibration));
    }
    // PAT's kernel walks every peer distance, one operation at a time: NCCL's model charges
    // it per rank; the network hops of its log2(n) distances are the steps' own.
    s.base_latency += us(plan.extra_latency_us);
  }
  const std::size_t parts = plan.steps.size();
  if (parts < static_cast<std::size_t>(plan.n_ranks) ||
      parts - static_cast<std::size_t>(plan.n_ranks) !=
          plan.switch_host.size() + plan.sharp_rails.size()) {
    throw std::invalid_argument("a plan's participants are its ranks and its switch agents");
  }
  if (!plan.sharp_rails.empty() && topo_.aggregators == 0) {
    throw std::invalid_argument(
        "the plan reduces in the network's switches (CollNet), but the topology has no "
        "aggregation nodes (cluster.sharp)");
  }
  if (ranks.size() != static_cast<std::size_t>(plan.n_ranks)) {
    throw std::invalid_argument(
        fmt::format("the plan has {} ranks, the layout {}", plan.n_ranks, ranks.size()));
  }
  // Every instance puts an NVSwitch agent on the host of the GPU participant that shares its
  // host here.
  for (const int h : plan.switch_host) {
    const auto it = std::find_if(ranks.begin(), ranks.end(),
                                 [&](const collectives::RankInfo& r) { return r.host == h; });
    if (it == ranks.end()) {
      throw std::invalid_argument(fmt::format("an NVSwitch agent on host {} has no GPU there", h));
    }
    s.switch_member.push_back(static_cast<int>(it - ranks.begin()));
  }
  // Connection ids by (from, to, channel), packed: looked up once per step.
  std::unordered_map<std::uint64_t, std::uint32_t> ids;
  ids.reserve(parts * 4);
  s.step_conn.resize(parts);
  const auto held = [&](std::size_t p) { return plan.held.empty() || plan.held[p]; };
  for (std::size_t p = 0; p < parts; ++p) {
    if (!held(p)) {
      // Its connections in the order its steps meet them, as a scan of the steps would number
      // them; the traffic of its sends where no held receiver lists the messages.
      for (const collectives::ConnBrief& cb : plan.briefs[p].conns) {
        const auto [it, fresh] =
            ids.try_emplace(cb.key(), static_cast<std::uint32_t>(s.conns.size()));
        if (fresh) {
          s.conns.push_back(ShapeConn{static_cast<std::uint32_t>(cb.from),
                                      static_cast<std::uint32_t>(cb.to),
                                      cb.channel,
                                      cb.rail,
                                      {}});
        }
        ShapeConn& sc = s.conns[it->second];
        sc.brief_messages += cb.messages;
        sc.brief_bytes += cb.bytes;
      }
      continue;
    }
    const std::vector<Step>& steps = plan.steps[p];
    s.step_conn[p].resize(steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const Step& st = steps[i];
      if (st.peer < 0 || static_cast<std::size_t>(st.peer) >= parts) {
        throw std::invalid_argument(
            fmt::format("participant {} step {}: no peer {}", p, i, st.peer));
      }
      for (std::uint32_t d : st.deps) {
        if (d >= i) throw std::invalid_argument("plan step depends on a later step");
      }
      const auto from =
          static_cast<std::uint32_t>(st.dir == Dir::Send ? static_cast<int>(p) : st.peer);
      const auto to =
          static_cast<std::uint32_t>(st.dir == Dir::Send ? st.peer : static_cast<int>(p));
      const std::uint64_t key =
          collectives::connection_key(static_cast<int>(from), static_cast<int>(to), st.channel);
      auto [it, fresh] = ids.try_emplace(key, static_cast<std::uint32_t>(s.conns.size()));
      if (fresh) s.conns.push_back(ShapeConn{from, to, st.channel, st.rail, {}});
      s.step_conn[p][i] = it->second;
      if (st.dir == Dir::Send && st.copies != 1 && st.rail != collectives::kNoRail) {
        throw std::invalid_argument("a step between hosts stands for one connection only");
      }
      // A connection's messages, in order, from its sender's steps, or from its receiver's when
      // the sender's are on another rank. Inside a host only the byte counts read them: each
      // copy's bytes count.
      if (st.dir == Dir::Send || !held(static_cast<std::size_t>(st.peer))) {
        s.conns[it->second].messages.push_back(std::max<std::uint64_t>(1, st.wire_bytes) *
                                               st.copies);
      }
    }
  }
  for (ShapeConn& sc : s.conns) {
    for (const std::uint64_t m : sc.messages) s.message_bytes += m;
    // Listed by an end held here: the brief of the other end adds nothing.
    if (!sc.messages.empty()) {
      sc.brief_messages = 0;
      sc.brief_bytes = 0;
    }
    s.message_bytes += sc.brief_bytes;
  }
  s.plan = std::move(plan);
  shapes_.push_back(std::move(s));
  return static_cast<std::uint32_t>(shapes_.size() - 1);
}

void PlanRunner::reserve(const std::vector<std::uint32_t>& instance_shapes) {
  std::size_t parts = parts_.size();
  for (const std::uint32_t k : instance_shapes) parts += shapes_.at(k).plan.steps.size();
  parts_.reserve(parts);
  instances_.reserve(instances_.size() + instance_shapes.size());
  local_conns_.reserve(local_conns_.size() + instance_shapes.size());
}

std::uint32_t PlanRunner::add_instance(std::uint32_t shape,
                                       const std::vector<collectives::RankInfo>& ranks,
                                       std::uint64_t communicator, std::uint16_t tag) {
  Shape& s = shapes_.at(shape);
  const Plan& plan = s.plan;
  if (ranks.size() != static_cast<std::size_t>(plan.n_ranks)) {
    throw std::invalid_argument(
        fmt::format("the plan has {} ranks, the layout {}", plan.n_ranks, ranks.size()));
  }
  Instance inst;
  inst.shape = shape;
  inst.part_base = static_cast<std::uint32_t>(parts_.size());
  inst.parts = static_cast<std::uint32_t>(plan.steps.size());
  inst.conn_base = static_cast<std::uint32_t>(conns_.size());
  const auto id = static_cast<std::uint32_t>(instances_.size());
  for (std::uint32_t p = 0; p < inst.parts; ++p) {
    Participant part;
    part.instance = id;
    part.index = p;
    part.total = static_cast<std::uint32_t>(
        plan.held.empty() || plan.held[p] ? plan.steps[p].size() : plan.briefs[p].steps);
    const auto first_sharp = static_cast<std::uint32_t>(plan.n_ranks + plan.switch_host.size());
    if (p < static_cast<std::uint32_t>(plan.n_ranks)) {
      part.host = ranks[p].host;
      part.local = ranks[p].local;
      part.nic = ranks[p].nic;
    } else if (p < first_sharp) {
      const int member = s.switch_member[p - static_cast<std::uint32_t>(plan.n_ranks)];
      part.host = ranks[static_cast<std::size_t>(member)].host;
    } else {
      // The aggregation node of the switch that reduces for the agent's rail; its one NIC.
      part.host = static_cast<int>(topo_.aggregator_for_rail(plan.sharp_rails[p - first_sharp]));
      part.nic = 0;
    }
    if (part.host < 0 || static_cast<std::size_t>(part.host) >= topo_.hosts.size()) {
      throw std::invalid_argument(fmt::format(
          "participant {} is on host {}, which the topology does not have", p, part.host));
    }
    if (part.local != kSwitchEnd &&
        static_cast<std::uint32_t>(part.local) >= topo_.hosts[part.host].gpus) {
      throw std::invalid_argument(fmt::format("rank {} is GPU {} of host {}, which has {} GPUs", p,
                                              part.local, topo_.hosts[part.host].name,
                                              topo_.hosts[part.host].gpus));
    }
    parts_.push_back(std::move(part));
  }
  // Inside one host its connections need no flows: they are made when it starts and freed when
  // it ends (the tensor-parallel collectives of an iteration are most of its communications).
  inst.local =
      std::all_of(parts_.begin() + inst.part_base, parts_.end(),
                  [&](const Participant& q) { return q.host == parts_[inst.part_base].host; });
  inst.left = inst.parts;
  if (inst.local) nvlink_bytes_ += s.message_bytes;
  for (std::size_t k = 0; !inst.local && k < s.conns.size(); ++k) {
    const ShapeConn& sc = s.conns[k];
    // An instance on its own gets an id of its own, counted down from the top of the range so
    // it never meets a caller's communicator.
    Conn c =
        new_conn(s, sc, inst.part_base + sc.from, inst.part_base + sc.to,
                 communicator == kOwnCommunicator ? kOwnCommunicator - 1 - id : communicator, tag);
    std::uint64_t total = 0;
    if (c.net) {
      net::FlowSpec& fs = flows_[c.flow];
      std::uint64_t end = fs.bytes;
      for (const std::uint64_t m : sc.messages) fs.messages.push_back(end += m), total += m;
      if (sc.brief_messages > 0) {
        // Neither end runs here, nor does either NIC, so only the flow's size and message count
        // need be right: one byte each but the last, which carries the rest.
        for (std::uint32_t k = 1; k < sc.brief_messages; ++k) fs.messages.push_back(++end);
        end = fs.bytes + sc.brief_bytes;
        fs.messages.push_back(end);
        total += sc.brief_bytes;
      }
      fs.bytes = end;
      net_bytes_ += total;
    } else {
      for (const std::uint64_t m : sc.messages) total += m;
      nvlink_bytes_ += total + sc.brief_bytes;
    }
    conns_.push_back(c);
  }
  ++s.instances;
  instances_.push_back(inst);
  local_conns_.emplace_back();
  return id;
}

PlanRunner::Conn PlanRunner::new_conn(const Shape& shape, const ShapeConn& sc, std::uint32_t from,
                                      std::uint32_t to, std::uint64_t communicator,
                                      std::uint16_t tag) {
  const collectives::Algo algo = shape.plan.algo;
  const collectives::Proto proto = shape.plan.proto;
  Conn c;
  c.from = static_cast<int>(from);
  c.to = static_cast<int>(to);
  c.credits = shape.plan.credits;
  const int hf = parts_[from].host, ht = parts_[to].host;
  c.net = hf != ht;
  using collectives::Hop;
  const bool pcie = topo_.hosts[hf].intra == net::IntraHost::kPcie;
  const Hop hop = c.net ? Hop::Net : pcie ? Hop::PCI : Hop::NVLink;
  if (params_.fixed_step_latency >= 0) {
    c.step_latency = params_.fixed_step_latency;
  } else if (params_.latencies &&
             (algo == collectives::Algo::NvlsTree || algo == collectives::Algo::Nvls)) {
    // NVLS's latency is paid once at the start; the network hops (the tree's, or the heads' to
    // the switches that reduce) as any other.
    if (c.net) net_step_latency(shape, c, 0.0);
  } else if (params_.latencies && algo != collectives::Algo::Nvls) {
    c.step_latency = us(collectives::hw_latency_us(algo, proto, hop, kCalibration));
    if (c.net) {
      net_step_latency(
          shape, c,
          collectives::hw_latency_us(algo, proto, pcie ? Hop::PCI : Hop::NVLink, kCalibration));
    }
  }
  // The switches reply without a proxy or a GPU: the network figure of the reduction, which
  // NCCL's model charges once per pass, is on the heads' sends to them.
  if (c.net && aggregator(parts_[from])) c.step_latency = c.post_delay = c.post_cost = 0;
  if (shape.latency_once) c.step_latency = c.post_delay = c.post_cost = 0;  // in base_latency
  if (parts_[from].local == kSwitchEnd || parts_[to].local == kSwitchEnd) {
    c.wire_scale = 1.0 / params_.nvls_efficiency;
  }
  if (!c.net) return c;
  if (sc.rail == collectives::kNoRail) {
    throw std::invalid_argument(fmt::format("a step between hosts {} and {} names no NIC rail",
                                            topo_.hosts[hf].name, topo_.hosts[ht].name));
  }
  net::FlowSpec fs;
  const auto nic = [&](const Participant& q) {
    return aggregator(q) ? 0 : params_.own_nics ? q.nic : sc.rail;
  };
  fs.src_nic = nic_of(hf, nic(parts_[from]));
  fs.dst_nic = nic_of(ht, nic(parts_[to]));
  fs.max_rate = shape.qp_rate;
  if (shape.whole && shape.block_net_rate < NvlinkFluid::kUnbounded) {
    // A whole transfer does not wait for its thread block to write all of it before it moves:
    // the block's pace bounds the queue pair instead.
    const auto cap = static_cast<net::Bps>(shape.block_net_rate * 8e12);  // bytes/ps -> bit/s
    fs.max_rate = fs.max_rate > 0 ? std::min(fs.max_rate, cap) : cap;
  }
  fs.tag = tag;
  // One queue pair per connection of a communicator, as NCCL sets them up once and every call
  // on the communicator reuses them (with their congestion-control state).
  const FlowKey key{communicator,     fs.src_nic, fs.dst_nic, parts_[from].index,
                    parts_[to].index, sc.channel, fs.max_rate};
  const auto [f, fresh_flow] = flow_of_.try_emplace(key, static_cast<std::uint32_t>(flows_.size()));
  c.flow = f->second;
  if (fresh_flow) {
    flows_.push_back(fs);
    flow_conns_.emplace_back();
  }
  c.msg_base = static_cast<std::uint32_t>(flows_[c.flow].messages.size());
  c.msg_count = static_cast<std::uint32_t>(sc.messages.size()) + sc.brief_messages;
  flow_conns_[c.flow].push_back(static_cast<std::uint32_t>(conns_.size()));
  const core::NodeId src = topo_.nics[fs.src_nic];
  auto it = delays_.find(src);
  if (it == delays_.end()) it = delays_.emplace(src, delays_from(topo_, src)).first;
  const Time path = it->second[topo_.nics[fs.dst_nic]];
  // The slot release is an RDMA write back to the sender: NIC to NIC plus both host hops.
  c.credit_delay = path + 2 * params_.host_delay;
  const std::pair<std::uint32_t, std::uint32_t> pair{static_cast<std::uint32_t>(std::min(hf, ht)),
                                                     static_cast<std::uint32_t>(std::max(hf, ht))};
  auto [hp, fresh] = host_pairs_.try_emplace(pair, c.credit_delay);
  if (!fresh) hp->second = std::min(hp->second, c.credit_delay);
  return c;
}

// A step to another host is the GPU's step (its hop latency inside the host, but at least the
// proxy's per-step overhead: NCCL's tuning model says inter-node rings "still have to launch
// nsteps * net overhead", x3 for Simple; src/graph/tuning.cc, nccl-facts.md §4), then the proxy
// and NIC pipeline for the rest of the network hop latency (NCCL's hwLat[NET] on its IB
// transport, the transport's message latency on others: collectives/transport.hpp). The pipeline
// part does not hold the connection: the send proxy posts a step as soon as the GPU has written it,
// with up to NCCL_STEPS in flight (sendProxyProgress, src/transport/net.cc).
// The proxy is one thread per GPU and communicator (src/proxy.cc, progressOps), serving every
// channel's connections in turn, and a post costs it NCCL's "network post overhead"
// (NCCL_NET_OVERHEAD, getNetOverhead: 1 us, 2 us on AMD). A lone connection never waits for it
// (its steps are further apart than that); sends of several connections at once queue there
// (PlanRunner::launch). Simple's three overheads per step stay the connection's own: as the
// thread's time per post they made the 2-node B200 NVLSTree datasets 17-43% slower than
// measured at >= 1 MiB (tried November 2026, docs/collectives.md).
void PlanRunner::net_step_latency(const Shape& shape, Conn& c, double gpu_us) const {
  const collectives::Proto proto = shape.plan.proto;
  const double overhead = net_overhead_us_ * (proto == collectives::Proto::Simple ? 3.0 : 1.0);
  c.step_latency = us(std::max(gpu_us, overhead));
  c.post_cost = us(net_overhead_us_);
  c.post_delay = std::max<Time>(
      0, us(collectives::net_hop_latency_us(transport_, shape.plan.algo, proto, kCalibration)) -
             c.step_latency);
}

std::uint32_t PlanRunner::nic_of(int host, int rail) const {
  const net::Host& h = topo_.hosts[static_cast<std::size_t>(host)];
  if (rail < 0 || static_cast<std::size_t>(rail) >= h.nics.size()) {
    throw std::invalid_argument(
        fmt::format("host {} has no NIC {} (it has {})", h.name, rail, h.nics.size()));
  }
  return nic_index_[h.nics[static_cast<std::size_t>(rail)]];
}

std::uint64_t PlanRunner::held_steps() const {
  std::uint64_t n = 0;
  for (const Shape& s : shapes_) {
    for (const std::vector<std::uint32_t>& c : s.step_conn) n += c.size();
  }
  return n;
}

std::vector<net::FlowSpec> PlanRunner::take_flows() {
  flow_cursor_.assign(flows_.size(), 0);
  std::map<FlowKey, std::uint32_t>().swap(flow_of_);
  return std::move(flows_);
}

void PlanRunner::add_channels(net::Network& network) const {
  for (const auto& [key, delay] : host_pairs_)
    network.add_host_channel(key.first, key.second, delay);
}

void PlanRunner::attach(net::Network* network, DoneFn done, void* owner) {
  net_ = network;
  done_ = done;
  owner_ = owner;
  // Every instance of a shape starts each participant's steps alike: built here, before the
  // run, and only read by the hosts (on any LP) that copy them.
  for (Shape& shape : shapes_) {
    if (shape.instances < 2) continue;
    shape.start.resize(shape.plan.steps.size());
    for (std::uint32_t i = 0; i < shape.start.size(); ++i) step_states(shape, i, shape.start[i]);
  }
  // The connections of a shape's instances inside one host are the same but for whose they
  // are, as long as their hosts' GPUs are linked alike: made here from its first such instance
  // (participants numbered within it), for the others to copy.
  for (const Instance& inst : instances_) {
    Shape& shape = shapes_[inst.shape];
    if (!inst.local || shape.instances < 2 || !shape.local_conns.empty()) continue;
    shape.local_intra = topo_.hosts[parts_[inst.part_base].host].intra;
    shape.local_conns.resize(shape.conns.size());
    for (std::size_t k = 0; k < shape.conns.size(); ++k) {
      const ShapeConn& sc = shape.conns[k];
      Conn& c = shape.local_conns[k];
      c = new_conn(shape, sc, inst.part_base + sc.from, inst.part_base + sc.to, kOwnCommunicator);
      c.from -= static_cast<int>(inst.part_base);
      c.to -= static_cast<int>(inst.part_base);
    }
  }
}

void PlanRunner::start(Ctx& ctx, std::uint32_t instance, std::uint32_t p, Time at) {
  const Instance& inst = instances_[instance];
  const std::uint32_t gp = inst.part_base + p;
  const Time begins = at + shapes_[inst.shape].base_latency;
  if (begins > ctx.now()) {
    net_->host_send(ctx, static_cast<std::uint32_t>(parts_[gp].host), begins - ctx.now(),
                    net::AppMsg{kBegin, gp, 0});
  } else {
    begin(ctx, gp);
  }
}

// Participant `index`'s steps as they start: what each waits for and releases, its connection
// among the shape's (an instance between hosts adds its conn_base).
void PlanRunner::step_states(const Shape& shape, std::uint32_t index, LiveSteps& out) const {
  const std::vector<Step>& steps = shape.plan.steps[index];
  const std::vector<std::uint32_t>& conn = shape.step_conn[index];
  std::vector<StepState>& st = out.steps;
  st.assign(steps.size(), StepState{});
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    st[i].pending = static_cast<std::uint32_t>(s.deps.size());
    st[i].send = s.dir == Dir::Send;
    st[i].seq = s.seq;
    st[i].wire = std::max<std::uint64_t>(1, s.wire_bytes);
    st[i].conn = conn[i];
    // A point-to-point transfer streams its steps: its hop's latency once, on the first.
    st[i].pays_latency = (!params_.fixed_latency_per_ring_step || s.slice == 0) &&
                         (shape.plan.algo != collectives::Algo::P2P || s.seq == 0);
    st[i].copies = s.copies;
  }
  if (steps.size() >= kNoNext) {
    throw std::length_error(
        fmt::format("a plan participant has {} steps; at most {} run", steps.size(), kNoNext - 1));
  }
  // Dependents in plan order, as complete() releases them: a step's first two in the step
  // itself, all of them in the spill list when it has more.
  std::vector<std::uint32_t> count(steps.size());
  for (const Step& s : steps) {
    for (std::uint32_t d : s.deps) ++count[d];
  }
  std::uint32_t at = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (count[i] <= 2) continue;
    st[i].next0 = at;
    st[i].next1 = kSpill | at;
    at += count[i];
  }
  out.own_next.resize(at);
  out.next = out.own_next.data();
  for (std::uint32_t i = 0; i < steps.size(); ++i) {
    for (std::uint32_t d : steps[i].deps) {
      StepState& x = st[d];
      if (x.next1 & kSpill) {
        out.own_next[x.next1++ & ~kSpill] = i;
      } else if (x.next0 == kNoNext) {
        x.next0 = i;
      } else {
        x.next1 = i;
      }
    }
  }
}

// Materialises participant p's steps (and those of its instance's NVSwitch agents on its host)
// and queues the ones that wait for nothing.
void PlanRunner::begin(Ctx& ctx, std::uint32_t p) {
  Participant& part = parts_[p];
  if (part.started) return;
  part.started = true;
  const Instance& inst = instances_[part.instance];
  Shape& shape = shapes_[inst.shape];
  if (inst.local && !local_conns_[part.instance]) {
    // Copied from the shape's (attach), when this host's GPUs are linked as that one's.
    const bool alike =
        !shape.local_conns.empty() && shape.local_intra == topo_.hosts[part.host].intra;
    auto conns = std::make_unique<Conn[]>(shape.conns.size());
    for (std::size_t k = 0; k < shape.conns.size(); ++k) {
      const ShapeConn& sc = shape.conns[k];
      if (!alike) {
        conns[k] =
            new_conn(shape, sc, inst.part_base + sc.from, inst.part_base + sc.to, kOwnCommunicator);
        continue;
      }
      conns[k] = shape.local_conns[k];
      conns[k].from += static_cast<int>(inst.part_base);
      conns[k].to += static_cast<int>(inst.part_base);
    }
    local_conns_[part.instance] = std::move(conns);
  }
  HostState& hs = hosts_[part.host];
  if (hs.free_live.empty()) {
    part.live = static_cast<std::uint32_t>(hs.live.size());
    hs.live.emplace_back();
  } else {
    part.live = hs.free_live.back();
    hs.free_live.pop_back();
  }
  LiveSteps& live = hs.live[part.live];
  if (!shape.plan.held.empty() && !shape.plan.held[part.index]) {
    throw std::logic_error("a participant whose plan steps this process does not hold began");
  }
  if (shape.instances == 1) {
    step_states(shape, part.index, live);
    // A plan run once needs its steps no longer: a plan of a thousand ranks holds gigabytes.
    std::vector<Step>().swap(shape.plan.steps[part.index]);
  } else {
    const LiveSteps& start = shape.start[part.index];  // attach built it
    live.steps = start.steps;
    live.next = start.next;  // read only: shared
  }
  std::vector<StepState>& st = live.steps;
  if (!inst.local) {
    for (StepState& x : st) x.conn += inst.conn_base;
  }
  for (std::uint32_t i = 0; i < st.size(); ++i) {
    if (st[i].pending == 0) hs.work.push_back({p, i});
  }
  part.last = ctx.now();
  if (part.total == 0) {
    hs.free_live.push_back(part.live);
    part.live = kNotLive;
    finished(part);
    if (done_) done_(owner_, ctx, part.instance, part.index);
  }
  if (part.local == kSwitchEnd) return;
  // Its host's NVSwitch agents (the aggregation agents start on their first data).
  const auto agents =
      static_cast<std::uint32_t>(shape.plan.n_ranks + shape.plan.switch_host.size());
  for (std::uint32_t q = inst.part_base + static_cast<std::uint32_t>(shape.plan.n_ranks);
       q < inst.part_base + agents; ++q) {
    if (parts_[q].host == part.host) begin(ctx, q);
  }
}

void PlanRunner::on_message(Ctx& ctx, std::uint32_t host, const net::AppMsg& m) {
  HostState& hs = hosts_[host];
  switch (static_cast<Msg>(m.a)) {
    case kBegin:
      begin(ctx, m.b);
      break;
    case kLaunch: {
      const auto conn = static_cast<std::uint32_t>(m.c >> 32);
      const Conn& c = conn_of(m.b, conn);
      launch(ctx, host, m.b, static_cast<std::uint32_t>(m.c), conn, c.held_wire, c.held_copies);
      break;
    }
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
      if (m.c != hs.fluid_gen) return;  // superseded by an earlier completion
      hs.fluid_timer = -1;
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

// A queue pair carries its instances' messages one instance after another: the count goes to
// the instance receiving now, and on to the next once that one has all of its own.
void PlanRunner::on_delivered(Ctx& ctx, std::uint32_t host, std::uint32_t flow,
                              std::uint32_t messages) {
  const std::vector<std::uint32_t>& conns = flow_conns_[flow];
  std::uint32_t& k = flow_cursor_[flow];
  for (; k < conns.size(); ++k) {
    Conn& c = conns_[conns[k]];
    c.arrived = static_cast<int>(std::min(messages - c.msg_base, c.msg_count));
    // An aggregation node in the switches starts its steps when the first data reaches it
    // (a GPU starts its own when its stream reaches the call).
    Participant& to = parts_[static_cast<std::size_t>(c.to)];
    if (!to.started && aggregator(to)) begin(ctx, static_cast<std::uint32_t>(c.to));
    try_receive(ctx, c);
    if (static_cast<std::uint32_t>(c.arrived) < c.msg_count) break;
  }
  drain(ctx, host);
}

// Runs the steps that became ready, then re-arms the NVLink timer once for all the transfers
// that started or ended in this event.
void PlanRunner::drain(Ctx& ctx, std::uint32_t host) {
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
  for (const std::uint32_t inst : hs.release) local_conns_[inst].reset();
  hs.release.clear();
}

void PlanRunner::ready(Ctx& ctx, std::uint32_t p, std::uint32_t i) {
  const StepState& s = step_of(p, i);
  Conn& c = conn_of(p, s.conn);
  if (!s.send) {
    c.waiting = i;
    try_receive(ctx, c);
    return;
  }
  if (s.seq >= c.freed + c.credits) {
    c.blocked = i;
    return;
  }
  // To another host the thread block writes the step into the proxy's buffer at its own pace
  // before the proxy can send it (an unbounded rate makes that time 0).
  const Time hold =
      (s.pays_latency ? c.step_latency : 0) +
      (c.net && !shape_of(p).whole
           ? static_cast<Time>(static_cast<double>(s.wire) / shape_of(p).block_net_rate)
           : 0);
  if (hold > 0) {
    // The connection holds what the launch needs: its step's record is long out of the cache by
    // then on large plans, and it has no other send held (each waits for the one before it).
    c.held_wire = s.wire;
    c.held_copies = s.copies;
    net_->host_send(ctx, static_cast<std::uint32_t>(parts_[p].host), hold,
                    net::AppMsg{kLaunch, p, std::uint64_t{s.conn} << 32 | i});
  } else {
    launch(ctx, static_cast<std::uint32_t>(parts_[p].host), p, i, s.conn, s.wire, s.copies);
  }
}

void PlanRunner::launch(Ctx& ctx, std::uint32_t host, std::uint32_t p, std::uint32_t i,
                        std::uint32_t conn, std::uint64_t wire, std::uint32_t copies) {
  Conn& c = conn_of(p, conn);
  if (c.net) {
    // The proxy took post_cost for this send during the step's hold unless it was still busy
    // posting another connection's.
    Participant& part = parts_[p];
    const Time posted = std::max(ctx.now(), part.proxy_free + c.post_cost);
    part.proxy_free = posted;
    const Time delay = posted - ctx.now() + c.post_delay;
    if (delay > 0) {
      net_->host_send(ctx, host, delay, net::AppMsg{kPost, conn, wire});
    } else {
      net_->post(ctx, c.flow, wire);
    }
    complete(ctx, p, i);
    return;
  }
  HostState& hs = hosts_[host];
  c.in_flight = i;
  hs.fluid.add(ctx.now(), parts_[p].local, parts_[c.to].local,
               static_cast<double>(wire) * c.wire_scale, (std::uint64_t{p} << 32) | conn,
               shape_of(p).block_rate, copies);
  hs.fluid_changed = true;
}

// A timer already set for no later than the next completion stays: it fires, finds what is
// complete (perhaps nothing) and sets the next one. Only an earlier completion needs a new one.
void PlanRunner::arm_fluid(Ctx& ctx, std::uint32_t host) {
  HostState& hs = hosts_[host];
  if (hs.fluid.idle()) return;
  const Time next = hs.fluid.next_finish();
  if (hs.fluid_timer >= 0 && hs.fluid_timer <= next) return;
  ++hs.fluid_gen;
  hs.fluid_timer = next;
  net_->host_send(ctx, host, next - ctx.now(), net::AppMsg{kFluidTimer, 0, hs.fluid_gen});
}

// A send inside a host is done when its data is in the peer's buffer. Both ends' step records
// are fetched at once: on large plans each is a cache miss.
void PlanRunner::fluid_done(Ctx& ctx, std::uint32_t p, std::uint32_t conn) {
  Conn& c = conn_of(p, conn);
  const std::uint32_t i = c.in_flight;
  __builtin_prefetch(&step_of(p, i));
  if (c.waiting >= 0) {
    __builtin_prefetch(
        &step_of(static_cast<std::uint32_t>(c.to), static_cast<std::uint32_t>(c.waiting)));
  }
  complete(ctx, p, i);
  ++c.arrived;
  try_receive(ctx, c);
}

void PlanRunner::try_receive(Ctx& ctx, Conn& c) {
  if (c.waiting < 0) return;
  const auto i = static_cast<std::uint32_t>(c.waiting);
  const auto p = static_cast<std::uint32_t>(c.to);
  if (c.arrived <= step_of(p, i).seq) return;
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

void PlanRunner::unblock(HostState& hs, Conn& c) {
  if (c.blocked < 0) return;
  hs.work.push_back({static_cast<std::uint32_t>(c.from), static_cast<std::uint32_t>(c.blocked)});
  c.blocked = -1;
}

void PlanRunner::complete(Ctx& ctx, std::uint32_t p, std::uint32_t i) {
  Participant& part = parts_[p];
  ++part.done;
  part.last = ctx.now();
  HostState& hs = hosts_[part.host];
  LiveSteps& live = hs.live[part.live];
  const StepState& s = live.steps[i];
  const auto release = [&](std::uint32_t j) {
    if (--live.steps[j].pending == 0) hs.work.push_back({p, j});
  };
  if (s.next1 & kSpill) {
    for (std::uint32_t k = s.next0; k < (s.next1 & ~kSpill); ++k) release(live.next[k]);
  } else {
    if (s.next0 != kNoNext) release(s.next0);
    if (s.next1 != kNoNext) release(s.next1);
  }
  if (part.done < part.total) return;
  // Nothing of it is read again: a receive or send it waited on completed it last.
  hs.free_live.push_back(part.live);
  part.live = kNotLive;
  finished(part);
  if (done_) done_(owner_, ctx, part.instance, part.index);
}

// A participant completed all of its steps. A host-local instance's connections go once every
// participant has, at the end of the host's event (a caller may still hold one).
void PlanRunner::finished(const Participant& part) {
  Instance& inst = instances_[part.instance];
  if (inst.local && --inst.left == 0) hosts_[part.host].release.push_back(part.instance);
}

void PlanRunner::take_owners(const core::Ranks& ranks, const net::Network& network) {
  ranks.take_owners(parts_, [&](std::size_t i) {
    return network.ran_here(network.host_node(static_cast<std::uint32_t>(parts_[i].host)));
  });
}

PlanRunner::InstanceResult PlanRunner::result(std::uint32_t instance) const {
  const Instance& inst = instances_[instance];
  InstanceResult r;
  for (std::uint32_t q = inst.part_base; q < inst.part_base + inst.parts; ++q) {
    const Participant& part = parts_[q];
    if ((!part.started || part.done != part.total) && r.complete) {
      r.complete = false;
      r.stalled = q - inst.part_base;
      r.stalled_done = part.done;
      r.stalled_total = part.total;
    }
    r.end = std::max(r.end, part.last);
    r.steps += part.done;
  }
  return r;
}

}  // namespace fabricsim::workload
