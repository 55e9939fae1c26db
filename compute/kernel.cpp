#include "compute/kernel.hpp"

namespace fabricsim::compute {

int dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::FP32:
      return 4;
    case Dtype::FP16:
    case Dtype::BF16:
      return 2;
    case Dtype::FP8:
      return 1;
  }
  return 2;
}

std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::FP32:
      return "fp32";
    case Dtype::FP16:
      return "fp16";
    case Dtype::BF16:
      return "bf16";
    case Dtype::FP8:
      return "fp8";
  }
  return "?";
}

std::optional<Dtype> parse_dtype(std::string_view s) {
  for (const Dtype d : {Dtype::FP32, Dtype::FP16, Dtype::BF16, Dtype::FP8}) {
    if (s == dtype_name(d)) return d;
  }
  return std::nullopt;
}

double flops(const Kernel& k) {
  switch (k.kind) {
    case KernelKind::Gemm:
      return 2.0 * static_cast<double>(k.batch) * static_cast<double>(k.m) *
             static_cast<double>(k.n) * static_cast<double>(k.k);
    case KernelKind::Attention: {
      // Q K^T and P V: 2 x 2 s^2 d per head (FlashAttention's benchmark count); the backward
      // recomputes Q K^T and runs four more products of the same size.
      const double s = static_cast<double>(k.seq);
      double f =
          4.0 * static_cast<double>(k.batch * k.heads) * s * s * static_cast<double>(k.head_dim);
      if (k.causal) f *= 0.5;
      return k.backward ? 2.5 * f : f;
    }
    case KernelKind::MemoryBound:
    case KernelKind::Given:
      return 0;
  }
  return 0;
}

double min_bytes(const Kernel& k) {
  const double e = dtype_bytes(k.dtype);
  switch (k.kind) {
    case KernelKind::Gemm:
      return e * static_cast<double>(k.batch) *
             static_cast<double>(k.m * k.k + k.k * k.n + k.m * k.n);
    case KernelKind::Attention: {
      // Q, K, V and O forward; backward also reads dO and writes dQ, dK, dV.
      const double qkvo = 4.0 * static_cast<double>(k.batch * k.heads * k.seq * k.head_dim) * e;
      return k.backward ? 2.0 * qkvo : qkvo;
    }
    case KernelKind::MemoryBound:
      return static_cast<double>(k.bytes);
    case KernelKind::Given:
      return 0;
  }
  return 0;
}

}  // namespace fabricsim::compute
