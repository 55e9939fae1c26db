#pragma once
// Small GPT-style models for workload tests: every dimension given, nothing from a file.
#include "workload/model.hpp"

namespace fabricsim::workload::test {

inline ModelSpec gpt(int layers, int hidden, int heads, int seq, int vocab) {
  ModelSpec m;
  m.name = "test-gpt";
  m.layers = layers;
  m.hidden = hidden;
  m.ffn_hidden = 4 * hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.seq_len = seq;
  m.vocab = vocab;
  return m;
}

}  // namespace fabricsim::workload::test
