// The `collectives` section: which collective, which sizes, and what NCCL's tuning model and
// the executor know about the cluster's GPUs.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "collectives/protocol.hpp"
#include "collectives/transport.hpp"
#include "compute/gpu.hpp"
#include "tools/scenario_parts.hpp"

namespace fabricsim::tools {
namespace {

struct Dtype {
  std::string_view name;
  std::uint32_t size;
};
// nccl-tests' type names (src/common.cu test_typenames) and their sizes.
constexpr Dtype kDtypes[] = {{"int8", 1},   {"uint8", 1},    {"int32", 4},  {"uint32", 4},
                             {"int64", 8},  {"uint64", 8},   {"half", 2},   {"float", 4},
                             {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};

collectives::Op parse_op(const std::string& s) {
  using collectives::Op;
  if (s == "allreduce") return Op::AllReduce;
  if (s == "allgather") return Op::AllGather;
  if (s == "reducescatter") return Op::ReduceScatter;
  if (s == "broadcast") return Op::Broadcast;
  if (s == "reduce") return Op::Reduce;
  if (s == "alltoall") return Op::AllToAll;
  return Op::SendRecv;
}

// "2.Y" or "2.Y.Z" as NCCL_VERSION_CODE (2 x 10000 + Y x 100 + Z); a package release or build
// suffix as NCCL prints them ("2.23.4-1", "2.23.4+cuda12.6") is ignored. "2.Y" is any 2.Y
// release, so it takes the highest (the rules change at a minor release's first patch, never
// 0: 2.18 once read as 2.18.0, before 2.18.1's rule). Versions after the tuning ported here
// are refused: their rules are not known to this version.
int nccl_version(const Section& c) {
  const std::string given = c.text("nccl_version");
  const std::string v = given.substr(0, given.find_first_of("-+"));
  unsigned minor = 0, patch = 0;
  int used = 0;
  const bool two = std::sscanf(v.c_str(), "2.%u%n", &minor, &used) == 1 &&
                   static_cast<std::size_t>(used) == v.size();
  const bool three = !two && std::sscanf(v.c_str(), "2.%u.%u%n", &minor, &patch, &used) == 2 &&
                     static_cast<std::size_t>(used) == v.size();
  int code = 20000 + static_cast<int>(std::min(minor, 999u)) * 100 +
             static_cast<int>(two ? 99u : std::min(patch, 99u));
  if (two && code / 100 == collectives::kNcclVersionModelled / 100) {
    code = collectives::kNcclVersionModelled;
  }
  if (!(two || three) || v.empty() || v.find(' ') != std::string::npos || patch > 99 ||
      given.size() == v.size() + 1) {
    c.fail_key("nccl_version",
               fmt::format("'{}' is not an NCCL 2.x version such as 2.23.4", given));
  }
  if (code > collectives::kNcclVersionModelled) {
    c.fail_key("nccl_version",
               fmt::format("{} is newer than NCCL 2.30.7, the newest whose tuning this version "
                           "models; leave the key out to use 2.30.7",
                           given));
  }
  return code;
}

}  // namespace

int default_max_channels(compute::GpuArch a) {
  // The channels NCCL's kernels run on one node: its search rings, doubled by connect
  // (ncclTopoPostset, nChannels * 2; collectives/graph.hpp one_node_ring_graph). Any number of
  // GPUs on an NVSwitch: A100 12 rings -> 24 (its logs: "Channel 23/24", nccl-tests issue
  // #100), H100 / H200 12 -> 24 (NVIDIA/nccl#1367's log), B200 16 -> 32. Across hosts the
  // network graph sets them instead (graph.hpp net_graph). Volta's hybrid cube mesh is not
  // an NVSwitch: 16, unverified.
  switch (a) {
    case compute::GpuArch::Volta:
      return 16;
    case compute::GpuArch::Blackwell:
      return 32;
    default:
      return 24;
  }
}

collectives::Arch arch_of(compute::GpuArch a) {
  switch (a) {
    case compute::GpuArch::Volta:
      return collectives::Arch::Volta;
    case compute::GpuArch::Ampere:
      return collectives::Arch::Ampere;
    case compute::GpuArch::Hopper:
      return collectives::Arch::Hopper;
    case compute::GpuArch::Blackwell:
      return collectives::Arch::Blackwell;
  }
  return collectives::Arch::Hopper;
}

compute::GpuSpec cluster_gpu(const Section& c, const net::Topology& topo) {
  const net::Host& host = topo.hosts.front();
  for (std::uint32_t k = 0; k < topo.gpu_hosts(); ++k) {
    const net::Host& h = topo.hosts[k];
    if (h.gpus == 0) {
      c.fail(c.node(), fmt::format("needs GPUs, but host {} has none (cluster.host.gpus)", h.name));
    }
  }
  if (host.gpu.empty()) {
    c.fail(c.node(), fmt::format("needs the GPU model: add cluster.host.gpu (one of {})",
                                 compute::gpu_names()));
  }
  return *compute::find_gpu(host.gpu);
}

void read_comm_model(const Section& c, const net::Topology& topo, const compute::GpuSpec& gpu,
                     collectives::Hardware& hw, workload::ExecParams& exec) {
  const net::Host& host = topo.hosts.front();
  hw.arch = arch_of(gpu.arch);
  hw.cpu = host.cpu == "amd"   ? collectives::Cpu::Amd
           : host.cpu == "arm" ? collectives::Cpu::Arm
                               : collectives::Cpu::Intel;
  hw.nic_path = host.nic_path == "cpu"   ? collectives::NicPath::Cpu
                : host.nic_path == "c2c" ? collectives::NicPath::C2c
                                         : collectives::NicPath::PcieSwitch;
  const std::optional<collectives::Transport> transport =
      collectives::find_transport(host.transport);
  if (!transport) {
    c.fail(c.node(), fmt::format("cluster.host.transport '{}' is not one of {}", host.transport,
                                 collectives::transport_names()));
  }
  hw.transport = *transport;
  if (c.has("nccl_version")) hw.nccl_version = nccl_version(c);
  hw.buffsize = c.bytes("buffsize", hw.buffsize);
  hw.intra = host.intra == net::IntraHost::kPcie ? collectives::IntraLink::PCI
                                                 : collectives::IntraLink::NVLink;
  hw.max_channels = static_cast<int>(c.uint("max_channels", default_max_channels(gpu.arch)));
  exec.nvlink_efficiency = c.real("nvlink_efficiency", compute::nvlink_efficiency(gpu.arch));
  exec.nvls_efficiency = c.real("nvls_efficiency", collectives::nvls_efficiency(hw.arch));
  exec.latencies = c.boolean("latencies");
  if (c.has("step_latency")) exec.fixed_step_latency = c.time("step_latency", std::nullopt);
  exec.fixed_latency_per_ring_step = c.choice("step_latency_per") == "ring_step";
  if (exec.fixed_latency_per_ring_step && !c.has("step_latency")) {
    c.fail_key("step_latency_per", "applies to a fixed step_latency; set step_latency too");
  }
  exec.own_nics = c.choice("nics") == "own";
  exec.host_delay = c.time("host_delay", exec.host_delay);
  // Per-channel bandwidths as NCCL's graph reports them: the usable total over the channels.
  const double nvlink_gbps = static_cast<double>(host.gpu_link_rate) / 8e9 * exec.nvlink_efficiency;
  hw.bw_intra_gbps = nvlink_gbps / hw.max_channels;
  const double nic_gbps = static_cast<double>(topo.link_at(host.nics.front(), 0).rate) / 8e9;
  hw.bw_inter_gbps = nic_gbps * static_cast<double>(host.nics.size()) / hw.max_channels;
  // Communicators across hosts take their channels from NCCL's network graph (graph.hpp),
  // unless the scenario fixes max_channels.
  if (!c.has("max_channels")) {
    hw.nics_per_host = static_cast<int>(host.nics.size());
    hw.nic_gbps = nic_gbps;
    hw.pci_gbps = compute::pcie_gbps(gpu.arch);
  }
  const std::string nvls = c.choice("nvls");
  const bool can_nvls = gpu.nvls && host.intra == net::IntraHost::kNvSwitch;
  if (nvls == "on" && !can_nvls) {
    c.fail_key("nvls",
               fmt::format("needs a GPU on an NVSwitch with NVLink SHARP; {} {} has none", gpu.name,
                           host.intra == net::IntraHost::kPcie ? "over PCIe" : "here"));
  }
  hw.nvls = nvls == "on" || (nvls == "auto" && can_nvls);
  hw.collnet = c.boolean("collnet");
  if (hw.collnet && topo.aggregators == 0) {
    c.fail_key("collnet", "needs switches that reduce: set cluster.sharp: true");
  }
}

std::vector<std::string_view> comm_model_keys(std::initializer_list<std::string_view> more) {
  std::vector<std::string_view> keys(more);
  keys.insert(keys.end(), {"max_channels", "nvls", "collnet", "nvlink_efficiency",
                           "nvls_efficiency", "latencies", "step_latency", "step_latency_per",
                           "nics", "host_delay", "nccl_version", "buffsize"});
  return keys;
}

CollectiveSection read_collectives(const Section& c, const net::Topology& topo) {
  c.only(comm_model_keys({"op", "algo", "proto", "channels", "root", "peer", "min_bytes",
                          "max_bytes", "step_factor", "step_bytes", "dtype", "redop", "groups",
                          "gpus_per_thread", "launch_cost"}));
  CollectiveSection s;
  const net::Host& host = topo.hosts.front();
  const compute::GpuSpec gpu = cluster_gpu(c, topo);
  std::uint32_t gpus = 0;
  for (const net::Host& h : topo.hosts) gpus += h.gpus;

  using collectives::Algo;
  using collectives::Proto;
  s.op = parse_op(c.choice("op"));
  const std::string algo = c.choice("algo");
  s.algo = algo == "ring"            ? Algo::Ring
           : algo == "tree"          ? Algo::Tree
           : algo == "nvls"          ? Algo::Nvls
           : algo == "nvlstree"      ? Algo::NvlsTree
           : algo == "collnetchain"  ? Algo::CollNetChain
           : algo == "collnetdirect" ? Algo::CollNetDirect
           : algo == "pat"           ? Algo::Pat
           : algo == "p2p"           ? Algo::P2P
                                     : Algo::Auto;
  const std::string proto = c.choice("proto");
  s.proto = proto == "ll"       ? Proto::LL
            : proto == "ll128"  ? Proto::LL128
            : proto == "simple" ? Proto::Simple
                                : Proto::Auto;
  s.channels = static_cast<int>(c.uint("channels"));
  s.per_rail = c.choice("groups") == "rail";
  if (s.per_rail) {
    for (std::uint32_t k = 0; k < topo.gpu_hosts(); ++k) {
      const net::Host& h = topo.hosts[k];
      if (h.gpus != host.gpus) {
        c.fail_key("groups", fmt::format("rail needs the same GPU count on every host; {} has "
                                         "{}, {} has {}",
                                         host.name, host.gpus, h.name, h.gpus));
      }
    }
  }
  // Ranks of one collective: every GPU, or one per host in a rail group.
  const std::uint32_t ranks = s.per_rail ? topo.gpu_hosts() : gpus;
  s.root = static_cast<int>(c.uint_in("root", 0, 0, ranks - 1));
  // Unset: nccl-tests' sendrecv, every rank sending to the next.
  s.peer = c.has("peer") ? static_cast<int>(c.uint_in("peer", std::nullopt, 0, ranks - 1))
                         : collectives::Call::kShift;
  if (s.op == collectives::Op::SendRecv && s.peer == s.root) {
    c.fail_key("peer", fmt::format("is the sender (root {}): send/recv needs two ranks", s.root));
  }
  if (s.op == collectives::Op::SendRecv && ranks < 2) {
    c.fail_key("op", "sendrecv needs two ranks");
  }
  s.min_bytes = c.bytes("min_bytes", s.min_bytes);
  s.max_bytes = c.bytes("max_bytes", s.max_bytes);
  if (s.max_bytes < s.min_bytes) {
    c.fail_key("max_bytes",
               fmt::format("({} B) is below min_bytes ({} B)", s.max_bytes, s.min_bytes));
  }
  s.step_factor = c.uint("step_factor", s.step_factor);
  s.step_bytes = c.bytes("step_bytes", s.step_bytes);
  if (s.step_factor > 1 && c.has("step_bytes")) {
    c.fail_key("step_bytes", fmt::format("steps a linear sweep, but step_factor is {}: set "
                                         "step_factor: 1 (nccl-tests -f 1)",
                                         s.step_factor));
  }
  if (s.step_factor == 1) {
    // Each size is a run of its own: a linear sweep of millions of sizes is a mistake.
    constexpr std::uint64_t kMaxSizes = 10'000;
    const std::uint64_t sizes = (s.max_bytes - s.min_bytes) / s.step_bytes + 1;
    if (sizes > kMaxSizes) {
      c.fail_key(c.has("step_bytes") ? "step_bytes" : "step_factor",
                 fmt::format("makes a linear sweep of {} sizes from min_bytes to max_bytes in "
                             "steps of {} B; at most {}",
                             sizes, s.step_bytes, kMaxSizes));
    }
  }
  s.dtype = c.choice("dtype");
  for (const Dtype& d : kDtypes) {
    if (d.name == s.dtype) s.type_size = d.size;
  }
  s.redop = c.choice("redop");
  s.gpus_per_thread = static_cast<int>(c.uint_in("gpus_per_thread", 1, 1, host.gpus));
  for (std::uint32_t k = 0; k < topo.gpu_hosts(); ++k) {
    const net::Host& h = topo.hosts[k];
    if (h.gpus % static_cast<std::uint32_t>(s.gpus_per_thread) != 0) {
      c.fail_key("gpus_per_thread",
                 fmt::format("({}) must divide every host's GPUs: {} has {} (nccl-tests runs "
                             "processes x threads x -g GPUs)",
                             s.gpus_per_thread, h.name, h.gpus));
    }
  }
  s.launch_cost = c.time("launch_cost");

  read_comm_model(c, topo, gpu, s.hw, s.exec);
  if ((s.algo == Algo::CollNetChain || s.algo == Algo::CollNetDirect) && !s.hw.collnet) {
    c.fail_key("algo", fmt::format("{} reduces in the switches: it needs collectives.collnet: "
                                   "true (NCCL_COLLNET_ENABLE) on a cluster with sharp: true",
                                   algo));
  }
  if (s.algo == Algo::Pat) {
    if (s.op != collectives::Op::AllGather && s.op != collectives::Op::ReduceScatter) {
      c.fail_key("algo", "pat runs allgather and reducescatter only");
    }
    if (s.op == collectives::Op::ReduceScatter && s.redop == "avg") {
      c.fail_key("algo", "NCCL's pat reducescatter does not take redop: avg");
    }
    if (s.hw.nccl_version < 22300) {
      c.fail_key("algo", fmt::format("pat needs NCCL 2.23 or later; nccl_version is {}.{}.{}",
                                     s.hw.nccl_version / 10000, s.hw.nccl_version / 100 % 100,
                                     s.hw.nccl_version % 100));
    }
    if (!s.per_rail && host.gpus > 1) {
      c.fail_key("algo",
                 fmt::format("pat needs one GPU per host ({} has {}): cluster.host.gpus: 1, "
                             "or groups: rail",
                             host.name, host.gpus));
    }
  }
  if (s.channels > s.hw.max_channels) {
    c.fail_key("channels",
               fmt::format("({}) exceeds max_channels ({})", s.channels, s.hw.max_channels));
  }
  return s;
}

}  // namespace fabricsim::tools
