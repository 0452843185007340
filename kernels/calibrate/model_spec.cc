#include "model_spec.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

namespace efimsim::kernels {
namespace {

int positive_int(const json::Value& doc, const char* key) {
  const std::int64_t v = doc.at(key).as_int();
  if (v <= 0 || v > (1ll << 31) - 1) throw json::Error(std::string("model spec: \"") + key + "\" must be a positive int");
  return static_cast<int>(v);
}

}  // namespace

ModelSpec model_spec_from_json(const json::Value& doc) {
  ModelSpec m;
  m.name = doc.at("name").as_string();
  m.layers = positive_int(doc, "layers");
  m.hidden_size = positive_int(doc, "hidden_size");
  m.q_heads = positive_int(doc, "q_heads");
  m.kv_heads = positive_int(doc, "kv_heads");
  m.head_dim = positive_int(doc, "head_dim");
  m.ffn_size = positive_int(doc, "ffn_size");
  m.vocab_size = positive_int(doc, "vocab_size");
  m.max_context_tokens = positive_int(doc, "max_context_tokens");
  const std::string& mlp = doc.at("mlp").as_string();
  if (mlp != "gated" && mlp != "plain") throw json::Error("model spec: \"mlp\" must be \"gated\" or \"plain\"");
  m.gated_mlp = mlp == "gated";
  if (doc.contains("activation")) m.activation = doc.at("activation").as_string();
  m.mla = doc.contains("mla");
  if (doc.at("dtype").as_string() != "bfloat16") throw json::Error("model spec: only \"dtype\": \"bfloat16\" is calibrated");
  if (m.q_heads % m.kv_heads != 0) throw json::Error("model spec: q_heads must be a multiple of kv_heads");
  if (m.name.empty()) throw json::Error("model spec: empty \"name\"");
  // The GEMM widths gemm_shapes derives are ints (kernel arguments): each
  // must fit, computed here in 64 bits.
  const std::int64_t hq = std::int64_t{m.q_heads} * m.head_dim;
  const std::int64_t hkv = std::int64_t{m.kv_heads} * m.head_dim;
  const std::int64_t gate_up = (m.gated_mlp ? 2 : 1) * std::int64_t{m.ffn_size};
  constexpr std::int64_t kMaxWidth = (std::int64_t{1} << 31) - 1;
  if (hq + 2 * hkv > kMaxWidth) {
    throw json::Error("model spec: (q_heads + 2 * kv_heads) * head_dim = " + std::to_string(hq + 2 * hkv) +
                      " is beyond the kernels' int range");
  }
  if (gate_up > kMaxWidth) {
    throw json::Error("model spec: \"ffn_size\" " + std::to_string(m.ffn_size) +
                      (m.gated_mlp ? " (x2, gated)" : "") + " is beyond the kernels' int range");
  }
  return m;
}

ModelSpec read_model_spec(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw json::Error("cannot open model spec " + path);
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return model_spec_from_json(json::parse(text.str()));
  } catch (const json::Error& e) {
    throw json::Error(path + ": " + e.what());
  }
}

std::vector<GemmShape> gemm_shapes(const ModelSpec& m) {
  const int hq = m.q_heads * m.head_dim;
  const int hkv = m.kv_heads * m.head_dim;
  return {
      {"qkv_proj", hq + 2 * hkv, m.hidden_size},
      {"o_proj", m.hidden_size, hq},
      {"gate_up_proj", m.gated_mlp ? 2 * m.ffn_size : m.ffn_size, m.hidden_size},
      {"down_proj", m.hidden_size, m.ffn_size},
      {"lm_head", m.vocab_size, m.hidden_size},
  };
}

std::vector<ElementwiseOp> elementwise_ops(const ModelSpec& m) {
  const std::int64_t h = m.hidden_size;
  const std::int64_t q = static_cast<std::int64_t>(m.q_heads) * m.head_dim;
  const std::int64_t kv = static_cast<std::int64_t>(m.kv_heads) * m.head_dim;
  const std::int64_t f = m.ffn_size;
  return {
      {"rmsnorm", 2 * (h + h)},                 // read x, write out
      {"rope", 2 * 2 * (q + kv)},               // q and k in place
      m.gated_mlp ? ElementwiseOp{"silu_and_mul", 2 * (2 * f + f)}  // read gate|up, write out
                  : ElementwiseOp{"gelu", 2 * (f + f)},             // read up, write out
      {"residual_add", 2 * (3 * h)},            // read a, b; write out
      {"kv_cache_write", 2 * 2 * (2 * kv)},     // read k, v; write both into pages
  };
}

std::vector<int> token_grid(bool quick) {
  std::vector<int> grid;
  for (int t = 1; t <= 16384; t *= quick ? 8 : 2) grid.push_back(t);
  if (grid.back() != 16384) grid.push_back(16384);
  return grid;
}

std::vector<int> sampling_grid(bool quick) {
  if (quick) return {1, 64, 4096};
  std::vector<int> grid;
  for (int r = 1; r <= 4096; r *= 2) grid.push_back(r);
  return grid;
}

double sampling_bytes(const ModelSpec& m, int rows) {
  return static_cast<double>(rows) * (4.0 * m.vocab_size + 4.0 + 4.0);
}

std::vector<PrefillPoint> prefill_grid(const ModelSpec& m, bool quick) {
  const std::vector<int> news = quick ? std::vector<int>{16, 512, 4096}
                                      : std::vector<int>{16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  const std::vector<int> contexts = quick ? std::vector<int>{0, 4096}
                                          : std::vector<int>{0, 256, 1024, 2048, 4096, 8192, 16384, 32768};
  std::vector<PrefillPoint> grid;
  for (int n : news) {
    for (int c : contexts) {
      if (static_cast<std::int64_t>(n) + c <= m.max_context_tokens) grid.push_back({n, c});
    }
  }
  return grid;
}

std::vector<DecodePoint> decode_grid(const ModelSpec& m, std::int64_t max_kv_tokens, bool quick) {
  const std::vector<int> batches = quick ? std::vector<int>{1, 64} : std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256};
  const std::vector<int> contexts = quick ? std::vector<int>{256, 4096}
                                          : std::vector<int>{128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
  std::vector<DecodePoint> grid;
  for (int b : batches) {
    for (int c : contexts) {
      if (c <= m.max_context_tokens && static_cast<std::int64_t>(b) * c <= max_kv_tokens) grid.push_back({b, c});
    }
  }
  return grid;
}

double prefill_attention_flops(const ModelSpec& m, int new_tokens, int context_tokens) {
  // Query i sees context + i + 1 keys; two matrix products of 2 FLOPs per MAC.
  const double n = new_tokens;
  const double visible = n * context_tokens + n * (n + 1) / 2;
  return 4.0 * visible * m.q_heads * m.head_dim;
}

double decode_attention_bytes(const ModelSpec& m, int batch, int context_tokens) {
  const double kv = 2.0 * batch * context_tokens * m.kv_heads * m.head_dim * 2;
  const double q_and_out = 2.0 * batch * m.q_heads * m.head_dim * 2;
  return kv + q_and_out;
}

}  // namespace efimsim::kernels
