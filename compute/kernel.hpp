#pragma once
// A GPU kernel as the timing model sees it: what it computes and on what shape. Pure data; the
// kernel-timing database (kernel_db.hpp) turns it into a duration.
#include <cstdint>
#include <optional>
#include <string_view>

namespace fabricsim::compute {

enum class Dtype : std::uint8_t { FP32, FP16, BF16, FP8 };

int dtype_bytes(Dtype d);
std::string_view dtype_name(Dtype d);  // "fp32", "fp16", "bf16", "fp8"
std::optional<Dtype> parse_dtype(std::string_view s);

enum class KernelKind : std::uint8_t {
  // batch x (m x k) times (k x n): 2 b m n k FLOPs.
  Gemm,
  // Fused attention (FlashAttention): batch x heads, seq x seq scores of head_dim; forward or
  // backward (which recomputes the scores: 2.5x the forward's FLOPs).
  Attention,
  // Reads and writes `bytes` of device memory with negligible arithmetic (norms, softmax,
  // element-wise ops, the optimizer step).
  MemoryBound,
  // A duration given by the workload itself (an imported trace): `given_ps`.
  Given,
};

struct Kernel {
  KernelKind kind = KernelKind::Gemm;
  Dtype dtype = Dtype::BF16;
  std::uint64_t batch = 1;
  std::uint64_t m = 0, n = 0, k = 0;               // Gemm
  std::uint64_t heads = 0, seq = 0, head_dim = 0;  // Attention
  bool causal = false;
  bool backward = false;
  std::uint64_t bytes = 0;    // MemoryBound
  std::int64_t given_ps = 0;  // Given
};

// Floating-point operations the kernel executes (hardware FLOPs: a causal fused attention
// skips the masked half, its backward recomputes the scores). Zero for MemoryBound and Given.
double flops(const Kernel& k);

// Bytes the kernel must move to and from device memory at least: operands and result once
// (Gemm, Attention: Q, K, V and the output, plus their gradients backward), `bytes`
// (MemoryBound).
double min_bytes(const Kernel& k);

}  // namespace fabricsim::compute
