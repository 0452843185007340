#pragma once
// A kernel profile: per-operator times measured by efimsim-calibrate
// (kernels/) on one GPU for one model's shapes. The format is documented in
// models/PROFILE.md; this is its in-memory form, as read (times in the
// file's microseconds). The parser checks the format (keys, types, order);
// the profile latency model checks that the shapes match its model spec.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/formats/profile_table.h"

namespace efimsim {

// One measured point of a 1-key table (GEMM over m, elementwise over tokens).
struct ProfilePoint {
  int64_t key = 0;
  double time_us = 0;
};

// One measured point of a 2-key attention table.
struct AttentionPoint {
  int64_t rows = 0;            // prefill: new_tokens of one sequence; decode: batch
  int64_t context_tokens = 0;  // tokens already in the KV cache (per sequence)
  double time_us = 0;
};

struct GemmTable {
  std::string name;  // "qkv_proj", "o_proj", "gate_up_proj", "down_proj", "lm_head"
  int64_t n = 0;
  int64_t k = 0;
  std::vector<ProfilePoint> points;  // key: m; sorted, unique
  // The weights' format the times were measured with: "bfloat16" (every
  // profile file) or, set by the shape rule from FP8 tables, "fp8" /
  // "fp8_block". A BF16 table pricing an FP8 run is rescaled by its fit
  // (flagged).
  std::string weight_dtype = "bfloat16";
  // Not in files: set by the shape rule (models/latency/shape_rule.h) when the
  // table was transferred from other measured shapes; lookups are flagged.
  bool transferred = false;
};

struct AttentionTable {
  int64_t q_heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t block_tokens = 0;
  std::vector<AttentionPoint> points;  // sorted by (rows, context), unique; empty = no table
  bool transferred = false;            // as GemmTable::transferred
  // The KV cache's format the times were measured with: "bfloat16", or
  // "fp8" (set by the shape rule from FP8-KV tables); as weight_dtype.
  std::string kv_cache_dtype = "bfloat16";
};

struct ElementwiseTable {
  std::string name;  // "rmsnorm", "rope", "silu_and_mul", "gelu", "residual_add", "kv_cache_write", "sampling"
  std::vector<ProfilePoint> points;  // key: tokens; sorted, unique
  // "measured" (the default), or "modelled: <how>" for a table computed from
  // a documented kernel-by-kernel model rather than timed; the latency model
  // flags every prediction that uses a modelled table.
  std::string source = "measured";
  bool Modelled() const { return source.rfind("modelled", 0) == 0; }
};

// Optional, MoE models only: one MoE layer's fused experts kernel on one GPU,
// key = tokens of the step. Not in profile files: the shape rule resolves it
// from a shape profile's moe tables (models/latency/shape_rule.h).
struct MoeTable {
  std::string kernel;        // what the source timed ("vllm fused_moe triton", ...)
  // The routing the source timed, as shape profiles key it
  // (ShapeMoeKey::distribution): "balanced" (tokens spread evenly, the most
  // experts touched: AIConfigurator), "uniform" (expected distinct experts
  // of random top-k choices) or "power_law_1.2"; the profile model carries
  // a balanced table to the run's routing by its fit.
  std::string distribution;
  std::string weight_dtype = "bfloat16";  // as GemmTable::weight_dtype
  // True when the source timed the whole sparse-MoE block, router included
  // (LLMServingSim): the router GEMM is then priced inside this table.
  bool includes_router = false;
  std::vector<ProfilePoint> points;  // key: tokens; sorted, unique
  bool transferred = false;          // as GemmTable::transferred
};

// Optional (an efimsim extension, see PROFILE.md): all-reduce of the hidden
// state across `tensor_parallel` GPUs, key = tokens.
struct AllReduceTable {
  int64_t tensor_parallel = 0;
  std::vector<ProfilePoint> points;
};

// Optional (efimsim-calibrate repeats each sweep): run-to-run noise of one
// table, the relative spread (max - min) / min of each point's medians over
// the repetitions, as its maximum and median over the table's points.
struct ProfileTableNoise {
  std::string table;  // "gemm/<name>", "prefill_attention", "decode_attention", "elementwise/<name>"
  int64_t points = 0;
  double max_rel_diff = 0;
  double median_rel_diff = 0;
};
struct ProfileSweepRepetitions {
  int64_t count = 0;       // sweeps run; 0: not recorded
  std::string combine;     // how the repetitions' medians make a table's time ("minimum")
  std::vector<ProfileTableNoise> tables;
};

struct ProfileProvenance {
  std::string gpu_name;
  int64_t sm_count = 0;
  int64_t sm_clock_mhz = 0;
  int64_t memory_clock_mhz = 0;
  std::string driver_version;
  std::string cuda_runtime_version;
  std::string git_commit;
  std::string date_utc;
  ProfileSweepRepetitions sweep_repetitions;  // count 0 when the file has none
};

// Where an imported profile's numbers come from (PROFILE.md, "source"):
// absent for profiles measured by efimsim's own harness.
struct ProfileSourceFile {
  std::string path;    // as given to `efimsim profile import`
  std::string sha256;  // of the file's bytes, lowercase hex
};
struct ProfileSource {
  std::string kind;   // "pytorch-reference", "vidur", "llmservingsim" or "aiconfigurator"
  std::string stack;  // the measuring software stack, in words
  std::string method; // how the importer turned the files into tables
  std::vector<ProfileSourceFile> files;
};

struct ProfileCpuOverhead {
  std::string source;  // "default", or "measured: <how>"
  double step_us = 0;
  double per_sequence_us = 0;
  double per_layer_launch_us = 0;
  std::vector<int64_t> graph_capture_batch_sizes;  // sorted ascending, unique, non-empty
  bool Measured() const { return source.rfind("measured", 0) == 0; }
};

struct KernelProfile {
  std::string origin;  // file path or "built-in profile <gpu>/<model>", for messages
  std::string gpu;
  std::string model;
  std::string command;
  std::string gemm_kernel;
  std::string prefill_attention_kernel;
  std::string decode_attention_kernel;
  std::string elementwise_kernel;
  ProfileProvenance provenance;
  std::optional<ProfileSource> source;  // set for imported profiles
  Interpolation interpolation = Interpolation::kLogLog;  // inside measured grids
  std::vector<GemmTable> gemm;
  AttentionTable prefill_attention;
  AttentionTable decode_attention;
  std::vector<ElementwiseTable> elementwise;
  std::vector<AllReduceTable> all_reduce;
  std::optional<MoeTable> moe;  // MoE models resolved from a shape profile only
  ProfileCpuOverhead cpu_overhead;
  // The tensor parallelism whose per-GPU shapes the tables hold (GEMM n and
  // k, attention heads, all-reduce group). 1 for every file (the latency
  // model rescales to the run's TP); a profile resolved from a shape profile
  // (models/latency/shape_rule.h) holds the run's own shards.
  int64_t tensor_parallel = 1;
};

// Parsers and finders (profile_io.cc). Bad content: InputError naming the
// origin and the field path.
KernelProfile ParseKernelProfile(const std::string& json_text, const std::string& origin);
// The profile as PROFILE.md's JSON (keys in its order, two-space indent,
// ending in a newline); ParseKernelProfile reads it back to an equal profile.
std::string KernelProfileJson(const KernelProfile& profile);
KernelProfile LoadKernelProfile(const std::string& path);
// Where a profile's numbers come from: its source.kind, or "efimsim-kernels"
// for profiles measured by efimsim's own harness (kernels/).
std::string ProfileSourceName(const KernelProfile& profile);
// The profile compiled in from models/profiles/<gpu>/<source>/<model>.json,
// if any; parsed once per process (thread-safe), a copy per call.
std::optional<KernelProfile> FindBuiltinKernelProfile(const std::string& gpu,
                                                      const std::string& source,
                                                      const std::string& model);
// "<gpu>/<source>/<model>" of every built-in profile, sorted.
std::vector<std::string> BuiltinKernelProfileNames();

}  // namespace efimsim
