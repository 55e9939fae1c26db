#include "compute/kernel_db.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

using namespace fabricsim::compute;

namespace {

const char* const kHeader =
    "gpu,op,dtype,batch,m,n,k,heads,seq,head_dim,causal,pass,bytes,time_us,source\n";

KernelDb db_of(const std::string& rows) {
  std::istringstream in(std::string(kHeader) + rows);
  return KernelDb::parse(in, "test.csv");
}

Kernel gemm(std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint64_t batch = 1) {
  return Kernel{.kind = KernelKind::Gemm, .batch = batch, .m = m, .n = n, .k = k};
}

Kernel attention(std::uint64_t batch, std::uint64_t heads, std::uint64_t seq,
                 std::uint64_t head_dim) {
  return Kernel{.kind = KernelKind::Attention,
                .batch = batch,
                .heads = heads,
                .seq = seq,
                .head_dim = head_dim};
}

GpuSpec gpu(const char* name) {
  return *find_gpu(name);
}

// Two H100 GEMMs at 1024^3 (200 TFLOP/s) and 4096^3 (800 TFLOP/s), and one memory kernel.
const char* const kRows =
    "H100,gemm,bf16,1,1024,1024,1024,,,,,,,10.737418,a\n"
    "H100,gemm,bf16,1,4096,4096,4096,,,,,,,171.798692,b\n"
    "H100,memory,fp32,,,,,,,,,,3000000000,1000,c\n";

}  // namespace

TEST_CASE("kernel db: an exact hit returns the measured time", "[compute]") {
  const KernelDb db = db_of(kRows);
  REQUIRE(db.size() == 3);
  const KernelTime t = db.time(gpu("H100"), gemm(4096, 4096, 4096));
  REQUIRE(t.path == KernelPath::Exact);
  REQUIRE(t.us == Approx(171.798692));
  REQUIRE(t.source.find("b") != std::string::npos);
  // FP16 shares the BF16 measurements.
  Kernel h = gemm(4096, 4096, 4096);
  h.dtype = Dtype::FP16;
  REQUIRE(db.time(gpu("H100"), h).path == KernelPath::Exact);
}

TEST_CASE("kernel db: between measurements the throughput is interpolated in log shape",
          "[compute]") {
  const KernelDb db = db_of(kRows);
  // 2048^3 is halfway in log between the two grid corners of each axis; only the two
  // diagonal corners are measured, so the throughput is their mean: 500 TFLOP/s.
  const Kernel k = gemm(2048, 2048, 2048);
  const KernelTime t = db.time(gpu("H100"), k);
  REQUIRE(t.path == KernelPath::Interpolated);
  REQUIRE(flops(k) / (t.us * 1e-6) / 1e12 == Approx(500).epsilon(1e-6));
  // Beyond the measured range the edge's throughput holds.
  const Kernel big = gemm(8192, 8192, 8192);
  REQUIRE(flops(big) / (db.time(gpu("H100"), big).us * 1e-6) / 1e12 == Approx(800).epsilon(1e-6));
  // A memory kernel of a third of the bytes at the same bandwidth.
  Kernel mem;
  mem.kind = KernelKind::MemoryBound;
  mem.bytes = 1'000'000'000;
  REQUIRE(db.time(gpu("H100"), mem).us == Approx(1000.0 / 3));
}

TEST_CASE("kernel db: an unmeasured GPU is scaled by peak FLOP/s or HBM bandwidth", "[compute]") {
  const KernelDb db = db_of(kRows);
  const GpuSpec h100 = gpu("H100"), a100 = gpu("A100-80GB");
  // A large GEMM is compute-bound: scaled by the peak ratio.
  const Kernel k = gemm(4096, 4096, 4096);
  const KernelTime t = db.time(a100, k);
  REQUIRE(t.path == KernelPath::Scaled);
  REQUIRE(t.us == Approx(171.798692 * h100.bf16_tflops / a100.bf16_tflops));
  // A memory kernel by the bandwidth ratio.
  Kernel mem;
  mem.kind = KernelKind::MemoryBound;
  mem.bytes = 3'000'000'000;
  const KernelTime m = db.time(a100, mem);
  REQUIRE(m.path == KernelPath::Scaled);
  REQUIRE(m.us == Approx(1000 * h100.hbm_tbps / a100.hbm_tbps));
  // A skinny GEMM (intensity below H100's ridge point) is memory-bound: bandwidth ratio.
  const Kernel skinny = gemm(4096, 4096, 8);
  REQUIRE(flops(skinny) / min_bytes(skinny) < h100.bf16_tflops / h100.hbm_tbps);
  const double from = db.time(h100, skinny).us;
  REQUIRE(db.time(a100, skinny).us == Approx(from * h100.hbm_tbps / a100.hbm_tbps));
}

TEST_CASE("kernel db: compiled memory kernels move their bytes at torch.compile's share",
          "[compute]") {
  const KernelDb db = db_of(kRows);
  const GpuSpec h100 = gpu("H100"), a100 = gpu("A100-80GB");
  Kernel mem;
  mem.kind = KernelKind::MemoryBound;
  mem.bytes = 3'000'000'000;
  Kernel compiled = mem;
  compiled.memory_impl = MemoryImpl::Compiled;
  // 3.01 TB/s tuned (QuACK) against 1.89 TB/s compiled (torch.compile), on every path.
  for (const GpuSpec& g : {h100, a100}) {
    const KernelTime tuned = db.time(g, mem), slow = db.time(g, compiled);
    REQUIRE(slow.path == tuned.path);
    REQUIRE(slow.us == Approx(tuned.us * 3.01 / 1.89));
  }
  REQUIRE(KernelDb().time(h100, compiled).us ==
          Approx(KernelDb().time(h100, mem).us * 3.01 / 1.89));
  // Only memory-bound kernels have an implementation class.
  Kernel g = gemm(4096, 4096, 4096);
  const double before = db.time(h100, g).us;
  g.memory_impl = MemoryImpl::Compiled;
  REQUIRE(db.time(h100, g).us == before);
}

TEST_CASE("kernel db: with no measurements of a kind the roofline answers", "[compute]") {
  const KernelDb empty;
  const GpuSpec h100 = gpu("H100");
  const Kernel k = gemm(16384, 16384, 16384);
  const KernelTime t = empty.time(h100, k);
  REQUIRE(t.path == KernelPath::Roofline);
  // A huge GEMM approaches the efficiency ceiling, a small one is far below it.
  const double big_eff = flops(k) / (t.us * 1e-6) / (h100.bf16_tflops * 1e12);
  REQUIRE(big_eff == Approx(kMaxGemmEfficiency).epsilon(0.01));
  const Kernel small = gemm(512, 512, 512);
  const double small_eff =
      flops(small) / (empty.time(h100, small).us * 1e-6) / (h100.bf16_tflops * 1e12);
  REQUIRE(small_eff < 0.1 * kMaxGemmEfficiency);
  // Memory-bound: bytes over 90% of HBM bandwidth.
  Kernel mem;
  mem.kind = KernelKind::MemoryBound;
  mem.bytes = 3'350'000'000;
  REQUIRE(empty.time(h100, mem).us == Approx(1000 / kMemoryEfficiency));
  // Attention measured on no GPU: roofline too, even in a db with GEMMs.
  const Kernel a = attention(1, 16, 4096, 128);
  REQUIRE(db_of(kRows).time(h100, a).path == KernelPath::Roofline);
  // FP32 has no peak in the catalog: an error, not a guess.
  Kernel f32 = gemm(1024, 1024, 1024);
  f32.dtype = Dtype::FP32;
  REQUIRE_THROWS_WITH(empty.time(h100, f32), Catch::Contains("fp32"));
}

TEST_CASE("kernel db: given durations pass through", "[compute]") {
  Kernel g;
  g.kind = KernelKind::Given;
  g.given_ps = 1'500'000;
  const KernelTime t = KernelDb().time(gpu("H100"), g);
  REQUIRE(t.path == KernelPath::Given);
  REQUIRE(t.us == 1.5);
}

TEST_CASE("kernel db: FLOP counts", "[compute]") {
  REQUIRE(flops(gemm(2, 3, 4, 5)) == 2.0 * 5 * 2 * 3 * 4);
  Kernel a = attention(2, 3, 10, 8);
  REQUIRE(flops(a) == 4.0 * 6 * 100 * 8);
  a.backward = true;
  REQUIRE(flops(a) == 2.5 * 4.0 * 6 * 100 * 8);
  a.causal = true;
  REQUIRE(flops(a) == 1.25 * 4.0 * 6 * 100 * 8);
}

TEST_CASE("kernel db: bad files name the line and the column", "[compute]") {
  REQUIRE_THROWS_WITH(db_of("H100,gemm,bf16,1,two,1,1,,,,,,,1,x\n"),
                      Catch::Contains("test.csv:2:") && Catch::Contains("column m"));
  REQUIRE_THROWS_WITH(
      db_of("H100,conv,bf16,1,1,1,1,,,,,,,1,x\n"),
      Catch::Contains("test.csv:2:") && Catch::Contains("gemm, attention or memory"));
  REQUIRE_THROWS_WITH(db_of("V100,gemm,bf16,1,1,1,1,,,,,,,1,x\n"),
                      Catch::Contains("'V100' is not in the GPU catalog"));
  REQUIRE_THROWS_WITH(db_of("H100,gemm,bf16,1,1,1,1,,,,,,,0,x\n"),
                      Catch::Contains("time_us must be positive"));
  REQUIRE_THROWS_WITH(db_of("H100,gemm,bf16,1,1,1\n"), Catch::Contains("6 columns, expected 15"));
  std::istringstream bad_header("gpu,op\n");
  REQUIRE_THROWS_WITH(KernelDb::parse(bad_header, "h.csv"), Catch::Contains("h.csv:1: the header"));
  REQUIRE_THROWS_WITH(KernelDb::load("no/such/file.csv"), Catch::Contains("cannot open"));
  REQUIRE_THROWS_WITH(KernelDb::load("/dev/zero"), Catch::Contains("not a regular file"));
  REQUIRE_THROWS_WITH(KernelDb::load("compute"), Catch::Contains("it is a directory"));
}

TEST_CASE("kernel db: the shipped database answers every path for the training kernels",
          "[compute]") {
  const KernelDb db = KernelDb::load(default_kernel_db_path());
  REQUIRE(db.size() > 700);
  const GpuSpec h100 = gpu("H100"), a100 = gpu("A100-80GB");
  REQUIRE(db.time(h100, gemm(4096, 4096, 4096)).path == KernelPath::Exact);
  REQUIRE(db.time(h100, gemm(8192, 3072, 12288)).path == KernelPath::Interpolated);
  REQUIRE(db.time(a100, gemm(8192, 3072, 12288)).path == KernelPath::Scaled);
  Kernel fa = attention(4, 16, 2048, 128);
  fa.causal = true;
  const KernelTime t = db.time(a100, fa);
  REQUIRE(t.path == KernelPath::Interpolated);
  // FlashAttention-2 on A100 at 2k, hd 128, causal: 155 TFLOP/s forward+backward.
  REQUIRE(flops(fa) / (t.us * 1e-6) / 1e12 == Approx(155).epsilon(0.01));
  // Every answer is physically possible: below the GPU's peak.
  for (const std::uint64_t s : {256u, 1000u, 4096u, 20000u}) {
    const Kernel k = gemm(s, s, s);
    REQUIRE(flops(k) / (db.time(a100, k).us * 1e-6) < a100.bf16_tflops * 1e12);
  }
}

TEST_CASE("kernel db: several measurements at one point keep their mean throughput", "[compute]") {
  // 1024^3 in 10, 20 and 40 us: throughputs in the ratio 4 : 2 : 1, mean 7/3 of the slowest's,
  // so the point takes 40 x 3/7 us (a mean of each new row with the mean so far gave 20 us).
  const KernelDb db = db_of(
      "H100,gemm,bf16,1,1024,1024,1024,,,,,,,10,a\n"
      "H100,gemm,bf16,1,1024,1024,1024,,,,,,,20,b\n"
      "H100,gemm,bf16,1,1024,1024,1024,,,,,,,40,c\n");
  const KernelTime t = db.time(gpu("H100"), gemm(1024, 1024, 1024));
  REQUIRE(t.path != KernelPath::Exact);  // no single measured kernel
  REQUIRE(t.us == Approx(40.0 * 3 / 7));
}
