#pragma once
// GPU models: the figures the simulator needs about a GPU, each with its source. Looked up by
// the name a scenario gives (cluster.host.gpu).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::compute {

enum class GpuArch { Volta, Ampere, Hopper, Blackwell };

struct GpuSpec {
  std::string_view name;  // canonical, e.g. "H100-SXM5-80GB"
  std::vector<std::string_view> aliases;
  GpuArch arch = GpuArch::Hopper;
  double bf16_tflops = 0;  // dense
  double hbm_gb = 0;
  double hbm_tbps = 0;
  double nvlink_gbps = 0;  // GB/s per direction, all links of the GPU
  int nvlink_links = 0;
  // NVSwitch with NVLink SHARP (NVLS): third-generation NVSwitch (Hopper) and later.
  bool nvls = false;
  std::string_view source;
};

const std::vector<GpuSpec>& gpu_catalog();
// By canonical name or alias, case-insensitive; nullopt when unknown.
std::optional<GpuSpec> find_gpu(std::string_view name);
// "A100, A100-40GB, ..." for error messages.
std::string gpu_names();

// NCCL's usable NVLink bandwidth per link (src/graph/topo.h: SM80 20, SM90 20.6, SM100 40.1
// GB/s; nccl-facts.md §3) over the link's line rate per direction (25 GB/s NVLink 3 and 4,
// 50 GB/s NVLink 5): the share of NVLink a collective gets.
double nvlink_efficiency(GpuArch arch);

// The GPU's PCIe x16 link as NCCL's topology rates it (src/graph/topo.cc: lanes x per-lane
// rate / 80, with 16 GT/s = 120 and 32 GT/s = 240): Gen4 (Volta, Ampere) 24 GB/s, Gen5
// (Hopper, Blackwell) 48 GB/s. A NIC reached over it sees at most this.
double pcie_gbps(GpuArch arch);

}  // namespace fabricsim::compute
