#pragma once
// What an engine registers (EngineEntry): a factory of its core
// (engine_core.h), its option tables, a check of its settings, the
// description of its settings for summary.json and what its optional parts
// add to a run's outputs. Engine folders (vllm/, sglang/) include this and
// never engines.h: the registry that names them all (engines.h) sits above
// them, and each folder builds as its own library (sim/CMakeLists.txt).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/formats/model_spec.h"
#include "sim/base/bound_params.h"
#include "sim/base/option_store.h"
#include "sim/metrics/run_info.h"
#include "sim/metrics/summary.h"
#include "sim/engine/engine_config.h"
#include "sim/engine/engine_core.h"
#include "sim/engine/kv_link.h"
#include "sim/engine/kv_capacity.h"

namespace efimsim {

// An engine's own option table, bound to its config struct inside the
// run's engine OptionStore (bound_params.h, StoredPart), its rows scoped to
// the engine, so setting one under another --engine is refused.
using EngineOptionTable = BoundParamTable<OptionStore>;

// A row of the compare table for an engine's optional part (vLLM: the CPU
// KV tier), read from a finished run's summary.
struct EngineReportRow {
  std::string label;
  std::string (*value)(const RunSummary& summary) = nullptr;
  // Shown when some run of the table satisfies it; null: whenever a run of
  // the engine has part counters.
  bool (*applies)(const RunSummary& summary) = nullptr;
};

// Everything an engine's set-up reads: the shared settings, the engine's
// own (its tables' structs in `options`), the model and GPU, the KV size
// and whether the policy caches prefixes.
struct EngineContext {
  const EngineConfig& engine;
  const OptionStore& options;
  const ModelSpec& model;
  const GpuSpec& gpu;
  const KvCapacity& capacity;
  bool prefix_caching = true;
  // Disaggregated serving: a decode replica's link for pulling prefill
  // replicas' KV (kv_link.h); disabled for co-located and prefill replicas.
  KvLinkSpec kv_link{};
};

// The rule a data-parallel group routes new requests to its ranks by
// (data_parallel_group.h says where each comes from).
enum class DataParallelRouting : uint8_t {
  kVllmLoadScore,    // vLLM: lowest 4 x waiting + running, from published counts
  kSglangRoundRobin,  // SGLang's data-parallel controller: ranks in turn
};

struct EngineEntry {
  // The engine's batch limits (vLLM: --max-num-batched-tokens,
  // --max-num-seqs), listed right after the shared model and GPU rows in
  // --help, sweeps and the engine section (EngineTargetParams, engine_config.h);
  // null: none.
  std::vector<EngineOptionTable> (*limit_option_tables)() = nullptr;
  // The engine's own option tables, listed after EngineParams in --help,
  // sweeps and run descriptions; null: none.
  std::vector<EngineOptionTable> (*option_tables)() = nullptr;
  // The option tables of the engine's optional parts (vLLM: the CPU KV
  // tier), listed after the latency model's; null: none.
  std::vector<EngineOptionTable> (*part_option_tables)() = nullptr;
  // Throws UsageError naming the option when the engine cannot run with
  // these settings. Called before any replica exists.
  void (*validate)(const EngineContext& context) = nullptr;
  // Decoder layers of a draft head the engine keeps beside the model, with
  // their KV in the same cache (kv_capacity.h): vLLM's EAGLE, EAGLE-3 and
  // MTP drafters. Called before the KV capacity exists (its context has
  // only the options and the model); null or 0: none.
  int64_t (*draft_layers)(const OptionStore& options, const ModelSpec& model) = nullptr;
  // A separate draft model the engine runs beside the model (vLLM's
  // draft_model method): its spec name or path as given, or "" for none;
  // the run loads it, sizes the KV cache with its weights and KV, and
  // prices its forwards with its own latency model. Null: none.
  std::string (*draft_model)(const OptionStore& options, const ModelSpec& model) = nullptr;
  // Disaggregated serving: whether a decode replica keeps a prefix cache
  // (vLLM's does; SGLang's PD decode runs a ChunkCache).
  bool pd_decode_prefix_caching = true;
  // How a data-parallel group routes requests to its ranks
  // (data_parallel_group.h).
  DataParallelRouting data_parallel_routing = DataParallelRouting::kVllmLoadScore;
  // One replica's core.
  std::unique_ptr<EngineCore> (*make)(const EngineContext& context) = nullptr;
  // Bytes one replica's KV structures will take (block pool, key index,
  // radix tree, optional tiers), estimated from their sizes before they are
  // allocated (sim/run/memory_budget.h), with the options they grow with.
  double (*memory_bytes)(const EngineContext& context) = nullptr;
  // The "engine" section's leading settings: name, semantics and the
  // engine's own options (the shared settings and the limit tables' rows
  // follow).
  void (*describe)(const EngineContext& context, std::vector<Setting>& settings) = nullptr;
  // Sections of the engine's optional parts (vLLM: the CPU KV tier), if
  // any; written after the run's other descriptions.
  void (*describe_parts)(const EngineContext& context, RunInfo& info) = nullptr;
  // The run header's one-line engine summary, from a finished run's "engine"
  // section (what describe wrote and the shared settings).
  std::string (*headline)(const RunInfo& info) = nullptr;

  // What the engine's optional parts add to a finished run's outputs; all
  // null for an engine without such parts. Their counters travel in
  // EngineCounters::parts (named, with how replicas combine).
  // Sections under summary.json's "results", from the summary's counters.
  void (*summarize_parts)(const RunSummary& summary, std::vector<RunInfoSection>& results) = nullptr;
  // Counter names that sweep.csv lists as columns for every run (0 where a
  // run lacks them), in this order, after the shared metrics.
  std::vector<std::string> (*sweep_counters)() = nullptr;
  // Rows the compare table adds when a run of this engine has part counters.
  std::vector<EngineReportRow> (*report_rows)() = nullptr;
  // Lines of the run header for the parts a run used ("" when none).
  std::string (*part_headline)(const RunInfo& info) = nullptr;
};

// For an engine's RejectReason: "prompt + max output tokens (N) exceeds the
// model's context (M)" when a request of `longest` tokens exceeds
// max_context_tokens (> 0); empty otherwise.
std::string ContextRejectReason(int64_t longest, int64_t max_context_tokens);

}  // namespace efimsim
