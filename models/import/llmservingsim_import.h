#pragma once
// `efimsim profile import --from llmservingsim --dir DIR`: a kernel profile
// from LLMServingSim's vLLM layer timings (casys-kaist/LLMServingSim
// profiler/perf/<HW>/<model>/<variant>/: meta.yaml and tp1/{dense,
// per_sequence,attention}.csv, microseconds; format in its
// docs/docs/profiler/output-bundle.md). Measured inside vLLM (its real
// layers, hooked; GPU kernel time from the layerwise profile, averaged
// over the run's measurement iterations), so the tables describe vLLM's own
// kernels on that GPU.

#include <cstdint>
#include <string>
#include <vector>

#include "models/formats/kernel_profile.h"
#include "models/formats/model_spec.h"
#include "models/import/profile_import.h"

namespace efimsim {

// One CSV of the bundle, as read: header names and numeric rows.
struct LlmServingSimCsv {
  std::string origin, sha256;
  std::vector<std::string> header;
  struct Row {
    int64_t line = 0;
    std::string layer;           // dense/per_sequence: first column; attention: ""
    std::vector<double> values;  // the numeric columns, in header order (layer excluded)
  };
  std::vector<Row> rows;
};

// `expected` is the exact header; `text_first` when the first column is a
// layer name. Throws InputError naming file, line and column for a wrong
// header, a row with the wrong number of fields, a value that is not a
// number, a key that is not a non-negative integer or a time that is not
// finite, > 0 and below kMaxSourceMilliseconds.
LlmServingSimCsv ParseLlmServingSimCsv(const std::string& text, const std::string& origin,
                                       const std::vector<std::string>& expected, bool text_first);

// The meta.yaml fields the import checks (flat `key: value` lines, nested
// keys by their own name).
struct LlmServingSimMeta {
  std::string origin, sha256;
  std::string vllm_version, cuda_version, gpu, model, profiled_at, variant;
  bool enforce_eager = false;
  // The shapes of the tp1 tables. meta.yaml's engine_effective describes
  // the bundle's last pass: with tp_degrees [1, T] its hf_overrides are the
  // TP T shard's per-GPU shapes (emulated on one GPU), so the parser
  // multiplies them by T (`tp1_scale`); the tp1 tables were timed at the
  // full shapes (the RTX PRO 6000 bundles: Llama-3.1-8B's tp1 gate_up_proj
  // reads 235 MB in 159.5 us, 82% of the card's bandwidth).
  int64_t intermediate_size = 0, num_attention_heads = 0, num_key_value_heads = 0, vocab_size = 0,
          block_size = 0, measurement_iterations = 0;
  int64_t tp1_scale = 1;  // the last of tp_degrees: what the overrides were divided by
};
LlmServingSimMeta ParseLlmServingSimMeta(const std::string& text, const std::string& origin);
// DIR/meta.yaml of a bundle, read and parsed (InputError naming the file).
LlmServingSimMeta LoadLlmServingSimMeta(const std::string& dir);

// Reads DIR/meta.yaml and DIR/tp1/*.csv and imports them for `model` on
// `gpu` (the meta's GPU name must be the spec's; the meta's shapes the
// model's).
KernelProfile ImportLlmServingSimProfile(const std::string& dir, const ModelSpec& model,
                                         const GpuSpec& gpu, const ImportSettings& settings,
                                         ImportReport& report);

}  // namespace efimsim
