#pragma once
// The kernel-timing database: "how long does this kernel take on this GPU?", answered from
// measurements where there are some and from a model where there are none. Every answer says
// which of four paths produced it:
//   exact         a measurement of this very kernel on this GPU;
//   interpolated  between measurements of this GPU (multilinear in log shape; beyond the
//                 measured range the nearest edge's throughput, never faster than the
//                 memory-bandwidth floor);
//   scaled        from the measured GPU closest in peak figures, by peak FLOP/s when the
//                 kernel is compute-bound there and by HBM bandwidth when memory-bound;
//   roofline      no measurement of this kind of kernel at all: peak FLOP/s times an
//                 efficiency curve, or HBM bandwidth times an efficiency.
// (and `given`: a duration the workload itself states). The data is a CSV (compute/data/
// kernels.csv, built by scripts/make_kernel_db.py from shared/reference/e2e) with the columns
//   gpu,op,dtype,batch,m,n,k,heads,seq,head_dim,causal,pass,bytes,time_us,source
// op: gemm (batch, m, n, k), attention (batch, heads, seq, head_dim, causal; pass fwd, bwd or
// fwd+bwd), memory (bytes). FP16 and BF16 share their measurements: the GPUs here run both at
// the same tensor-core rate (NVIDIA A100/H100/B200 datasheets list equal dense figures).
#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "compute/gpu.hpp"
#include "compute/kernel.hpp"

namespace fabricsim::compute {

enum class KernelPath : std::uint8_t { Exact, Interpolated, Scaled, Roofline, Given };
std::string_view name(KernelPath p);

struct KernelTime {
  double us = 0;
  KernelPath path = KernelPath::Roofline;
  std::string source;  // which measurements (GPU and origin) or which roofline figures
};

// One measurement (a CSV row): the kernel measured (`backward` for pass bwd) and its time.
struct KernelRow {
  std::string gpu;  // a name or alias from the GPU catalog
  Kernel kernel;
  bool both_passes = false;  // pass fwd+bwd: the time of a forward and its backward together
  double time_us = 0;
  std::string source;
};

// Roofline efficiency figures (sources in kernel_db.cpp).
// Compute: peak x kMaxGemmEfficiency x W / (W + W_half), W_half = kHalfWork at 989.4 TFLOP/s,
// scaled with the GPU's peak (a faster GPU needs more work to fill).
inline constexpr double kMaxGemmEfficiency = 0.80;
inline constexpr double kHalfWorkFlops = 4.6e9;
inline constexpr double kHalfWorkPeakTflops = 989.4;
// Memory: well-written memory-bound kernels reach ~90% of HBM peak.
inline constexpr double kMemoryEfficiency = 0.90;
// Compiler-generated memory-bound kernels against hand-tuned ones: on one H100, torch.compile's
// softmax moves 1.89 TB/s where QuACK's (the database's memory measurement) moves 3.01 TB/s
// (Dao-AILab/quack media/2025-07-10-membound-sol.md, shared/reference/e2e/
// memory_bound_kernels_measured.csv). A MemoryImpl::Compiled kernel takes 3.01 / 1.89 of the
// tuned time.
inline constexpr double kCompiledMemorySpeed = 1.89 / 3.01;

class KernelDb {
 public:
  KernelDb() = default;  // no measurements: every answer is the roofline's

  // Throws std::runtime_error "FILE:LINE: ..." for a file that cannot be read or a bad row.
  static KernelDb load(const std::string& path);
  static KernelDb parse(std::istream& in, const std::string& file);

  // Throws std::invalid_argument for an unknown GPU or an impossible row.
  void add(const KernelRow& r);

  // Throws std::invalid_argument for a kernel the model cannot time (an FP32 or FP8 kernel on
  // a GPU without measurements of it: the catalog has 16-bit peaks only).
  KernelTime time(const GpuSpec& gpu, const Kernel& k) const;

  std::size_t size() const { return rows_; }

 private:
  KernelTime tuned_time(const GpuSpec& gpu, const Kernel& k) const;
  // Measurements of one kind of kernel on one GPU: throughput (FLOP/s, or bytes/s for memory
  // kernels) at points of a shape grid. Axes: gemm (batch, m, n, k), attention (head_dim,
  // seq), memory (bytes).
  struct Point {
    std::array<double, 4> at{};
    double work = 0;  // FLOPs or bytes of the measured kernel
    double throughput = 0;
    std::size_t source = 0;  // index into sources_
    int count = 1;           // measurements averaged here
  };
  struct Table {
    int axes = 0;
    std::array<std::vector<double>, 4> values;           // sorted distinct values per axis
    std::map<std::array<double, 4>, std::size_t> index;  // point by coordinates
    std::vector<Point> points;
  };
  // (canonical GPU, op, dtype class, causal)
  using Key = std::tuple<std::string, KernelKind, int, bool>;

  static Key key(std::string_view gpu, const Kernel& k);
  // The table's time for k (microseconds) on its own GPU, and whether it was an exact hit.
  double lookup(const Table& t, const GpuSpec& gpu, const Kernel& k, bool& exact,
                std::size_t& source) const;

  std::map<Key, Table> tables_;
  std::vector<std::string> sources_;
  std::size_t rows_ = 0;
};

// compute/data/kernels.csv, from the working folder if it is there, else from the source tree
// this binary was built from.
std::string default_kernel_db_path();

}  // namespace fabricsim::compute
