#pragma once
// `efimsim profile import --from aiconfigurator`: a shape profile
// (models/formats/shape_profile.h) from NVIDIA AIConfigurator's database as CSV
// (../shared/data/gpu/aiconfigurator/<system>/<framework>-<version>/, its
// README says what each column is): GEMMs by (m, n, k), context (prefill)
// and generation (decode) attention by heads, the framework's custom
// all-reduce; and, when the folder has them, FP8 GEMMs (gemm_fp8.csv),
// attention over an FP8 KV cache (*_attention_fp8kv.csv) and MoE experts
// (moe.csv). What the import keeps, as AIConfigurator's own loader does:
// full attention only (window 0), the first row of a repeated key,
// CUDA-graph all-reduce rows only, GEMM times raised to the speed of light
// at the system's datasheet ceilings (FP8 GEMMs at its FP8 ceiling). Prefill
// attention keeps batch-1 rows (efimsim prices each prefill chunk as its own
// sequence). For size: bf16 GEMM rows from gemm.csv, FP8 ones only at the
// (n, k) gemm.csv has; attention with bf16 compute; MoE rows of bfloat16,
// fp8, fp8_block weights with balanced or power_law_1.2 routing on at most
// 8 GPUs.
//
// Eager-timed tables: the source timed vLLM's fp8_block GEMMs without CUDA
// graphs (its README; every other table is CUDA-graph replays), so their
// small-m rows carry a host-launch floor (60-90 us on H100/H200, ~200 us on
// B200) a graph-replayed decode step does not pay. The import estimates the
// floor per m as F(m) = max(0, median over the (n, k) measured in both of
// (fp8_block time - fp8 time)) (the fp8 rows are graph-timed and read the
// same bytes; m with fewer than 3 such shapes: no floor) and subtracts it
// from the rows it dominates, time < 2 F(m), never below the speed of light
// at fp8_tc_flops. Rows at 2 F(m) or more are kept: an eager loop's per-call
// time is max(launches, kernel), so a kernel that outlasts the launches
// carries no floor (the large-m speed-ups stay as measured). The notes print
// F(m) per file.
//
// Units: the CSVs' milliseconds become microseconds here; all-reduce
// message sizes (elements of bf16) become bytes.

#include <string>
#include <vector>

#include "models/formats/model_spec.h"
#include "models/import/profile_import.h"
#include "models/formats/shape_profile.h"

namespace efimsim {

// One row of systems.csv (the README's "systems.csv").
struct AiConfiguratorSystem {
  std::string system;                      // "h100_sxm"
  double memory_bytes_per_second = 0;      // mem_bw
  double bandwidth_fraction = 0;           // mem_bw_empirical_scaling_factor
  double constant_latency_seconds = 0;     // mem_empirical_constant_latency
  double bf16_flops_per_second = 0;        // bfloat16_tc_flops
  double fp8_flops_per_second = 0;         // fp8_tc_flops; 0 where empty (no FP8 tensor cores)
};

// The row of `system` in systems.csv; InputError naming the file when absent.
AiConfiguratorSystem LoadAiConfiguratorSystem(const std::string& path, const std::string& system);

struct AiConfiguratorImport {
  std::string dir;              // <system>/<framework>-<version>/ with gemm.csv, ...
  std::string systems_csv;      // default: <dir>/../../systems.csv
  std::string all_reduce_csv;   // default: <dir>/custom_allreduce.csv when present
  std::string command;          // the command line, recorded in the profile
};

// Leave-one-out errors of the shape rule on the source's own tables: each
// measured GEMM (n, k), attention head count and MoE shape predicted from
// the others.
struct ShapeRuleStudy {
  std::string table;   // "gemm", "gemm m<=256", "prefill_attention", "decode_attention",
                       // "gemm fp8", "gemm fp8 m<=256", ..., "moe bfloat16", "moe fp8", ...
  int64_t shapes = 0;  // shapes held out
  int64_t points = 0;  // points compared
  double median = 0;   // |predicted / measured - 1|
  double p90 = 0;
};

// Reads the folder, checks it (device against `gpu`, dtypes, keys, units),
// and returns the profile for `gpu` and the engine the folder's framework
// names (vllm -> vllm_v1, sglang -> sglang). `notes` gets what was done.
ShapeProfile ImportAiConfigurator(const AiConfiguratorImport& import, const GpuSpec& gpu,
                                  std::vector<std::string>& notes);

// The bf16 GEMMs of one AIConfigurator gemm.csv (first row of a repeated
// key), in microseconds, for the reference importer's dispatch gap.
GraphGemmTimings LoadGraphGemmTimings(const std::string& path);

// The study over the profile's tables (GEMMs with n, k >= 512; MoE tables
// with balanced routing, each predicted from those of its dtype, tp and ep;
// rows for the FP8 GEMM and MoE dtypes the profile has).
std::vector<ShapeRuleStudy> StudyShapeRule(const ShapeProfile& profile);
// Its "moe <dtype>" row: each balanced MoE table of `dtype` held out and
// predicted from the others of its dtype, tp and ep (a shape with none such
// is not counted); with `per_backend` ("moe <dtype> per backend", a row
// where the dtype's tables span several MoE backends), from those of its
// kernel's backend only, as a run naming --moe-backend transfers.
ShapeRuleStudy StudyMoeShapeRule(const ShapeProfile& profile, const std::string& dtype, bool per_backend = false);

}  // namespace efimsim
