#include "workload/model.hpp"

#include <stdexcept>
#include <string>

namespace fabricsim::workload {

double layer_params(const ModelSpec& m) {
  const double h = m.hidden, d = m.head_dim();
  const double qkv = (m.heads + 2.0 * m.kv_heads) * d;
  const double attention = h * qkv + qkv + m.heads * d * h + h;
  const double gates = m.swiglu ? 2.0 : 1.0;
  const double ffn = h * m.ffn_hidden * (gates + 1.0) + m.ffn_hidden * gates + h;
  const double router = m.moe() ? h * m.experts : 0.0;
  return attention + m.experts * ffn + router + 4.0 * h;  // + two layer norms
}

double embedding_params(const ModelSpec& m, int tp) {
  const double positions = m.positions == PositionEmbedding::Learned ? m.seq_len : 0.0;
  return (static_cast<double>(m.vocab) / tp + positions) * m.hidden;
}

double expert_params(const ModelSpec& m) {
  return static_cast<double>(m.hidden) * m.ffn_hidden * (m.swiglu ? 3.0 : 2.0);
}

double total_params(const ModelSpec& m) {
  return m.layers * layer_params(m) + embedding_params(m) + 2.0 * m.hidden;  // + final norm
}

void validate(const ModelSpec& m) {
  const auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument("model " + m.name + ": " + what);
  };
  need(m.layers > 0, "layers must be positive");
  need(m.hidden > 0, "hidden must be positive");
  need(m.ffn_hidden > 0, "ffn_hidden must be positive");
  need(m.heads > 0, "heads must be positive");
  need(m.hidden % m.heads == 0, "heads (" + std::to_string(m.heads) + ") must divide hidden (" +
                                    std::to_string(m.hidden) + ")");
  need(m.kv_heads > 0 && m.heads % m.kv_heads == 0, "kv_heads (" + std::to_string(m.kv_heads) +
                                                        ") must divide heads (" +
                                                        std::to_string(m.heads) + ")");
  need(m.seq_len > 0, "seq_len must be positive");
  need(m.vocab > 0, "vocab must be positive");
  need(m.experts >= 1, "experts must be at least 1");
  need(m.top_k >= 1 && m.top_k <= m.experts, "top_k (" + std::to_string(m.top_k) +
                                                 ") must be between 1 and experts (" +
                                                 std::to_string(m.experts) + ")");
}

}  // namespace fabricsim::workload
