#pragma once
// The kernel profile efimsim-calibrate writes: the format of
// models/PROFILE.md (schema_version 1, kind "efimsim-kernel-profile"). The
// latency model rejects unknown keys, so this writer emits the documented
// keys, tables sorted by their key with unique keys, plus one optional
// object, provenance.sweep_repetitions (run-to-run noise of the repeated
// sweeps; omitted when Profile::run_to_run is empty, e.g. with
// efimsim-calibrate --no-repetition-provenance), which the simulator reads
// (models/PROFILE.md; tests/models/profile_contract_test.cc pins the pair).

#include <cstdint>
#include <string>
#include <vector>

#include "json.h"

namespace efimsim::kernels {

struct Provenance {
  std::string gpu_name;
  int sm_count = 0;
  int sm_clock_mhz = 0;
  int memory_clock_mhz = 0;
  std::string driver_version;
  std::string cuda_runtime_version;
  std::string git_commit;
  std::string date_utc;  // ISO 8601, e.g. 2026-11-23T07:00:00Z
};

struct GemmTable {
  std::string name;
  int n = 0;
  int k = 0;
  std::vector<std::pair<std::int64_t, double>> points;  // (m, time_us)
};

struct PrefillTable {
  int q_heads = 0, kv_heads = 0, head_dim = 0, block_tokens = 16;
  struct Point {
    int new_tokens = 0;
    int context_tokens = 0;
    double time_us = 0;
  };
  std::vector<Point> points;
};

struct DecodeTable {
  int q_heads = 0, kv_heads = 0, head_dim = 0, block_tokens = 16;
  struct Point {
    int batch = 0;
    int context_tokens = 0;
    double time_us = 0;
  };
  std::vector<Point> points;
};

struct ElementwiseTable {
  std::string name;
  std::vector<std::pair<std::int64_t, double>> points;  // (tokens, time_us)
};

struct CpuOverhead {
  // Host-side costs the GPU kernels cannot measure; the documented defaults.
  std::string source = "default";
  double step_us = 1500.0;
  double per_sequence_us = 10.0;
  double per_layer_launch_us = 70.0;
  std::vector<int> graph_capture_batch_sizes = {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 128, 256, 512};
};

// Run-to-run noise of a sweep repeated `repetitions` times: per table, the
// relative spread (max - min) / min of each point's medians over the
// repetitions, its maximum and median over the table's points.
struct TableNoise {
  std::string table;  // "gemm/qkv_proj", "prefill_attention", "decode_attention", "elementwise/rmsnorm", ...
  int points = 0;
  double max_rel_diff = 0;
  double median_rel_diff = 0;
};
struct RunToRun {
  int repetitions = 0;  // 0: not recorded
  std::string combine = "minimum";  // how the repetitions' medians make the table's time
  std::vector<TableNoise> tables;
};

struct Profile {
  std::string gpu;    // models/gpus/<gpu>.json
  std::string model;  // models/specs/<model>.json
  std::string command;
  std::string gemm_kernel = "cublaslt-bf16";
  std::string prefill_kernel = "efimsim-paged-fa2-v1";
  // The CUDA-core kernel (MHA); main.cc names the tensor-core one for GQA
  // ("efimsim-paged-splitkv-mma-v1", decode_attention.cu). The profiles of
  // 76c018e (calibrate/runs/2026-11-28-h200-76c018e) say v1 for both.
  std::string decode_kernel = "efimsim-paged-splitkv-v1";
  std::string elementwise_kernel = "efimsim-elementwise-v1";
  Provenance provenance;
  std::vector<GemmTable> gemm;
  PrefillTable prefill;
  DecodeTable decode;
  std::vector<ElementwiseTable> elementwise;
  CpuOverhead cpu_overhead;
  RunToRun run_to_run;  // written as provenance.sweep_repetitions when repetitions > 0
};

// One profile from the same sweep repeated (every repetition has the same
// tables and keys, in the same order): each point's time is the minimum over
// the repetitions (noise only adds time), and run_to_run records the spread.
// Throws std::invalid_argument when the repetitions do not line up.
Profile combine_repetitions(const std::vector<Profile>& reps);

// Sorts every table by its key; throws std::invalid_argument on a duplicate
// key, a non-finite or non-positive time, or an empty table.
void normalize(Profile& p);

// The profile as JSON (calls normalize on a copy first).
json::Value profile_to_json(const Profile& p);

// Writes the file through a temporary and a rename, so a crash never leaves
// half a profile behind. Creates no directories.
void write_profile(const Profile& p, const std::string& path);

// Shell-quotes argv into one command line, for the "command" field.
std::string join_command_line(int argc, const char* const* argv);

}  // namespace efimsim::kernels
