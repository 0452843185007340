#include "models/roofline_latency_model.h"

#include <algorithm>
#include <cstdio>

#include "sim/base/check.h"

namespace efimsim {

int64_t PadToCaptureSize(int64_t batch) {
  if (batch <= 1) return 1;
  if (batch <= 2) return 2;
  if (batch <= 4) return 4;
  if (batch <= 512) return (batch + 7) / 8 * 8;
  return batch;  // beyond the largest capture size vLLM runs eagerly
}

RooflineLatencyModel::RooflineLatencyModel(ModelSpec model, GpuSpec gpu,
                                           CpuOverheadConfig overhead)
    : model_(std::move(model)), gpu_(std::move(gpu)), overhead_(overhead),
      flops_per_second_(gpu_.achievable_bf16_tflops * 1e12),
      bytes_per_second_(gpu_.achievable_hbm_tbps * 1e12) {
  EFIMSIM_CHECK(flops_per_second_ > 0 && bytes_per_second_ > 0, "GPU ceilings must be positive");
}

std::string RooflineLatencyModel::Description() const {
  char text[512];
  std::snprintf(text, sizeof text,
                "roofline (approximate, uncalibrated): operators at max(FLOPs/%.0f TFLOP/s, "
                "bytes/%.2f TB/s) of %s, CPU overheads are defaults (step %.0f us, per sequence "
                "%.0f us, %s)",
                gpu_.achievable_bf16_tflops, gpu_.achievable_hbm_tbps, gpu_.name.c_str(),
                overhead_.step_us, overhead_.per_sequence_us,
                overhead_.cuda_graphs ? "CUDA graphs for decode-only steps" : "eager mode");
  return text;
}

double RooflineLatencyModel::OperatorSeconds(double flops, double bytes) const {
  return std::max(flops / flops_per_second_, bytes / bytes_per_second_);
}

// C[tokens, n] = A[tokens, k] x W[k, n], bf16 in and out.
double RooflineLatencyModel::GemmSeconds(double tokens, double n, double k) const {
  const double dtype = static_cast<double>(model_.dtype_bytes);
  const double flops = 2.0 * tokens * n * k;
  const double bytes = (k * n + tokens * k + tokens * n) * dtype;
  return OperatorSeconds(flops, bytes);
}

StepCost RooflineLatencyModel::Predict(std::span<const SequenceWork> batch) const {
  EFIMSIM_CHECK(!batch.empty(), "Predict on an empty batch");
  int64_t total_tokens = 0;
  int64_t emitting = 0;
  bool decode_only = true;
  for (const SequenceWork& seq : batch) {
    EFIMSIM_CHECK(seq.new_tokens >= 1 && seq.context_tokens >= 0, "bad sequence work");
    total_tokens += seq.new_tokens;
    emitting += seq.emits_token ? 1 : 0;
    decode_only = decode_only && seq.new_tokens == 1;
  }
  const bool graph_step = overhead_.cuda_graphs && decode_only && total_tokens <= 512;
  const double tokens =
      static_cast<double>(graph_step ? PadToCaptureSize(total_tokens) : total_tokens);

  const double layers = static_cast<double>(model_.layers);
  const double hidden = static_cast<double>(model_.hidden_size);
  const double q_width = static_cast<double>(model_.q_heads * model_.head_dim);
  const double kv_width = static_cast<double>(model_.kv_heads * model_.head_dim);
  const double ffn = static_cast<double>(model_.ffn_size);
  const double dtype = static_cast<double>(model_.dtype_bytes);
  const double up_width = model_.mlp == MlpKind::kGated ? 2.0 * ffn : ffn;

  const double gemm_per_layer = GemmSeconds(tokens, q_width + 2.0 * kv_width, hidden) +
                                GemmSeconds(tokens, hidden, q_width) +
                                GemmSeconds(tokens, up_width, hidden) +
                                GemmSeconds(tokens, hidden, ffn);

  // Attention: causal over (context + own earlier new tokens), all layers.
  double attention = 0.0;
  for (const SequenceWork& seq : batch) {
    const double n = static_cast<double>(seq.new_tokens);
    const double c = static_cast<double>(seq.context_tokens);
    const double flops = 4.0 * q_width * n * (c + (n + 1.0) / 2.0);
    const double bytes = ((c + n) * 2.0 * kv_width + 2.0 * n * q_width) * dtype;
    attention += OperatorSeconds(flops, bytes);
  }
  attention *= layers;

  // Per-token memory traffic of the small operators of one layer, in
  // elements: 2 RMSNorms (read+write H), 2 residual adds (2 reads + write),
  // RoPE on q and k (read+write), activation (read up_width, write ffn),
  // KV cache write (read+write K and V).
  const double elementwise_elements =
      2.0 * 2.0 * hidden + 2.0 * 3.0 * hidden + 2.0 * (q_width + kv_width) + up_width + ffn +
      4.0 * kv_width;
  const double elementwise = layers * tokens * elementwise_elements * dtype / bytes_per_second_;

  const double vocab = static_cast<double>(model_.vocab_size);
  const double lm_head =
      emitting > 0 ? GemmSeconds(static_cast<double>(emitting), vocab, hidden) : 0.0;

  const double gpu_seconds = gemm_per_layer * layers + attention + elementwise + lm_head;
  const double launch_seconds =
      1e-6 * (graph_step ? overhead_.graph_launch_us
                         : overhead_.eager_launch_per_layer_us * layers);
  const double cpu_seconds =
      1e-6 * (overhead_.step_us + overhead_.per_sequence_us * static_cast<double>(batch.size())) +
      std::max(0.0, launch_seconds - gpu_seconds);

  StepCost cost;
  cost.gemm = FromSeconds(gemm_per_layer * layers);
  cost.attention = FromSeconds(attention);
  cost.elementwise = FromSeconds(elementwise);
  cost.lm_head = FromSeconds(lm_head);
  cost.cpu_overhead = FromSeconds(cpu_seconds);
  return cost;
}

}  // namespace efimsim
