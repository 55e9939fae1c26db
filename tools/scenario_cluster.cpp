// The `cluster` section: which topology builder, with which parameters.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/gpu.hpp"
#include "net/outages.hpp"
#include "net/topology/build.hpp"
#include "net/topology/validate.hpp"
#include "tools/scenario_parts.hpp"

namespace fabricsim::tools {
namespace {

// Generous ceilings that keep a typo (an extra digit or three) from exhausting memory before
// any other check can speak.
constexpr std::uint64_t kMaxNics = 1u << 22;

struct KindKeys {
  std::string_view kind;
  std::vector<std::string_view> keys;  // besides topology, host and nic_link
};

std::vector<KindKeys> kind_keys() {
  return {
      {"single", {"hosts", "sharp"}},
      {"fat_tree", {"leaves", "hosts_per_leaf", "spines", "oversubscription", "uplink", "sharp"}},
      {"fat_tree_3tier", {"k", "edge_agg", "agg_core"}},
      {"rail_optimized",
       {"hosts", "hosts_per_group", "spines", "links_per_spine", "uplink", "sharp"}},
      {"dragonfly",
       {"groups", "routers_per_group", "hosts_per_router", "global_links_per_router", "local",
        "global"}},
      {"torus", {"dims", "hosts_per_switch", "link"}},
      {"mesh", {"dims", "hosts_per_switch", "link"}},
      {"custom", {"switches", "hosts", "links"}},
  };
}

net::LinkParams read_link(const Section& parent, const char* key) {
  if (!parent.has(key)) {
    parent.fail_key(key,
                    fmt::format("is required: add e.g. '{}: {{rate: 100Gbps, delay: 1us}}'", key));
  }
  const Section s = parent.sub(key);
  s.only({"rate", "delay"});
  net::LinkParams l;
  l.rate = s.rate("rate", std::nullopt);
  // Zero-length cables do not exist, and a zero delay between LPs leaves the conservative
  // kernel no lookahead.
  l.delay = s.time("delay", std::nullopt);
  return l;
}

// `custom_gpus`: for a custom topology, whether any listed host has GPUs (each may set its
// own count), which decides whether the intra-host fabric keys are needed.
net::HostParams read_host(const Section& s, std::optional<bool> custom_gpus = std::nullopt) {
  s.only({"gpus", "gpu", "cpu", "nic_path", "transport", "nics", "gpu_link", "gpu_latency", "intra",
          "gpu_to_nic"});
  const net::HostParams def;
  net::HostParams h;
  h.gpus = static_cast<std::uint32_t>(s.uint("gpus", def.gpus));
  h.nics = static_cast<std::uint32_t>(s.uint("nics", def.nics));
  std::optional<compute::GpuSpec> gpu;
  if (s.has("gpu")) {
    h.gpu = s.text("gpu");
    gpu = compute::find_gpu(h.gpu);
    if (!gpu) {
      s.fail_key("gpu", fmt::format("'{}' is not a GPU this version knows: one of {}", h.gpu,
                                    compute::gpu_names()));
    }
  }
  // Only GPUs need the intra-host fabric: with gpus: 0 (a network-only study) it may be left out.
  const bool need = custom_gpus ? *custom_gpus : h.gpus > 0;
  for (const char* key : {"gpu_link", "gpu_latency"}) {
    // A known GPU brings its NVLink bandwidth.
    if (gpu && key == std::string("gpu_link")) continue;
    if (need && !s.has(key)) {
      s.fail_key(
          key,
          fmt::format("is required for hosts with GPUs ({}): add e.g. '{}', or set "
                      "gpus: 0 for a network-only run",
                      custom_gpus ? "a custom host has some" : fmt::format("gpus: {}", h.gpus),
                      key == std::string("gpu_link") ? "gpu_link: 450GBps" : "gpu_latency: 25ns"));
    }
  }
  const std::optional<net::Bps> gpu_default =
      gpu ? std::optional<net::Bps>(static_cast<net::Bps>(gpu->nvlink_gbps * 8e9)) : std::nullopt;
  h.gpu_link_rate = need || s.has("gpu_link") ? s.rate("gpu_link", gpu_default) : 0;
  h.gpu_link_latency =
      need || s.has("gpu_latency") ? s.time("gpu_latency", std::nullopt) : def.gpu_link_latency;
  // The CPU's maker; NCCL tunes by it. Default intel: the DGX H100 and DGX B200 datasheets list
  // two Intel Xeon Platinum CPUs per host (DGX A100 has AMD EPYC 7742: set amd; GH200: arm).
  h.cpu = s.choice("cpu", def.cpu);
  // How a GPU reaches its NIC; NCCL enables LL128 between hosts by it. Default pcie_switch: on
  // HGX A100 / H100 / B200 baseboards each GPU and its NIC share a PCIe switch (NVIDIA DGX
  // H100 user guide, network ports and PCIe topology).
  h.nic_path = s.choice("nic_path", def.nic_path);
  // NCCL's network transport (collectives/transport.hpp has each one's facts). Default ib: NCCL's
  // own verbs transport, which InfiniBand and RoCE NICs run.
  h.transport = s.choice("transport", def.transport);
  h.intra = s.choice("intra") == "pcie" ? net::IntraHost::kPcie : net::IntraHost::kNvSwitch;
  if (s.has("gpu_to_nic")) {
    h.gpu_to_nic = s.uints("gpu_to_nic", 0, h.nics - 1);
    if (h.gpu_to_nic.size() != h.gpus) {
      s.fail_key("gpu_to_nic", fmt::format("has {} entries but the host has {} GPUs",
                                           h.gpu_to_nic.size(), h.gpus));
    }
  }
  return h;
}

std::uint32_t count(const Section& s, const char* key, std::optional<std::uint64_t> def) {
  return static_cast<std::uint32_t>(s.uint(key, def));
}

void check_nics(const Section& c, std::uint64_t hosts, const net::HostParams& h) {
  if (hosts * h.nics > kMaxNics) {
    c.fail(c.node(), fmt::format("describes {} hosts x {} NICs, more than the {} NICs this "
                                 "version supports",
                                 hosts, h.nics, kMaxNics));
  }
}

net::Topology build_custom(const Section& c, const net::HostParams& host) {
  net::CustomParams p;
  for (const Section& s : c.items("switches")) {
    s.only({"name", "tier", "group"});
    net::CustomSwitch sw;
    sw.name = s.text("name");
    sw.tier = static_cast<std::uint8_t>(s.uint("tier", sw.tier));
    sw.group = static_cast<std::uint32_t>(s.uint("group", sw.group));
    p.switches.push_back(std::move(sw));
  }
  for (const Section& s : c.items("hosts")) {
    s.only({"name", "nics", "gpus", "gpu_to_nic"});
    net::CustomHost h;
    h.name = s.text("name");
    h.host = host;
    h.host.gpus = static_cast<std::uint32_t>(s.uint("gpus", host.gpus));
    h.host.nics = static_cast<std::uint32_t>(s.uint("nics", host.nics));
    if (h.host.gpus > 0 && h.host.gpu_link_rate == 0) {
      s.fail_key("gpus", "needs cluster.host.gpu_link and cluster.host.gpu_latency");
    }
    if (s.has("gpu_to_nic")) {
      h.host.gpu_to_nic = s.uints("gpu_to_nic", 0, h.host.nics - 1);
    } else if (h.host.gpus != host.gpus || h.host.nics != host.nics) {
      h.host.gpu_to_nic.clear();  // cluster.host's map was for another shape
    }
    if (!h.host.gpu_to_nic.empty() && h.host.gpu_to_nic.size() != h.host.gpus) {
      s.fail_key("gpu_to_nic", fmt::format("has {} entries but the host has {} GPUs",
                                           h.host.gpu_to_nic.size(), h.host.gpus));
    }
    p.hosts.push_back(std::move(h));
  }
  for (const Section& s : c.items("links")) {
    s.only({"a", "b", "rate", "delay"});
    net::CustomLink l;
    l.a = s.text("a");
    l.b = s.text("b");
    l.link.rate = s.rate("rate", std::nullopt);
    l.link.delay = s.time("delay", std::nullopt);
    p.links.push_back(std::move(l));
  }
  if (p.hosts.empty()) c.fail_key("hosts", "must list at least one host, e.g. [{name: h0}]");
  return net::custom(p);
}

net::Topology build(const Section& c, const std::string& kind) {
  if (kind == "custom") {
    // Hosts that set no count inherit cluster.host.gpus (8 unless given).
    const YAML::Node host_node = c.node()["host"];
    std::uint64_t inherited = net::HostParams{}.gpus;
    if (host_node && host_node.IsMap() && host_node["gpus"]) {
      inherited = host_node["gpus"].as<std::uint64_t>(inherited);
    }
    bool any = false;
    if (const YAML::Node hosts = c.node()["hosts"]; hosts && hosts.IsSequence()) {
      for (const YAML::Node& h : hosts) {
        any = any || (h.IsMap() && h["gpus"] ? h["gpus"].as<std::uint64_t>(1) : inherited) > 0;
      }
    }
    return build_custom(c, read_host(c.sub("host"), any));
  }
  const net::HostParams host = read_host(c.sub("host"));
  const net::LinkParams nic = read_link(c, "nic_link");
  if (kind == "single") {
    net::SingleParams p;
    p.hosts = count(c, "hosts", std::nullopt);
    p.host = host;
    p.nic = nic;
    p.sharp = c.boolean("sharp");
    check_nics(c, p.hosts, host);
    return net::single(p);
  }
  if (kind == "fat_tree") {
    const net::FatTreeParams def;
    net::FatTreeParams p;
    p.leaves = count(c, "leaves", std::nullopt);
    p.hosts_per_leaf = count(c, "hosts_per_leaf", std::nullopt);
    p.spines = count(c, "spines", def.spines);
    p.oversubscription = c.real("oversubscription", def.oversubscription);
    p.host = host;
    p.nic = nic;
    p.uplink = read_link(c, "uplink");
    p.sharp = c.boolean("sharp");
    check_nics(c, std::uint64_t{p.leaves} * p.hosts_per_leaf, host);
    return net::fat_tree(p);
  }
  if (kind == "fat_tree_3tier") {
    net::KaryFatTreeParams p;
    p.k = count(c, "k", std::nullopt);
    if (p.k % 2 != 0) c.fail_key("k", fmt::format("must be even, got {}", p.k));
    p.host = host;
    p.nic = nic;
    p.edge_agg = read_link(c, "edge_agg");
    p.agg_core = read_link(c, "agg_core");
    check_nics(c, std::uint64_t{p.k} * p.k * p.k / 4, host);
    return net::fat_tree_3tier(p);
  }
  if (kind == "rail_optimized") {
    const net::RailParams def;
    net::RailParams p;
    p.hosts = count(c, "hosts", std::nullopt);
    p.hosts_per_group = count(c, "hosts_per_group", std::nullopt);
    p.spines = count(c, "spines", std::nullopt);
    p.links_per_spine = count(c, "links_per_spine", def.links_per_spine);
    p.host = host;
    p.nic = nic;
    p.uplink = read_link(c, "uplink");
    p.sharp = c.boolean("sharp");
    check_nics(c, p.hosts, host);
    return net::rail_optimized(p);
  }
  if (kind == "dragonfly") {
    net::DragonflyParams p;
    p.groups = count(c, "groups", std::nullopt);
    p.routers_per_group = count(c, "routers_per_group", std::nullopt);
    p.hosts_per_router = count(c, "hosts_per_router", std::nullopt);
    p.global_links_per_router = count(c, "global_links_per_router", std::nullopt);
    p.host = host;
    p.nic = nic;
    p.local = read_link(c, "local");
    p.global = read_link(c, "global");
    check_nics(c, std::uint64_t{p.groups} * p.routers_per_group * p.hosts_per_router, host);
    return net::dragonfly(p);
  }
  // torus or mesh
  net::TorusParams p;
  p.wraparound = kind == "torus";
  if (!c.has("dims")) c.fail_key("dims", "is required: add e.g. 'dims: [4, 4]'");
  p.dims = c.uints("dims", 1, 1024);
  if (p.dims.size() != 2 && p.dims.size() != 3) {
    c.fail_key("dims", fmt::format("must have 2 or 3 sizes, got {}", p.dims.size()));
  }
  p.hosts_per_switch = count(c, "hosts_per_switch", std::nullopt);
  p.host = host;
  p.nic = nic;
  p.link = read_link(c, "link");
  std::uint64_t switches = 1;
  for (std::uint32_t d : p.dims) switches *= d;
  check_nics(c, switches * p.hosts_per_switch, host);
  return net::torus(p);
}

// The links between the nodes named by `s`'s keys "a" and "b" (parallel links are all of them).
std::vector<net::LinkId> links_between(const Section& s, const net::Topology& topo) {
  const auto node = [&](const char* key) {
    const std::string name = s.text(key);
    for (net::NodeId v = 0; v < topo.nodes.size(); ++v) {
      if (topo.nodes[v].name == name) return v;
    }
    s.fail_key(key, fmt::format("no node '{}' in this cluster ('fabricsim topo SCENARIO --dot "
                                "FILE' writes every node's name)",
                                name));
  };
  const net::NodeId a = node("a"), b = node("b");
  std::vector<net::LinkId> found;
  for (net::LinkId i = 0; i < topo.links.size(); ++i) {
    const net::Link& l = topo.links[i];
    if ((l.a == a && l.b == b) || (l.a == b && l.b == a)) found.push_back(i);
  }
  if (found.empty()) {
    s.fail_key("b", fmt::format("no link joins {} and {}", topo.nodes[a].name, topo.nodes[b].name));
  }
  return found;
}

// `degraded_links`: links that run below their built rate (a flapping optic, a port that
// negotiated a lower speed): every link between nodes a and b, both directions, at `rate`.
void degrade_links(const Section& c, net::Topology& topo) {
  for (const Section& s : c.items("degraded_links")) {
    s.only({"a", "b", "rate"});
    const std::vector<net::LinkId> links = links_between(s, topo);
    const net::Bps rate = s.rate("rate", std::nullopt);
    for (const net::LinkId i : links) {
      net::Link& l = topo.links[i];
      if (rate > l.rate) {
        s.fail_key("rate", fmt::format("is above the link's own rate ({} bps)", l.rate));
      }
      l.rate = rate;
    }
  }
}

}  // namespace

net::Topology read_cluster(const Section& c) {
  if (!c.present()) c.fail(c.node(), "is required for a flows workload");
  const std::vector<KindKeys> table = kind_keys();
  if (!c.has("topology")) {
    c.fail_key("topology",
               "is required: one of single, fat_tree, fat_tree_3tier, "
               "rail_optimized, dragonfly, torus, mesh, custom");
  }
  const std::string kind = c.choice("topology", std::nullopt);
  c.context().topology = kind == "mesh" ? "torus" : kind;
  const auto mine =
      std::find_if(table.begin(), table.end(), [&](const KindKeys& k) { return k.kind == kind; });
  std::vector<std::string_view> allowed{"topology", "host", "degraded_links", "failed_links"};
  if (kind != "custom") allowed.push_back("nic_link");
  allowed.insert(allowed.end(), mine->keys.begin(), mine->keys.end());
  c.only(allowed, [&](const std::string& key) -> std::string {
    std::string owners;
    for (const KindKeys& k : table) {
      if (std::find(k.keys.begin(), k.keys.end(), key) != k.keys.end()) {
        owners += std::string(owners.empty() ? "" : ", ") + std::string(k.kind);
      }
    }
    if (key == "nic_link") return "topology custom gives every link its rate and delay in 'links'";
    if (owners.empty()) return "";
    return fmt::format("topology {} does not use it (it belongs to {})", kind, owners);
  });
  net::Topology topo;
  try {
    topo = build(c, kind);
    net::validate(topo);
  } catch (const net::TopologyError& e) {
    c.fail_key("topology", fmt::format("cannot be built: {}", e.what()));
  } catch (const std::length_error& e) {
    c.fail_key("topology", fmt::format("is too large for this machine: {}", e.what()));
  }
  degrade_links(c, topo);
  return topo;
}

// `failed_links`: every link between nodes a and b goes down at `at` and comes back at `until`
// (never, without it); net/outages.hpp says what that does.
std::vector<net::LinkOutage> read_failed_links(const Section& c, const net::Topology& topo) {
  std::vector<net::LinkOutage> out;
  for (const Section& s : c.items("failed_links")) {
    s.only({"a", "b", "at", "until"});
    const std::vector<net::LinkId> links = links_between(s, topo);
    const core::Time at = s.time("at", std::nullopt);
    const core::Time until = s.has("until") ? s.time("until", std::nullopt) : core::kTimeMax;
    if (until <= at) {
      s.fail_key("until", fmt::format("({:.3f} us) must be after 'at' ({:.3f} us)",
                                      double(until) * 1e-6, double(at) * 1e-6));
    }
    for (const net::LinkId l : links) out.push_back({l, at, until});
  }
  if (out.empty()) return out;  // nothing to check: no routing tables to build here
  try {
    net::Outages(topo, out);  // NIC links down for good, a fabric cut in two
  } catch (const std::invalid_argument& e) {
    c.fail_key("failed_links", e.what());
  }
  return out;
}

}  // namespace fabricsim::tools
