#pragma once
// Runs collective plans (collectives/plan.hpp) from the hosts' agents, as NCCL's kernels and
// proxies do: every participant steps through its list. Steps inside a host move over the fluid
// NVLink model (nvlink_fluid.hpp), which all plans running on that host share; steps between
// hosts are messages on one RDMA queue pair per connection (sender, receiver, channel) through
// the NIC of the channel's rail, paced by the network's congestion control. A step starts when
// its dependencies are done; a send also needs a free slot in the receiver's FIFO
// (Plan::credits), and the slot's release travels back to the sender as a message with the
// path's one-way latency. A channel's thread block moves data no faster than the protocol
// allows it (Plan::channel_gbps).
//
// A plan is added once as a shape and run as any number of instances, each on its own GPUs; the
// instances of one communicator share its queue pairs, as calls on one NCCL communicator do. A
// training iteration runs every communication of every rank this way on one network. A
// participant's steps are materialised only when it starts and freed when it completes; so are
// the connections of an instance inside one host.
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "collectives/call.hpp"
#include "collectives/plan.hpp"
#include "net/network.hpp"
#include "net/topology/topology.hpp"
#include "workload/collective_exec.hpp"
#include "workload/nvlink_fluid.hpp"

namespace fabricsim::workload {

class PlanRunner {
 public:
  using Ctx = core::Context<net::Network>;
  // A participant completed its steps: from the events of its host.
  using DoneFn = void (*)(void* owner, Ctx& ctx, std::uint32_t instance, std::uint32_t participant);
  // AppMsg::a values from here on are the owner's: on_message() ignores them.
  static constexpr std::uint32_t kFirstOwnerMsg = 16;

  // `hw`: the hosts' CPU and network transport, which set what a step between hosts takes.
  // Throws std::invalid_argument for efficiencies outside (0, 1] or a host with GPUs and no GPU
  // link rate.
  PlanRunner(const net::Topology& topo, const ExecParams& params, const collectives::Hardware& hw);

  // Keeps the plan's steps for the instances to materialise. `ranks`: where the plan was made
  // for (its NVSwitch agents sit with these GPUs).
  std::uint32_t add_shape(collectives::Plan plan, const std::vector<collectives::RankInfo>& ranks);
  // An instance of `shape` whose GPU participant r sits at ranks[r]; its NVSwitch agents sit on
  // the hosts that hold the same members as the shape's. Its connections between hosts are
  // network flows (take_flows): instances of one `communicator` share them, connection by
  // connection, in the order they are added, which must be the order every member runs them
  // in (as calls on one NCCL communicator, issued on one stream). kOwnCommunicator: its own.
  // `tag`: its flows' FlowSpec::tag (whose traffic it is). Throws std::invalid_argument when it
  // does not fit the topology.
  static constexpr std::uint64_t kOwnCommunicator = ~std::uint64_t{0};
  // Room for instances of these shapes, to be added next (a million of them in a large DAG).
  void reserve(const std::vector<std::uint32_t>& instance_shapes);
  std::uint32_t add_instance(std::uint32_t shape, const std::vector<collectives::RankInfo>& ranks,
                             std::uint64_t communicator = kOwnCommunicator, std::uint16_t tag = 0);

  // Before the run, once: the queue pairs, and the host-to-host channels their slot releases
  // use.
  std::vector<net::FlowSpec> take_flows();
  void add_channels(net::Network& network) const;
  // Also builds the starting step states and connections inside a host of the shapes run more
  // than once, which hosts on every LP then only read: no instance may be added after it.
  void attach(net::Network* network, DoneFn done = nullptr, void* owner = nullptr);
  // After a run over MPI ranks: every participant's progress as the rank of its host's agent
  // left it, so that result() is the whole run's on every rank.
  void take_owners(const core::Ranks& ranks, const net::Network& network);

  // From the events of GPU participant p's host: p, which joined at `at` (now or earlier),
  // starts its steps after the plan's base latency; the instance's NVSwitch agents on that host
  // start with the first of them. The caller then runs what became ready with flush() before its
  // event ends.
  void start(Ctx& ctx, std::uint32_t instance, std::uint32_t p, core::Time at);
  core::Time base_latency(std::uint32_t instance) const {
    return shapes_[instances_[instance].shape].base_latency;
  }
  void flush(Ctx& ctx, std::uint32_t host) { drain(ctx, host); }
  // Where GPU participant p of an instance sits.
  int host_of(std::uint32_t instance, std::uint32_t p) const {
    return parts_[instances_[instance].part_base + p].host;
  }
  void on_message(Ctx& ctx, std::uint32_t host, const net::AppMsg& m);
  void on_delivered(Ctx& ctx, std::uint32_t host, std::uint32_t flow, std::uint32_t messages);

  // After the run.
  struct InstanceResult {
    core::Time end = 0;  // the last step's completion
    std::uint64_t steps = 0;
    bool complete = true;  // every participant started and completed every step
    std::uint32_t stalled = 0, stalled_done = 0, stalled_total = 0;  // the first that did not
  };
  InstanceResult result(std::uint32_t instance) const;
  // Plan steps this process holds (all of them but over MPI ranks; collectives::Plan::held).
  std::uint64_t held_steps() const;
  std::uint64_t net_bytes() const { return net_bytes_; }
  std::uint64_t nvlink_bytes() const { return nvlink_bytes_; }
  std::uint32_t queue_pairs() const { return static_cast<std::uint32_t>(flow_conns_.size()); }

 private:
  static constexpr std::uint32_t kNoNext = 0x7fffffff;
  static constexpr std::uint32_t kSpill = 0x80000000;
  // What the runner reads and writes of a step while it runs, in one record: steps are read
  // all over the place (every rank and channel advances at once, so most reads miss the cache),
  // and one 32-byte record instead of three arrays and the plan's 72-byte Step took 7% off S3.
  struct StepState {
    std::uint64_t wire = 0;     // sends: wire bytes (at least 1)
    std::uint32_t pending = 0;  // dependencies not yet done
    // The steps that depend on it: up to two here (kNoNext where there are fewer), more as
    // LiveSteps::next[next0, next1 & ~kSpill) when next1 has kSpill set. Most steps have one
    // or two, and reading them here spares a cache miss per completion on plans of millions
    // of steps.
    std::uint32_t next0 = kNoNext;
    std::uint32_t next1 = kNoNext;
    std::uint32_t conn = 0;  // in conns_, or its local instance's own (conn_of)
    std::int32_t seq = 0;    // position on its connection
    bool send = false;
    bool pays_latency = true;  // sends: the connection's step latency holds it first
    std::uint16_t copies = 1;  // Step::copies
  };
  struct Participant {
    int host = 0;
    int local = kSwitchEnd;  // GPU index in its host; kSwitchEnd for an NVSwitch agent
    int nic = -1;            // GPU ranks: the host's NIC next to it (its rail)
    std::uint32_t instance = 0;
    std::uint32_t index = 0;  // in its instance (and shape)
    std::uint32_t total = 0;  // steps of its list
    std::uint32_t done = 0;
    bool started = false;
    core::Time last = 0;
    core::Time proxy_free = 0;      // when its proxy thread last posted a network send
    std::uint32_t live = kNotLive;  // its step lists in its host's pool, while it runs
  };
  static constexpr std::uint32_t kNotLive = ~std::uint32_t{0};
  // An aggregation node in the network's switches (CollNet): not a GPU, on a host without any.
  bool aggregator(const Participant& q) const {
    return q.local == kSwitchEnd && topo_.hosts[static_cast<std::size_t>(q.host)].gpus == 0;
  }
  struct LiveSteps {               // a running participant's state, reused by the next one
    std::vector<StepState> steps;  // per step of its list
    // The dependents of the steps that have more than two (StepState::next0), step by step: in
    // own_next, or in its shape's Shape::start (which no run changes, so instances share it).
    const std::uint32_t* next = nullptr;
    std::vector<std::uint32_t> own_next;
  };
  struct Conn {
    int from = 0, to = 0;  // participants
    bool net = false;
    std::uint32_t flow = 0;  // net: the network flow (queue pair)
    // Net: this instance's messages on the flow are numbers [msg_base, msg_base + msg_count).
    std::uint32_t msg_base = 0, msg_count = 0;
    int credits = 1;
    core::Time credit_delay = 0;  // net: a freed slot's trip back to the sender
    // A send holds its connection this long before its data moves (the GPU's part of a step).
    core::Time step_latency = 0;
    // Net: then the proxy and the NIC take this long to put it on the wire; successive sends
    // of the connection overlap here (the proxy keeps up to NCCL_STEPS sends in flight).
    core::Time post_delay = 0;
    core::Time post_cost = 0;  // net: the sender's proxy thread's time per post
    double wire_scale = 1.0;   // NVLS: switch transfers run at nvls_efficiency
    // Sender side (its host's events only).
    int freed = 0;
    std::uint64_t held_wire = 0;  // the send held before its launch (ready, launch)
    std::uint32_t held_copies = 1;
    std::uint32_t in_flight = 0;  // inside a host: the send moving now (launch, fluid_done)
    std::int64_t blocked = -1;    // a send waiting for a slot
    // Receiver side.
    int arrived = 0;
    std::int64_t waiting = -1;  // a receive waiting for its data
  };
  struct ShapeConn {  // a connection of a shape: participants and channel
    std::uint32_t from = 0, to = 0;
    int channel = 0;
    int rail = collectives::kNoRail;
    std::vector<std::uint64_t> messages;  // wire bytes of its sends, in order
    // Neither end's steps held here (collectives::Plan::held): its sends' count and bytes only.
    std::uint32_t brief_messages = 0;
    std::uint64_t brief_bytes = 0;
  };
  struct Shape {
    collectives::Plan plan;  // steps kept while instances may still materialise them
    std::vector<ShapeConn> conns;
    std::vector<std::vector<std::uint32_t>> step_conn;  // per participant, per step
    std::vector<int> switch_member;  // per NVSwitch agent: the GPU participant it sits with
    core::Time base_latency = 0;
    bool whole = false;         // collectives/whole_transfers.hpp: a step per connection
    bool latency_once = false;  // whole, not point-to-point: the call's latency in base_latency
    double block_rate = NvlinkFluid::kUnbounded;      // wire bytes per ps inside a host
    double block_net_rate = NvlinkFluid::kUnbounded;  // and to another host
    net::Bps qp_rate = 0;                             // each queue pair's own limit (0: none)
    std::uint32_t instances = 0;
    std::uint64_t message_bytes = 0;  // of all its connections' messages
    std::vector<LiveSteps> start;     // run more than once: per participant, step_states
    // Run more than once inside one host whose GPUs are linked `local_intra`: its connections,
    // the participants numbered within the instance (attach makes them, instances copy them).
    std::vector<Conn> local_conns;
    net::IntraHost local_intra = net::IntraHost::kNvSwitch;
  };
  struct Instance {
    std::uint32_t shape = 0;
    std::uint32_t part_base = 0, parts = 0;
    std::uint32_t conn_base = 0;  // not local: its connections in conns_
    // Every participant on one host: its connections live in local_conns_ while it runs, and
    // `left` (participants not complete) is that host's to count.
    bool local = false;
    std::uint32_t left = 0;
  };
  struct HostState {
    HostState(int gpus, double cap) : fluid(gpus, cap) {}
    NvlinkFluid fluid;
    std::uint64_t fluid_gen = 0;
    core::Time fluid_timer = -1;  // when the live kFluidTimer fires (-1: none)
    bool fluid_changed = false;   // transfers started or ended in the current event
    std::vector<std::pair<std::uint32_t, std::uint32_t>> work;  // (participant, step) now ready
    std::vector<std::uint64_t> finished;
    std::vector<std::uint32_t> release;  // local instances whose connections can go
    // Step lists of its running participants (millions run over an iteration, a few at once).
    std::vector<LiveSteps> live;
    std::vector<std::uint32_t> free_live;
  };
  LiveSteps& live_of(std::uint32_t p) {
    const Participant& part = parts_[p];
    return hosts_[part.host].live[part.live];
  }
  StepState& step_of(std::uint32_t p, std::uint32_t i) { return live_of(p).steps[i]; }
  void step_states(const Shape& shape, std::uint32_t index, LiveSteps& out) const;

  Conn new_conn(const Shape& shape, const ShapeConn& sc, std::uint32_t from, std::uint32_t to,
                std::uint64_t communicator, std::uint16_t tag = 0);
  void net_step_latency(const Shape& shape, Conn& c, double gpu_us) const;
  std::uint32_t nic_of(int host, int rail) const;
  void begin(Ctx& ctx, std::uint32_t p);
  void drain(Ctx& ctx, std::uint32_t host);
  void ready(Ctx& ctx, std::uint32_t p, std::uint32_t i);
  void launch(Ctx& ctx, std::uint32_t host, std::uint32_t p, std::uint32_t i, std::uint32_t conn,
              std::uint64_t wire, std::uint32_t copies);
  void arm_fluid(Ctx& ctx, std::uint32_t host);
  void fluid_done(Ctx& ctx, std::uint32_t p, std::uint32_t conn);
  void try_receive(Ctx& ctx, Conn& c);
  void unblock(HostState& hs, Conn& c);
  void complete(Ctx& ctx, std::uint32_t p, std::uint32_t i);
  void finished(const Participant& part);
  // Step connection `conn` of participant p (see StepState::conn).
  Conn& conn_of(std::uint32_t p, std::uint32_t conn) {
    const std::uint32_t inst = parts_[p].instance;
    return instances_[inst].local ? local_conns_[inst][conn] : conns_[conn];
  }
  const Shape& shape_of(std::uint32_t p) const {
    return shapes_[instances_[parts_[p].instance].shape];
  }

  const net::Topology& topo_;
  ExecParams params_;
  double net_overhead_us_;
  collectives::Transport transport_;
  net::Network* net_ = nullptr;
  DoneFn done_ = nullptr;
  void* owner_ = nullptr;
  std::vector<Shape> shapes_;
  std::vector<Instance> instances_;
  std::vector<HostState> hosts_;
  std::vector<Participant> parts_;
  std::vector<Conn> conns_;
  std::vector<std::unique_ptr<Conn[]>> local_conns_;  // per instance: while a local one runs
  std::vector<net::FlowSpec> flows_;
  // A queue pair: communicator, its NICs, its participants, channel and rate limit.
  using FlowKey = std::tuple<std::uint64_t, std::uint32_t, std::uint32_t, std::uint32_t,
                             std::uint32_t, int, net::Bps>;
  std::map<FlowKey, std::uint32_t> flow_of_;            // until take_flows()
  std::vector<std::vector<std::uint32_t>> flow_conns_;  // per flow: its conns, in order
  std::vector<std::uint32_t> flow_cursor_;              // per flow: the conn receiving now
  std::vector<std::uint32_t> nic_index_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, core::Time> host_pairs_;
  std::map<core::NodeId, std::vector<core::Time>> delays_;  // by source NIC node
  std::uint64_t net_bytes_ = 0, nvlink_bytes_ = 0;
};

}  // namespace fabricsim::workload
