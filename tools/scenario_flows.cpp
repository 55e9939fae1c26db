// `workload.flows`: flow patterns on the built cluster's NICs (net/flows.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "net/flows.hpp"
#include "tools/scenario_parts.hpp"

namespace fabricsim::tools {
namespace {

// Keeps an all_to_all on a large cluster from allocating gigabytes before anything runs.
constexpr std::uint64_t kMaxFlows = 1u << 26;

std::uint32_t nic_index(const Section& s, const char* key, std::uint32_t nics) {
  const std::uint64_t v =
      s.uint_in(key, std::nullopt, 0, std::numeric_limits<std::uint32_t>::max());
  if (v >= nics) {
    s.fail_key(key,
               fmt::format("is NIC {} but the cluster has {} NICs (0 to {})", v, nics, nics - 1));
  }
  return static_cast<std::uint32_t>(v);
}

// `sizes`: a name of scenarios/workloads/flow_sizes/ (in the working folder or this tree) or a
// CSV file of `bytes,cumulative_percent` rows ('#' lines are comments), relative to the scenario.
net::FlowSizeCdf read_sizes(const Section& s) {
  namespace fs = std::filesystem;
  const std::string name = s.text("sizes");
  std::vector<fs::path> candidates;
  if (name.find('/') != std::string::npos || name.ends_with(".csv")) {
    const fs::path p(name);
    if (p.is_absolute()) {
      candidates.push_back(p);
    } else {
      candidates.push_back(fs::path(s.context().file).parent_path() / p);
      candidates.push_back(p);
    }
  } else {
    for (const fs::path& dir :
         {fs::path("scenarios/workloads/flow_sizes"),
          fs::path(FABRICSIM_SOURCE_DIR) / "scenarios/workloads/flow_sizes"}) {
      candidates.push_back(dir / (name + ".csv"));
    }
  }
  if (const auto found =
          first_input_file(s, "sizes", candidates, "flow-size distribution", 16u << 20)) {
    const fs::path& p = *found;
    std::ifstream in(p);
    std::vector<std::pair<double, double>> points;
    std::string line;
    for (int no = 1; std::getline(in, line); ++no) {
      if (line.empty() || line[0] == '#' || line.rfind("bytes", 0) == 0) continue;
      std::istringstream row(line);
      double bytes = 0, percent = 0;
      char comma = 0;
      if (!(row >> bytes >> comma >> percent) || comma != ',') {
        s.fail_key("sizes", fmt::format("{}:{}: expected 'bytes,cumulative_percent', got '{}'",
                                        p.string(), no, line));
      }
      points.emplace_back(bytes, percent / 100);
    }
    try {
      return net::FlowSizeCdf(std::move(points));
    } catch (const std::invalid_argument& e) {
      s.fail_key("sizes", fmt::format("{}: {}", p.string(), e.what()));
    }
  }
  s.fail_key("sizes", fmt::format("'{}' is neither a CSV file nor a distribution of "
                                  "scenarios/workloads/flow_sizes/ (websearch, fb_hadoop)",
                                  name));
}

}  // namespace

std::vector<net::FlowSpec> read_flows(const Section& s, const net::Topology& topo,
                                      std::uint64_t seed) {
  const auto nics = static_cast<std::uint32_t>(topo.nics.size());
  if (!s.has("pattern")) {
    s.fail_key("pattern", "is required: one of incast, permutation, all_to_all, list, poisson");
  }
  const std::string pattern = s.choice("pattern", std::nullopt);
  // Keys of the other patterns get a pointed message rather than a spelling hint.
  const Section::Foreign foreign = [&](const std::string& key) -> std::string {
    if (key == "receiver" || key == "senders") return "only pattern incast uses it";
    if (key == "list") return "only pattern list uses it";
    if (key == "load" || key == "sizes" || key == "duration" || key == "incasts") {
      return "only pattern poisson uses it";
    }
    if (key == "size" && pattern == "poisson") return "pattern poisson draws them from sizes";
    if (key == "size" || key == "start") return "pattern list gives them per flow";
    return "";
  };
  if (pattern == "list") {
    s.only({"pattern", "list"}, foreign);
    if (!s.has("list")) s.fail_key("list", "is required: e.g. [{src: 0, dst: 1, size: 1MB}]");
    std::vector<net::FlowSpec> out;
    for (const Section& f : s.items("list")) {
      f.only({"src", "dst", "size", "start"});
      net::FlowSpec fs;
      fs.src_nic = nic_index(f, "src", nics);
      fs.dst_nic = nic_index(f, "dst", nics);
      if (fs.src_nic == fs.dst_nic) {
        f.fail_key("dst", fmt::format("is the source NIC {}: a flow needs two NICs", fs.src_nic));
      }
      fs.bytes = f.bytes("size", std::nullopt);
      fs.start = f.time("start");
      out.push_back(fs);
    }
    if (out.empty()) s.fail_key("list", "is empty: list at least one flow");
    return out;
  }

  if (pattern == "poisson") {
    s.only({"pattern", "load", "sizes", "duration", "start", "incasts"}, foreign);
    const double load = s.real("load", std::nullopt);
    if (!s.has("sizes")) s.fail_key("sizes", "is required: websearch, fb_hadoop or a CSV file");
    const net::FlowSizeCdf sizes = read_sizes(s);
    const core::Time start = s.time("start");
    const core::Time duration = s.time("duration", std::nullopt);
    if (nics < 2)
      s.fail_key("pattern", fmt::format("needs at least 2 NICs, the cluster has {}", nics));
    net::IncastMix incasts;
    if (s.has("incasts")) {
      const Section mix = s.sub("incasts");
      mix.only({"senders", "size", "load"});
      incasts.senders =
          static_cast<std::uint32_t>(mix.uint_in("senders", std::nullopt, 1, nics - 1));
      incasts.bytes = mix.bytes("size", std::nullopt);
      incasts.load = mix.real("load", std::nullopt);
    }
    try {
      std::vector<net::FlowSpec> out =
          net::poisson(topo, sizes, load, start, duration, seed, kMaxFlows, incasts);
      if (out.empty()) s.fail_key("duration", "is too short for a single flow at this load");
      return out;
    } catch (const std::length_error& e) {
      s.fail_key("duration", e.what());
    }
  }
  if (pattern == "incast") {
    s.only({"pattern", "size", "start", "receiver", "senders"}, foreign);
  } else {
    s.only({"pattern", "size", "start"}, foreign);
  }
  const std::uint64_t size = s.bytes("size", std::nullopt);
  const core::Time start = s.time("start");
  if (nics < 2)
    s.fail_key("pattern", fmt::format("needs at least 2 NICs, the cluster has {}", nics));
  if (pattern == "incast") {
    const std::uint32_t receiver = nic_index(s, "receiver", nics);
    const std::uint64_t senders = s.uint_in("senders", std::nullopt, 1, kMaxFlows);
    if (senders >= nics) {
      s.fail_key("senders", fmt::format("is {} but only {} of the cluster's {} NICs are not the "
                                        "receiver",
                                        senders, nics - 1, nics));
    }
    return net::incast(nics, receiver, static_cast<std::uint32_t>(senders), size, start);
  }
  if (pattern == "permutation") return net::permutation(nics, size, start, seed);
  if (std::uint64_t{nics} * (nics - 1) > kMaxFlows) {
    s.fail_key("pattern", fmt::format("all_to_all on {} NICs is {} flows, more than {}", nics,
                                      std::uint64_t{nics} * (nics - 1), kMaxFlows));
  }
  return net::all_to_all(nics, size, start);
}

}  // namespace fabricsim::tools
