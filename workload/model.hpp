#pragma once
// A transformer language model as the training generator needs it: the shapes of its layers.
// Models are data (workload/models/*.yaml, read by tools/); this is the parsed form.
#include <cstdint>
#include <string>

namespace fabricsim::workload {

// How the model encodes positions (Megatron's --position-embedding-type): a learned table of
// seq_len x hidden (GPT), or rotary / none, which have no weights.
enum class PositionEmbedding : std::uint8_t { Learned, Rope, None };

struct ModelSpec {
  std::string name;
  int layers = 0;
  int hidden = 0;
  int ffn_hidden = 0;  // per expert for MoE models
  int heads = 0;
  int kv_heads = 0;  // grouped-query attention; == heads for multi-head attention
  int seq_len = 0;
  int vocab = 0;
  int experts = 1;      // 1: dense
  int top_k = 1;        // experts each token visits
  bool swiglu = false;  // gated FFN: three weight matrices instead of two
  bool causal = true;
  PositionEmbedding positions = PositionEmbedding::Learned;
  std::string source;  // where the figures come from

  int head_dim() const { return hidden / heads; }
  bool moe() const { return experts > 1; }
};

// Weights of one transformer layer (attention + FFN, with biases and two layer norms).
double layer_params(const ModelSpec& m);
// The first stage's embeddings on one of `tp` ranks: its 1/tp of the vocabulary-parallel word
// embedding (which the output layer shares, as GPT does) and the whole learned position table,
// which Megatron keeps whole on every rank (a plain nn.Embedding in LanguageModelEmbedding).
double embedding_params(const ModelSpec& m, int tp = 1);
// The weight matrices of one expert's FFN (of the FFN of a dense model): two, three with SwiGLU.
double expert_params(const ModelSpec& m);
double total_params(const ModelSpec& m);

// Checks the figures (positive, heads divide hidden, kv_heads divide heads, top_k <= experts);
// throws std::invalid_argument naming the field.
void validate(const ModelSpec& m);

}  // namespace fabricsim::workload
