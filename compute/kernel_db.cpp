#include "compute/kernel_db.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "core/input_file.hpp"

namespace fabricsim::compute {
namespace {

// Where the roofline's figures come from:
// - kMaxGemmEfficiency: best-shape achievable BF16 GEMM ("MAMF", stas00/ml-engineering
//   compute/accelerator/README.md): A100 86.9%, H100 80.3%, B200 77.6% of the dense peak.
// - kHalfWorkFlops: XLA's measured sm_90 GEMM table (openxla/xla
//   default_matmul_perf_table, shared/reference/e2e/gemm_xla_measured_perf_table.csv) reaches
//   5.6%, 32% and 82% of its 4096^3 throughput at 512^3, 1024^3 and 2048^3; W / (W + 4.6
//   GFLOP) gives 5.5%, 32% and 79% at those sizes.
// - kMemoryEfficiency: QuACK's memory-bound kernels on H100 at ~3.0 of 3.35 TB/s
//   (Dao-AILab/quack media/2025-07-10-membound-sol.md).

int dtype_class(Dtype d) {
  // FP16 and BF16 share measurements (same tensor-core rate).
  return d == Dtype::FP16 ? static_cast<int>(Dtype::BF16) : static_cast<int>(d);
}

double peak_flops(const GpuSpec& gpu, Dtype d) {
  if (d != Dtype::BF16 && d != Dtype::FP16) {
    throw std::invalid_argument(
        fmt::format("no {} measurements for {} and the GPU catalog has 16-bit peaks only",
                    dtype_name(d), gpu.name));
  }
  return gpu.bf16_tflops * 1e12;
}

double hbm_bytes_per_s(const GpuSpec& gpu) {
  return gpu.hbm_tbps * 1e12;
}

double memory_floor_us(const GpuSpec& gpu, const Kernel& k) {
  return min_bytes(k) / (hbm_bytes_per_s(gpu) * kMemoryEfficiency) * 1e6;
}

// The work a throughput applies to.
double work(const Kernel& k) {
  return k.kind == KernelKind::MemoryBound ? min_bytes(k) : flops(k);
}

int axes_of(KernelKind op) {
  switch (op) {
    case KernelKind::Gemm:
      return 4;
    case KernelKind::Attention:
      return 2;
    case KernelKind::MemoryBound:
      return 1;
    case KernelKind::Given:
      break;
  }
  return 0;
}

std::array<double, 4> coords(const Kernel& k) {
  switch (k.kind) {
    case KernelKind::Gemm:
      return {static_cast<double>(k.batch), static_cast<double>(k.m), static_cast<double>(k.n),
              static_cast<double>(k.k)};
    case KernelKind::Attention:
      return {static_cast<double>(k.head_dim), static_cast<double>(k.seq), 0, 0};
    case KernelKind::MemoryBound:
      return {static_cast<double>(k.bytes), 0, 0, 0};
    case KernelKind::Given:
      break;
  }
  return {};
}

// --- CSV ---------------------------------------------------------------------------------

constexpr std::array<std::string_view, 15> kColumns = {
    "gpu", "op",       "dtype",  "batch", "m",     "n",       "k",     "heads",
    "seq", "head_dim", "causal", "pass",  "bytes", "time_us", "source"};

std::uint64_t count(const std::string& v, std::string_view col, std::uint64_t dflt) {
  if (v.empty()) return dflt;
  std::size_t used = 0;
  unsigned long long x = 0;
  try {
    x = std::stoull(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v[0] == '-') {
    throw std::invalid_argument(fmt::format("column {}: '{}' is not a whole number", col, v));
  }
  return x;
}

KernelRow parse_row(const std::vector<std::string>& f) {
  KernelRow r;
  Kernel& k = r.kernel;
  r.gpu = f[0];
  if (f[1] == "gemm") {
    k.kind = KernelKind::Gemm;
  } else if (f[1] == "attention") {
    k.kind = KernelKind::Attention;
  } else if (f[1] == "memory") {
    k.kind = KernelKind::MemoryBound;
  } else {
    throw std::invalid_argument(
        fmt::format("column op: '{}' is not gemm, attention or memory", f[1]));
  }
  const auto dt = parse_dtype(f[2]);
  if (!dt) {
    throw std::invalid_argument(
        fmt::format("column dtype: '{}' is not fp32, fp16, bf16 or fp8", f[2]));
  }
  k.dtype = *dt;
  k.batch = count(f[3], "batch", 1);
  k.m = count(f[4], "m", 0);
  k.n = count(f[5], "n", 0);
  k.k = count(f[6], "k", 0);
  k.heads = count(f[7], "heads", 0);
  k.seq = count(f[8], "seq", 0);
  k.head_dim = count(f[9], "head_dim", 0);
  k.causal = count(f[10], "causal", 0) != 0;
  if (f[11] == "bwd") {
    k.backward = true;
  } else if (f[11] == "fwd+bwd") {
    r.both_passes = true;
  } else if (f[11] != "fwd" && !f[11].empty()) {
    throw std::invalid_argument(fmt::format("column pass: '{}' is not fwd, bwd or fwd+bwd", f[11]));
  }
  k.bytes = count(f[12], "bytes", 0);
  std::size_t used = 0;
  try {
    r.time_us = std::stod(f[13], &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != f[13].size()) {
    throw std::invalid_argument(fmt::format("column time_us: '{}' is not a number", f[13]));
  }
  r.source = f[14];
  return r;
}

}  // namespace

std::string_view name(KernelPath p) {
  switch (p) {
    case KernelPath::Exact:
      return "exact";
    case KernelPath::Interpolated:
      return "interpolated";
    case KernelPath::Scaled:
      return "scaled";
    case KernelPath::Roofline:
      return "roofline";
    case KernelPath::Given:
      return "given";
  }
  return "?";
}

KernelDb KernelDb::load(const std::string& path) {
  core::check_input_file(path, "kernel-timing database", 256u << 20);
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the kernel-timing database");
  return parse(in, path);
}

KernelDb KernelDb::parse(std::istream& in, const std::string& file) {
  KernelDb db;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> f = core::split_csv(line);
    const auto fail = [&](const std::string& what) {
      throw std::runtime_error(fmt::format("{}:{}: {}", file, line_no, what));
    };
    if (line_no == 1) {
      if (f.size() != kColumns.size() || !std::equal(f.begin(), f.end(), kColumns.begin())) {
        fail(fmt::format("the header must be {}", fmt::join(kColumns, ",")));
      }
      continue;
    }
    if (f.size() != kColumns.size()) {
      fail(fmt::format("{} columns, expected {}", f.size(), kColumns.size()));
    }
    try {
      db.add(parse_row(f));
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
  }
  if (line_no == 0) throw std::runtime_error(file + ": empty kernel-timing database");
  return db;
}

void KernelDb::add(const KernelRow& r) {
  const std::optional<GpuSpec> gpu = find_gpu(r.gpu);
  if (!gpu) {
    throw std::invalid_argument(
        fmt::format("gpu '{}' is not in the GPU catalog ({})", r.gpu, gpu_names()));
  }
  if (!(r.time_us > 0) || !std::isfinite(r.time_us)) {
    throw std::invalid_argument("time_us must be positive");
  }
  const Kernel& k = r.kernel;
  if (k.kind == KernelKind::Gemm && (k.batch == 0 || k.m == 0 || k.n == 0 || k.k == 0)) {
    throw std::invalid_argument("a gemm needs batch, m, n and k");
  }
  if (k.kind == KernelKind::Attention &&
      (k.batch == 0 || k.heads == 0 || k.seq == 0 || k.head_dim == 0)) {
    throw std::invalid_argument("an attention kernel needs batch, heads, seq and head_dim");
  }
  if (k.kind == KernelKind::Given) throw std::invalid_argument("given durations are not data");
  if (k.kind == KernelKind::MemoryBound && k.bytes == 0) {
    throw std::invalid_argument("a memory kernel needs bytes");
  }
  double w = work(k);
  // A forward+backward measurement: 3.5 forward passes of work, FlashAttention's own count
  // (benchmarks/benchmark_flash_attention.py; flops() counts 2.5 for the backward).
  if (r.both_passes) w *= 3.5;
  Table& t = tables_[key(gpu->name, k)];
  t.axes = axes_of(k.kind);
  Point p;
  p.at = coords(k);
  p.work = w;
  p.throughput = w / (r.time_us * 1e-6);
  sources_.push_back(r.source);
  p.source = sources_.size() - 1;
  const auto [it, fresh] = t.index.try_emplace(p.at, t.points.size());
  if (!fresh) {
    // Several measurements at one grid point (different batch x heads of an attention
    // benchmark, say): the grid keeps their mean throughput.
    Point& q = t.points[it->second];
    ++q.count;
    q.throughput += (p.throughput - q.throughput) / q.count;
    q.work = -1;  // no longer one kernel: never an exact hit
  } else {
    t.points.push_back(p);
    for (int a = 0; a < t.axes; ++a) {
      std::vector<double>& v = t.values[a];
      const auto pos = std::lower_bound(v.begin(), v.end(), p.at[a]);
      if (pos == v.end() || *pos != p.at[a]) v.insert(pos, p.at[a]);
    }
  }
  ++rows_;
}

KernelDb::Key KernelDb::key(std::string_view gpu, const Kernel& k) {
  return {std::string(gpu), k.kind, k.kind == KernelKind::MemoryBound ? 0 : dtype_class(k.dtype),
          k.kind == KernelKind::Attention && k.causal};
}

double KernelDb::lookup(const Table& t, const GpuSpec& gpu, const Kernel& k, bool& exact,
                        std::size_t& source) const {
  const std::array<double, 4> at = coords(k);
  const double w = work(k);
  const auto hit = t.index.find(at);
  if (hit != t.index.end()) {
    const Point& p = t.points[hit->second];
    source = p.source;
    if (p.work == w) {
      exact = true;
      return w / p.throughput * 1e6;
    }
  }
  exact = false;
  // Multilinear interpolation of throughput in log(shape), clamped to the measured range;
  // missing grid corners drop out of the weights.
  std::array<std::array<double, 2>, 4> corner{};
  std::array<std::array<double, 2>, 4> weight{};
  for (int a = 0; a < t.axes; ++a) {
    const std::vector<double>& v = t.values[a];
    const double x = std::clamp(at[a], v.front(), v.back());
    auto hi = std::lower_bound(v.begin(), v.end(), x);
    auto lo = (*hi == x || hi == v.begin()) ? hi : hi - 1;
    corner[a] = {*lo, *hi};
    const double f = *lo == *hi ? 0.0 : std::log(x / *lo) / std::log(*hi / *lo);
    weight[a] = {1 - f, f};
  }
  double sum = 0, total = 0;
  std::size_t best = t.points.size();
  double best_weight = -1;
  for (int c = 0; c < (1 << t.axes); ++c) {
    std::array<double, 4> p{};
    double wt = 1;
    for (int a = 0; a < t.axes; ++a) {
      const int side = (c >> a) & 1;
      p[a] = corner[a][side];
      wt *= weight[a][side];
    }
    const auto it = t.index.find(p);
    if (it == t.index.end() || wt == 0) continue;
    sum += wt * t.points[it->second].throughput;
    total += wt;
    if (wt > best_weight) best_weight = wt, best = it->second;
  }
  double throughput;
  if (total > 0) {
    throughput = sum / total;
  } else {
    // A sparse table: the nearest measurement in log shape.
    double dist = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < t.points.size(); ++i) {
      double d = 0;
      for (int a = 0; a < t.axes; ++a) {
        const double l = std::log(std::max(at[a], 1.0) / t.points[i].at[a]);
        d += l * l;
      }
      if (d < dist) dist = d, best = i;
    }
    throughput = t.points[best].throughput;
  }
  source = t.points[best].source;
  return std::max(w / throughput * 1e6, memory_floor_us(gpu, k));
}

KernelTime KernelDb::time(const GpuSpec& gpu, const Kernel& k) const {
  KernelTime out = tuned_time(gpu, k);
  if (k.kind == KernelKind::MemoryBound && k.memory_impl == MemoryImpl::Compiled) {
    out.us /= kCompiledMemorySpeed;
    out.source += fmt::format("; compiled, at {:.0f}% of a tuned kernel's bandwidth",
                              100 * kCompiledMemorySpeed);
  }
  return out;
}

KernelTime KernelDb::tuned_time(const GpuSpec& gpu, const Kernel& k) const {
  KernelTime out;
  if (k.kind == KernelKind::Given) {
    out.us = static_cast<double>(k.given_ps) * 1e-6;
    out.path = KernelPath::Given;
    out.source = "the workload file";
    return out;
  }
  if (work(k) <= 0) {
    out.path = KernelPath::Exact;
    out.source = "no work";
    return out;
  }
  bool exact = false;
  std::size_t src = 0;
  const auto own = tables_.find(key(gpu.name, k));
  if (own != tables_.end()) {
    out.us = lookup(own->second, gpu, k, exact, src);
    out.path = exact ? KernelPath::Exact : KernelPath::Interpolated;
    out.source = fmt::format("{} measurements: {}", gpu.name, sources_[src]);
    return out;
  }
  // Scaling: the measured GPU closest to this one in the figure that bounds this kind of
  // kernel (ties by catalog order).
  const bool memory_kernel = k.kind == KernelKind::MemoryBound;
  const auto figure = [&](const GpuSpec& g) { return memory_kernel ? g.hbm_tbps : g.bf16_tflops; };
  const Table* from = nullptr;
  GpuSpec from_gpu;
  double closest = std::numeric_limits<double>::infinity();
  for (const GpuSpec& g : gpu_catalog()) {
    const auto it = tables_.find(key(g.name, k));
    if (it == tables_.end()) continue;
    const double d = std::abs(std::log(figure(g) / figure(gpu)));
    if (d < closest) closest = d, from = &it->second, from_gpu = g;
  }
  if (from) {
    const double t = lookup(*from, from_gpu, k, exact, src);
    // Compute-bound on the measured GPU when its arithmetic intensity is above that GPU's
    // ridge point (peak FLOP/s over HBM bandwidth).
    const bool compute_bound =
        !memory_kernel &&
        flops(k) / min_bytes(k) >= peak_flops(from_gpu, k.dtype) / hbm_bytes_per_s(from_gpu);
    const double ratio =
        compute_bound ? from_gpu.bf16_tflops / gpu.bf16_tflops : from_gpu.hbm_tbps / gpu.hbm_tbps;
    out.us = std::max(t * ratio, memory_floor_us(gpu, k));
    out.path = KernelPath::Scaled;
    out.source = fmt::format("{} measurements scaled by {} ({}): {}", from_gpu.name,
                             compute_bound ? "peak FLOP/s" : "HBM bandwidth", ratio, sources_[src]);
    return out;
  }
  // Roofline.
  const double f = flops(k);
  double compute_us = 0;
  if (f > 0) {
    const double peak = peak_flops(gpu, k.dtype);
    const double half = kHalfWorkFlops * gpu.bf16_tflops / kHalfWorkPeakTflops;
    compute_us = f / (peak * kMaxGemmEfficiency * f / (f + half)) * 1e6;
  }
  out.us = std::max(compute_us, memory_floor_us(gpu, k));
  out.path = KernelPath::Roofline;
  out.source =
      fmt::format("roofline: {} TFLOP/s x {:.0f}% at full size, {} TB/s x {:.0f}%", gpu.bf16_tflops,
                  100 * kMaxGemmEfficiency, gpu.hbm_tbps, 100 * kMemoryEfficiency);
  return out;
}

std::string default_kernel_db_path() {
  const std::filesystem::path local("compute/data/kernels.csv");
  if (std::filesystem::exists(local)) return local.string();
  return (std::filesystem::path(FABRICSIM_SOURCE_DIR) / local).string();
}

}  // namespace fabricsim::compute
