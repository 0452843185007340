#pragma once
// Which engine a run models (--engine) and the settings every engine reads
// (model, GPU, KV memory). Plain fields with defaults; the unit is in the
// name. EngineTargetParams() and EngineParams() document each one and drive
// --help and validation. An engine's own settings, its batch limits
// included (vLLM's --max-num-seqs), are its own tables in a run's engine
// OptionStore (engine_entry.h).

#include <cstdint>
#include <string>

#include "models/formats/model_spec.h"
#include "sim/base/params.h"

namespace efimsim {

struct EngineConfig {
  std::string name = "vllm_v1";        // --engine: a name registered in Engines() (engines.h)
  std::string model = "llama-3.1-8b";  // built-in name or spec path
  std::string gpu = "h100-sxm";        // built-in name or spec path
  int64_t block_tokens = 16;
  double gpu_memory_utilization = 0.9;
  // Memory the engine holds besides weights and KV: activation peak,
  // CUDA context, allocator slack. An estimate (vLLM start-up logs of 7-8B
  // models show 1-3 GiB); calibrate it against your server's log line
  // "the rest of the memory reserved for KV Cache".
  double non_kv_overhead_gib = 2.0;
  double gpu_memory_gib = 0.0;   // 0: the GPU spec's memory
  int64_t kv_blocks = 0;         // 0: derive from memory; > 0 overrides
  // vLLM's spellings of a deployment's settings, so a server's flags carry
  // over: --num-gpu-blocks-override (as --kv-blocks) and --max-model-len
  // (the longest prompt + output a request may have; 0: the model's).
  int64_t num_gpu_blocks_override = 0;
  int64_t max_model_len = 0;
  // How the model is served (vLLM's spellings; SGLang takes the same
  // --quantization, fp8_e4m3 for an FP8 KV cache, and --ep-size = --tp for
  // expert parallelism): "none" | "fp8" | "fp8_block" weights, "auto" |
  // "fp8" KV cache, experts spread over the TP group.
  std::string quantization = "none";
  std::string kv_cache_dtype = "auto";
  bool enable_expert_parallel = false;
  // vLLM's --data-parallel-size: engine cores ("ranks") per replica, each
  // on its own --tp GPUs (data_parallel_group.h); an MoE model's ranks step
  // together and its experts span all ranks' GPUs.
  int64_t data_parallel_size = 1;
  std::string moe_routing = "uniform";  // MoeRouting: how tokens spread over experts
  bool cuda_graphs = false;      // false: --enforce-eager, the paper's setup
  bool check_invariants = false; // verify block/request invariants after every step
};

// --model and --gpu: the rows listed first (the engines' limit tables
// follow them, then EngineParams).
const ParamTable<EngineConfig>& EngineTargetParams();
// The other shared rows, --engine last.
const ParamTable<EngineConfig>& EngineParams();

// The serving format the settings name (values checked by EngineParams).
ServingFormat ServingFormatOf(const EngineConfig& engine);
// The model spec engine.model as the engine serves it (ServedAs): what
// every part of a run sizes and prices. Throws as LoadModelSpec and ServedAs.
ModelSpec LoadServedModel(const EngineConfig& engine);

}  // namespace efimsim
