#pragma once
// Kernel profiles from measurements made outside efimsim (`efimsim profile
// import`): the PyTorch reference timings of ../shared/data/gpu and Vidur's
// published profiling CSVs. An import maps shapes honestly: a source whose
// shapes are not the model's is refused with a message naming both; tables a
// source lacks stay missing (the latency model prices them by the roofline
// and flags them). Every imported profile names its files by SHA-256, the
// measuring stack, and says it is not efimsim's kernels (PROFILE.md,
// "source").
//
// Units: the sources' milliseconds become the profile's microseconds here.

#include <cstdint>
#include <map>
#include <tuple>
#include <optional>
#include <string>
#include <vector>

#include "models/formats/kernel_profile.h"
#include "models/formats/model_spec.h"

namespace efimsim {

// The readers refuse measured times of kMaxSourceMilliseconds or more (1000
// s, beyond any kernel), so that every profile made from them reads back
// (PROFILE.md bounds kernel times).
inline constexpr double kMaxSourceMilliseconds = 1e6;

// ---- The PyTorch reference (h100-pytorch-reference/<model>.ops.runN.json).

struct ReferenceGemmRow {
  std::string op;  // "qkv", "o", "gate_up", "down", "lm_head"
  int64_t m = 0, k = 0, n = 0;
  double median_ms = 0;
};

struct ReferenceAttentionRow {
  bool prefill = false;  // prefill: `rows` = q new tokens, `keys` = cached tokens;
  int64_t rows = 0;      // decode: `rows` = batch, `keys` = context (all keys,
  int64_t keys = 0;      // the new token's included)
  double median_ms = 0;
};

// One run's op file, as read (ParseReferenceOps, reference_ops_io.cc).
struct ReferenceOps {
  std::string origin;  // path, for messages and provenance
  std::string sha256;  // of the file's bytes
  std::string model;
  int64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, inter = 0, vocab = 0;
  std::string torch_version;  // "2.11.0+cu130"
  std::string device;         // "NVIDIA H100 80GB HBM3"
  int64_t sm_count = 0;
  double gemm_tflops = 0;     // ceilings measured in the same run
  double copy_tbps = 0;       // device-to-device copy, bytes read + written
  std::vector<ReferenceGemmRow> gemm;
  std::vector<ReferenceAttentionRow> attention;
};

// Throws InputError naming the file and the field path ("ops.gemm[3].M").
ReferenceOps ParseReferenceOps(const std::string& json_text, const std::string& origin);
ReferenceOps LoadReferenceOps(const std::string& path);

// ---- Vidur's profiling CSVs (microsoft/vidur data/profiling/).

// One mlp.csv row: medians in milliseconds (every column is required).
struct VidurMlpRow {
  int64_t line = 0;  // 1-based line in the file
  int64_t num_tokens = 0;
  int64_t tensor_parallel = 0;
  int64_t n_head = 0, n_kv_head = 0, n_embd = 0, n_expanded_embd = 0;
  bool gated_mlp = false;
  double qkv_ms = 0, o_ms = 0, up_ms = 0, down_ms = 0;
  double input_norm_ms = 0, post_norm_ms = 0, rope_ms = 0, act_ms = 0, add_ms = 0;
};

struct VidurMlpTable {
  std::string origin, sha256;
  std::vector<VidurMlpRow> rows;
};

// One attention.csv row (Vidur's schema, shared/data/gpu/README.md): a
// prefill point is one sequence of `prefill_chunk_size` new tokens on
// `kv_cache_size` earlier ones; a decode point is `batch_size` sequences at
// context `kv_cache_size`.
struct VidurAttentionRow {
  int64_t line = 0;
  int64_t n_embd = 0, n_q_head = 0, n_kv_head = 0, block_size = 0;
  int64_t tensor_parallel = 0;
  int64_t batch_size = 0, prefill_chunk_size = 0, kv_cache_size = 0;
  bool is_prefill = false;
  std::string backend;
  double prefill_ms = 0, decode_ms = 0, kv_cache_save_ms = 0;
};

struct VidurAttentionTable {
  std::string origin, sha256;
  std::vector<VidurAttentionRow> rows;
};

// One all_reduce.csv row.
struct VidurAllReduceRow {
  int64_t line = 0;
  int64_t num_workers = 0;
  int64_t size_bytes = 0;
  double median_ms = 0;
};

struct VidurAllReduceTable {
  std::string origin, sha256;
  std::vector<VidurAllReduceRow> rows;
};

// Throw InputError naming file, line and column for a missing column, a
// value that is not a number, or a row with the wrong number of fields.
VidurMlpTable ParseVidurMlpCsv(const std::string& text, const std::string& origin);
VidurMlpTable LoadVidurMlpCsv(const std::string& path);
VidurAttentionTable ParseVidurAttentionCsv(const std::string& text, const std::string& origin);
VidurAttentionTable LoadVidurAttentionCsv(const std::string& path);
VidurAllReduceTable ParseVidurAllReduceCsv(const std::string& text, const std::string& origin);
VidurAllReduceTable LoadVidurAllReduceCsv(const std::string& path);

// ---- Elementwise rates, for modelling an unfused stack's elementwise cost.

// Effective bandwidth of elementwise kernels and the cost of the smallest
// kernel, from Vidur's measured norm, RoPE, SiLU-and-mul and add kernels on
// the same GPU: bytes-weighted bandwidth over rows with >= 512 tokens
// (TP=1), and the median `add` time over rows with <= 64 tokens.
struct ElementwiseRates {
  double tbps = 0;       // 1e12 bytes/s, bytes read + written
  double floor_us = 0;   // one small kernel
  std::string origin;    // the Vidur file they came from
  std::string sha256;    // of that file
  // Empty when Vidur measured the import's own GPU. Otherwise how the rates
  // were carried to it (CarryElementwiseRates), and the reference run of
  // Vidur's GPU whose copy bandwidth scaled them.
  std::string carried;
  std::optional<ProfileSourceFile> carried_by;
};
// Rates measured on another GPU carried to the import's: the bandwidth
// scaled by the ratio of the two GPUs' device-to-device copy bandwidths as
// the reference measured them (`target` runs on the import's GPU, `source`
// a run on the GPU Vidur measured); the small-kernel floor kept (a launch
// cost; both are the same architecture in the case this serves, H100 to
// H200, which the caller must judge).
ElementwiseRates CarryElementwiseRates(ElementwiseRates rates, const ReferenceOps& source,
                                       const std::vector<ReferenceOps>& target);
ElementwiseRates ElementwiseRatesFromVidur(const VidurMlpTable& table);

// ---- Imports.

// GEMM times of the same GPU measured under CUDA graphs (AIConfigurator's
// gemm.csv, LoadGraphGemmTimings in aiconfigurator_import.h): microseconds
// by (m, n, k).
struct GraphGemmTimings {
  std::string origin, sha256;
  std::map<std::tuple<int64_t, int64_t, int64_t>, double> us;
};

struct ImportSettings {
  std::string command;        // the command line, recorded in the profile
  std::string measured_on;    // when the source was measured (provenance.date_utc)
  std::string interpolation;  // "auto" (the one with the smaller held-out error), "linear", "log-log"
  // pytorch-reference: when set, the GEMMs' eager dispatch gap is the median
  // of (reference eager time - graph time) over the shapes both measured at
  // M <= 64, instead of the intercept of time over bytes (which also takes
  // away the kernels' own fixed time).
  std::optional<GraphGemmTimings> dispatch_gap_from;
};

// Held-out interpolation error: every interior grid point predicted from its
// two neighbours (along each key), relative to its measured value.
struct InterpolationErrors {
  std::string table;  // "gemm", "attention"
  int64_t points = 0;
  double linear_median = 0, linear_p90 = 0;
  double loglog_median = 0, loglog_p90 = 0;
  double run_to_run_median = 0;  // |run1 - run2| / min over shared points; 0 with one run
};

struct ImportReport {
  std::vector<InterpolationErrors> interpolation;
  Interpolation chosen = Interpolation::kLinear;
  std::vector<std::string> notes;  // what was done, one line each, for stderr
};

// The PyTorch reference's runs of one model on one GPU. Runs are combined
// point by point by the minimum of their medians (noise only adds time).
// Each op was timed eagerly, so its time includes PyTorch's dispatch gap
// before the kernel starts; the forward steps ran as CUDA graphs, without
// it. The import estimates the gap (the intercept of time against bytes over
// the memory-bound points: GEMMs at M <= 64, decode attention) and
// subtracts it, never going below the operator's roofline time at the run's
// measured ceilings. With `rates`, elementwise tables are modelled from the
// reference's unfused PyTorch ops (measure.py), kernel by kernel, each
// max(floor, bytes / bandwidth), and marked "modelled"; without, they stay
// missing. `all_reduce`: optional Vidur table of the same GPU.
KernelProfile ImportReferenceProfile(const std::vector<ReferenceOps>& runs, const ModelSpec& model,
                                     const GpuSpec& gpu, const std::optional<ElementwiseRates>& rates,
                                     const std::optional<VidurAllReduceTable>& all_reduce,
                                     const ImportSettings& settings, ImportReport& report);

// Vidur's mlp.csv (TP=1 rows) of one GPU: GEMMs (fused QKV, O, gate-up,
// down) and measured elementwise tables (norm, RoPE, SiLU-and-mul, add).
// Shapes (n_embd, n_head, n_kv_head, n_expanded_embd, gated MLP) must be the
// model's. Repeated token counts are combined by the minimum of their
// medians. With `attention` (its attention.csv, TP=1 rows of one backend):
// prefill and decode attention tables (attn_prefill, attn_decode) and the
// KV write (attn_kv_cache_save, keyed by tokens written); without, those stay
// missing, and lm_head always does (roofline, flagged).
KernelProfile ImportVidurProfile(const VidurMlpTable& mlp, const ModelSpec& model, const GpuSpec& gpu,
                                 const std::optional<VidurAttentionTable>& attention,
                                 const std::optional<VidurAllReduceTable>& all_reduce,
                                 const ImportSettings& settings, ImportReport& report);

}  // namespace efimsim
