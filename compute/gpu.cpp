#include "compute/gpu.hpp"

#include <algorithm>
#include <cctype>

namespace fabricsim::compute {

const std::vector<GpuSpec>& gpu_catalog() {
  // Figures from ../shared/reference/e2e/gpu_specs.csv (copied with its sources into
  // compute/data/gpu_specs.csv); NVLink per direction = links x 25 GB/s (NVLink 3/4) or
  // 50 GB/s (NVLink 5).
  // One GPU per row.
  // clang-format off
  static const std::vector<GpuSpec> kGpus = {
      {"A100-SXM4-40GB", {"A100-40GB"}, GpuArch::Ampere, 312, 40, 1.555, 300, 12, false,
       "NVIDIA A100 datasheet; NVLink 3, 12 links = 600 GB/s bidirectional"},
      {"A100-SXM4-80GB", {"A100", "A100-80GB"}, GpuArch::Ampere, 312, 80, 2.039, 300, 12, false,
       "NVIDIA A100 datasheet; NVLink 3, 12 links = 600 GB/s bidirectional"},
      {"H100-SXM5-80GB", {"H100", "H100-SXM"}, GpuArch::Hopper, 989.4, 80, 3.35, 450, 18, true,
       "NVIDIA H100 datasheet (dense BF16 per glennklockwood.com); NVLink 4, 18 links = 900 "
       "GB/s bidirectional; NVSwitch gen3 with NVLS"},
      {"H200-SXM-141GB", {"H200"}, GpuArch::Hopper, 989.4, 141, 4.8, 450, 18, true,
       "NVIDIA H200 page as tabulated in stas00/ml-engineering; NVLink 4 / NVSwitch gen3"},
      {"GH200-120GB", {"GH200"}, GpuArch::Hopper, 989.4, 96, 4.0, 450, 18, false,
       "Hopper GPU of the Grace Hopper superchip: H100 compute and 18 NVLink 4 links "
       "(UNVERIFIED: not in gpu_specs.csv; CSCS Alps nodes join 4 GH200 by NVLink without an "
       "NVSwitch, hence no NVLS)"},
      {"B200", {"B200-SXM"}, GpuArch::Blackwell, 2250, 180, 8.0, 900, 18, true,
       "NVIDIA DGX B200 datasheet as tabulated in stas00/ml-engineering; NVLink 5, 18 links = "
       "1.8 TB/s bidirectional"},
      {"GB200", {"GB200-NVL72"}, GpuArch::Blackwell, 2500, 186, 8.0, 900, 18, true,
       "Blackwell GPU of a GB200 NVL72 rack (NVIDIA GB200 NVL72 page as tabulated in "
       "stas00/ml-engineering); NVLink 5, 18 links to the rack's NVLink switch trays"},
  };
  // clang-format on
  return kGpus;
}

namespace {
bool same(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}
}  // namespace

std::optional<GpuSpec> find_gpu(std::string_view name) {
  for (const GpuSpec& g : gpu_catalog()) {
    if (same(g.name, name)) return g;
    for (std::string_view a : g.aliases) {
      if (same(a, name)) return g;
    }
  }
  return std::nullopt;
}

std::string gpu_names() {
  std::string out;
  for (const GpuSpec& g : gpu_catalog()) {
    out += std::string(out.empty() ? "" : ", ") + std::string(g.name);
    for (std::string_view a : g.aliases) out += ", " + std::string(a);
  }
  return out;
}

double nvlink_efficiency(GpuArch arch) {
  switch (arch) {
    case GpuArch::Volta:
      return 20.0 / 25.0;  // SM70 20 GB/s over NVLink 2's 25 GB/s
    case GpuArch::Ampere:
      return 20.0 / 25.0;
    case GpuArch::Hopper:
      return 20.6 / 25.0;
    case GpuArch::Blackwell:
      return 40.1 / 50.0;
  }
  return 0.8;
}

double pcie_gbps(GpuArch arch) {
  switch (arch) {
    case GpuArch::Volta:
      return 12.0;  // Gen3 x16: 16 x 60 / 80
    case GpuArch::Ampere:
      return 24.0;  // Gen4 x16: 16 x 120 / 80
    case GpuArch::Hopper:
    case GpuArch::Blackwell:
      return 48.0;  // Gen5 x16: 16 x 240 / 80
  }
  return 24.0;
}

}  // namespace fabricsim::compute
