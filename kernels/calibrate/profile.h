#pragma once
// The kernel profile efimsim-calibrate writes: exactly the format of
// models/PROFILE.md (schema_version 1, kind "efimsim-kernel-profile"). The
// latency model rejects unknown keys, so this writer emits the documented
// keys and nothing else, tables sorted by their key with unique keys.

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

struct Profile {
  std::string gpu;    // models/gpus/<gpu>.json
  std::string model;  // models/specs/<model>.json
  std::string command;
  std::string gemm_kernel = "cublaslt-bf16";
  std::string prefill_kernel = "efimsim-paged-fa2-v1";
  std::string decode_kernel = "efimsim-paged-splitkv-v1";
  std::string elementwise_kernel = "efimsim-elementwise-v1";
  Provenance provenance;
  std::vector<GemmTable> gemm;
  PrefillTable prefill;
  DecodeTable decode;
  std::vector<ElementwiseTable> elementwise;
  CpuOverhead cpu_overhead;
};

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
