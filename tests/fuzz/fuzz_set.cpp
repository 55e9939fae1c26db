// libFuzzer harness: one --set override, as a user types it, applied to a valid scenario. Any
// override is either applied or refused with a ScenarioError naming the --set.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/scenario.hpp"

namespace {

// A small scenario with every section a --set commonly reaches (cluster, network, flows).
constexpr const char* kBase = R"(simulation: {seed: 1, threads: 1}
cluster:
  topology: fat_tree
  leaves: 2
  hosts_per_leaf: 2
  spines: 2
  host: {gpus: 0, nics: 1}
  nic_link: {rate: 100Gbps, delay: 1us}
  uplink: {rate: 100Gbps, delay: 1us}
network: {cc: dcqcn, pfc: true, ecn: true}
workload:
  flows: {pattern: permutation, size: 1MB}
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string set(reinterpret_cast<const char*>(data), size);
  try {
    fabricsim::tools::parse_scenario(kBase, "base.yaml", {set});
  } catch (const fabricsim::tools::ScenarioError&) {
  }
  return 0;
}
