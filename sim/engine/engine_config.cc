#include "sim/engine/engine_config.h"

#include "models/formats/spec_catalog.h"
#include "sim/engine/engines.h"

namespace efimsim {

const ParamTable<EngineConfig>& EngineTargetParams() {
  using C = EngineConfig;
  static const ParamTable<EngineConfig> table = {
      {{"model", "", "model: built-in name (see `efimsim models`), path to a spec JSON, or a Hugging Face config.json"},
       &C::model},
      {{"gpu", "", "GPU: built-in name (see `efimsim models`) or path to a spec JSON"}, &C::gpu},
  };
  return table;
}

const ParamTable<EngineConfig>& EngineParams() {
  using C = EngineConfig;
  static const ParamTable<EngineConfig> table = {
      {{"block-tokens", "tokens", "KV cache block (page) size", 1, 1024}, &C::block_tokens},
      {{"gpu-memory-utilization", "fraction", "share of GPU memory the engine may use", 0.01, 1.0},
       &C::gpu_memory_utilization},
      {{"non-kv-overhead-gib", "GiB",
        "memory besides weights and KV (activations, runtime); an estimate, calibrate it", 0},
       &C::non_kv_overhead_gib},
      {{"gpu-memory-gib", "GiB", "GPU memory; 0 takes the GPU spec's", 0}, &C::gpu_memory_gib},
      {{"kv-blocks", "blocks", "KV cache size; 0 derives it from memory", 0}, &C::kv_blocks},
      {{"num-gpu-blocks-override", "blocks",
        "vLLM's --num-gpu-blocks-override: the KV cache size as the server's start-up log gives "
        "it ('# GPU blocks'); the same as --kv-blocks", 0, kParamNoLimit, {},
        /*quiet_default=*/true},
       &C::num_gpu_blocks_override},
      {{"max-model-len", "tokens",
        "vLLM's --max-model-len: requests longer than this (prompt + max tokens) are refused; "
        "0 takes the model's context", 0, kParamNoLimit, {}, /*quiet_default=*/true},
       &C::max_model_len},
      {Quiet(Choice("quantization",
                    "vLLM's --quantization: linear-layer weights in FP8 (fp8: per-tensor scales, "
                    "as on a BF16 checkpoint; fp8_block: 128x128 block scales, as FP8 checkpoints "
                    "ship); halves their bytes and prices GEMMs from FP8 tables",
                    {"none", "fp8", "fp8_block"})),
       &C::quantization},
      {Quiet(Choice("kv-cache-dtype",
                    "vLLM's --kv-cache-dtype: fp8 stores K and V in one byte (twice the KV tokens) "
                    "and prices attention from FP8-KV tables",
                    {"auto", "fp8"})),
       &C::kv_cache_dtype},
      {{"enable-expert-parallel", "",
        "vLLM's --enable-expert-parallel (SGLang: --ep-size equal to --tp): MoE experts spread "
        "whole over the TP group instead of each split across it", -kParamNoLimit, kParamNoLimit,
        {}, /*quiet_default=*/true},
       &C::enable_expert_parallel},
      {{"data-parallel-size", "ranks",
        "vLLM's --data-parallel-size: engine cores per replica, each with its own scheduler, KV "
        "cache and --tp GPUs, requests routed to the least loaded (4 x waiting + running); an MoE "
        "model's ranks step together, its experts spread over all their GPUs (at most 8). SGLang: "
        "--dp-size D --enable-dp-attention with --tp D x this --tp, ranks in turn", 1, 64,
        {}, /*quiet_default=*/true},
       &C::data_parallel_size},
      {Quiet(Choice("moe-routing",
                    "how MoE steps are priced: uniform (each token picks its top-k experts at "
                    "random, so small batches touch fewer experts), balanced (tokens spread "
                    "evenly, touching the most experts, as AIConfigurator timed its MoE tables) or "
                    "power-law (skewed expert popularity, from AIConfigurator's power_law_1.2 "
                    "tables; without one, priced as uniform and flagged)",
                    {"uniform", "balanced", "power-law"})),
       &C::moe_routing},
      {{"cuda-graphs", "", "use CUDA graphs for decode-only steps (false = enforce-eager)"},
       &C::cuda_graphs},
      {{"check-invariants", "", "verify KV block and request invariants after every step (slow)"},
       &C::check_invariants},
      // Last, so sweep.csv's columns keep their order (it followed these).
      {Choice("engine", "serving engine modelled", Engines().Names()), &C::name},
  };
  return table;
}

ServingFormat ServingFormatOf(const EngineConfig& engine) {
  ServingFormat format;
  if (engine.quantization == "fp8") format.quantization = WeightQuantization::kFp8;
  if (engine.quantization == "fp8_block") format.quantization = WeightQuantization::kFp8Block;
  if (engine.kv_cache_dtype == "fp8") format.kv_cache_dtype = KvCacheDtype::kFp8;
  format.expert_parallel = engine.enable_expert_parallel;
  format.data_parallel = engine.data_parallel_size;
  if (engine.moe_routing == "balanced") format.moe_routing = MoeRouting::kBalanced;
  if (engine.moe_routing == "power-law") format.moe_routing = MoeRouting::kPowerLaw;
  return format;
}

ModelSpec LoadServedModel(const EngineConfig& engine) {
  return ServedAs(LoadModelSpec(engine.model), ServingFormatOf(engine));
}

}  // namespace efimsim
