#pragma once
// A shape-keyed kernel profile: one GPU's measured kernel times for one
// serving engine's software stack, keyed by operator shape rather than by
// model, so that it prices any model (models/latency/shape_rule.h turns it
// into a model's KernelProfile). Imported from NVIDIA AIConfigurator's
// database (`efimsim profile import --from aiconfigurator`); the format is
// documented in models/PROFILE.md ("Shape profiles"). Times in
// microseconds, per launch of one layer's operator on one GPU.
//
// Tables:
//   gemm               Y[m, n] = X[m, k] W^T, bf16, by (n, k) over m
//   prefill_attention  one sequence of `tokens` new tokens, nothing cached,
//                      by (q heads, KV heads, head dim) per GPU over tokens
//   decode_attention   `batch` sequences of one new token each over
//                      `context` cached tokens, by heads: rows per batch
//   all_reduce         the engine's TP all-reduce of `bytes` per GPU, by GPUs
// Optional tables (older files have none; each may be empty):
//   gemm_fp8           FP8 GEMMs ("fp8" per-tensor, "fp8_block" 128x128 block
//                      scales), bf16 activations in and out: per dtype, by (n, k) over m
//   prefill_attention_fp8kv, decode_attention_fp8kv
//                      as the bf16 ones, over an FP8 (e4m3) KV cache, bf16 compute
//   moe                one MoE layer's routed experts (fused kernel) on one
//                      GPU, by (dtype, hidden, inter, top-k, experts, tp, ep,
//                      routing) over tokens
//   mla                multi-head latent attention kernels of one latent
//                      geometry and KV-cache dtype: prefill (every head over
//                      the expanded K and V, nothing cached) by heads over
//                      tokens, and absorbed decode over the cached latent by
//                      heads: rows per batch over context (ShapeMlaAttention)
// Elementwise operators have no table in the source: they are priced by the
// source's own analytic rule (ElementwiseRule), and flagged modelled.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/formats/kernel_profile.h"

namespace efimsim {

struct ShapeGemmTable {
  int64_t n = 0;
  int64_t k = 0;
  std::vector<ProfilePoint> points;  // key: m; sorted, unique
};

// The GEMMs of one quantized weight format.
struct ShapeGemmDtype {
  std::string dtype;    // "fp8" | "fp8_block"
  std::string kernels;  // what the source dispatched, comma-separated
  std::vector<ShapeGemmTable> tables;  // sorted by (n, k), unique
};

struct ShapeHeads {
  int64_t q_heads = 0;   // per GPU
  int64_t kv_heads = 0;  // per GPU
  int64_t head_dim = 0;
  friend bool operator==(const ShapeHeads&, const ShapeHeads&) = default;
  friend auto operator<=>(const ShapeHeads&, const ShapeHeads&) = default;
};

struct ShapePrefillTable {
  ShapeHeads heads;
  std::vector<ProfilePoint> points;  // key: new tokens (nothing cached); sorted, unique
};

struct ShapeDecodeTable {
  ShapeHeads heads;
  // rows = batch, context_tokens = tokens already cached per sequence;
  // sorted by (batch, context), unique; rows may have different contexts.
  std::vector<AttentionPoint> points;
};

struct ShapeAllReduceTable {
  int64_t gpus = 0;                  // TP group size
  std::vector<ProfilePoint> points;  // key: bytes per GPU; sorted, unique
};

// The key of one MoE table, as AIConfigurator's moe.csv keys its rows.
struct ShapeMoeKey {
  std::string dtype;         // expert weights: "bfloat16" | "fp8" | "fp8_block"
  int64_t hidden = 0;        // the model's hidden size
  int64_t inter = 0;         // one expert's full intermediate size (not divided by tp)
  int64_t topk = 0;          // routed experts per token
  int64_t experts = 0;       // routed experts of the model (all GPUs)
  int64_t tp = 1;            // each expert split tp ways along inter (this GPU: inter / tp)
  int64_t ep = 1;            // experts spread over ep GPUs (this GPU: experts / ep)
  // routing: "balanced" (every expert gets tokens x topk / experts),
  // "uniform" (random top-k: the expected distinct experts), "power_law_1.2"
  std::string distribution;
  friend bool operator==(const ShapeMoeKey&, const ShapeMoeKey&) = default;
  friend auto operator<=>(const ShapeMoeKey&, const ShapeMoeKey&) = default;
};

struct ShapeMoeTable {
  ShapeMoeKey key;
  std::string kernel;                // the source's kernel_source of the key's first row
  // The source timed the whole sparse-MoE block, router included
  // (LLMServingSim); file key "includes_router", written only when true.
  bool includes_router = false;
  std::vector<ProfilePoint> points;  // key: tokens entering the layer (whole batch); sorted, unique
};

// MLA attention kernels (AIConfigurator's SGLang context_mla and
// generation_mla) of one latent geometry and KV-cache dtype. Tables are
// keyed by ShapeHeads{heads, heads, qk_nope + qk_rope} (prefill) and
// ShapeHeads{heads, 1, kv_lora_rank} (decode), heads on this GPU.
struct ShapeMlaAttention {
  std::string kv_cache_dtype;  // "bfloat16" | "fp8"
  int64_t kv_lora_rank = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t v_head_dim = 0;
  std::string kernel;                      // the source's kernel_source
  std::vector<ShapePrefillTable> prefill;  // sorted by heads, unique
  std::vector<ShapeDecodeTable> decode;    // sorted by heads, unique
};

// The source's analytic price of an elementwise kernel moving `bytes`:
// bytes / (memory_bytes_per_second x bandwidth_fraction) + constant_us.
struct ElementwiseRule {
  double memory_bytes_per_second = 0;  // the GPU's datasheet HBM bandwidth
  double bandwidth_fraction = 0;       // (0, 1]
  double constant_us = 0;              // >= 0
  double Microseconds(double bytes) const {
    return bytes / (memory_bytes_per_second * bandwidth_fraction) * 1e6 + constant_us;
  }
};

// The GPU's datasheet ceilings as the source states them: the speed-of-
// light bounds the shape rule measures utilisation against.
struct ShapeCeilings {
  double bf16_flops_per_second = 0;
  double memory_bytes_per_second = 0;
  double fp8_flops_per_second = 0;  // dense FP8 tensor; 0: none stated (no FP8 tables)
};

struct ShapeProfile {
  std::string origin;  // file path or "built-in shape profile ...", for messages
  std::string gpu;     // efimsim GPU name (models/gpus)
  std::string engine;  // efimsim engine whose kernels these are: "vllm_v1", "sglang"
  std::string command;
  ProfileSource source;  // kind "aiconfigurator"; stack names the framework version
  std::string device;    // the device name the source recorded
  std::string measured_on;
  ShapeCeilings ceilings;
  ElementwiseRule elementwise;
  std::vector<ShapeGemmTable> gemm;              // sorted by (n, k), unique
  std::vector<ShapePrefillTable> prefill_attention;  // sorted by heads, unique
  std::vector<ShapeDecodeTable> decode_attention;    // sorted by heads, unique
  std::vector<ShapeAllReduceTable> all_reduce;       // sorted by gpus, unique
  std::vector<ShapeGemmDtype> gemm_fp8;                    // sorted by dtype, unique
  std::vector<ShapePrefillTable> prefill_attention_fp8kv;  // sorted by heads, unique
  std::vector<ShapeDecodeTable> decode_attention_fp8kv;    // sorted by heads, unique
  std::vector<ShapeMoeTable> moe;                          // sorted by key, unique
  std::vector<ShapeMlaAttention> mla;  // sorted by (kv_cache_dtype, geometry), unique
};

// Parser and writer (shape_profile_io.cc). Bad content: InputError naming
// the origin and the field path. The writer's output reads back equal, with
// times rounded to 6 significant digits.
ShapeProfile ParseShapeProfile(const std::string& json_text, const std::string& origin);
std::string ShapeProfileJson(const ShapeProfile& profile);
ShapeProfile LoadShapeProfile(const std::string& path);

// Built-in shape profiles, models/shape_profiles/<gpu>/<source>/<engine>.json,
// parsed once per process and shared (thread-safe); null when none.
const ShapeProfile* FindBuiltinShapeProfile(const std::string& gpu, const std::string& source,
                                            const std::string& engine);
// "<gpu>/<source>/<engine>" of every built-in shape profile, sorted.
std::vector<std::string> BuiltinShapeProfileNames();

}  // namespace efimsim
