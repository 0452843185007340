#pragma once
// The settings of the SGLang engine (SGLang 0.5.3 server arguments, spelled
// as SGLang spells them), held in a run's engine OptionStore under "sglang".
// Plain fields with defaults; SglangParams() documents each one (with the
// allowed values of --schedule-policy) and drives --help, sweeps and
// validation through the engine's registry entry.

#include <cstdint>
#include <string>

#include "sim/base/params.h"

namespace efimsim {

struct SglangConfig {
  // SGLang's default by GPU memory: < 35 GiB 2048, < 160 GiB 8192, else 16384.
  int64_t chunked_prefill_size = 0;  // 0: SGLang's default for the GPU
  // 0: SGLang's derivation from the KV size (sim/engine/sglang/sglang_scheduler.h).
  int64_t max_running_requests = 0;
  int64_t max_prefill_tokens = 16384;
  std::string schedule_policy = "lpm";  // lpm | fcfs
  int64_t page_size = 1;
  double schedule_conservativeness = 1.0;
};

const ParamTable<SglangConfig>& SglangParams();

}  // namespace efimsim
