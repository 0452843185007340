#include "sim/engine/sglang/sglang_config.h"

namespace efimsim {

const ParamTable<SglangConfig>& SglangParams() {
  using C = SglangConfig;
  static const ParamTable<SglangConfig> table = {
      {{"chunked-prefill-size", "tokens",
        "sglang: most prompt tokens of one prefill step; 0 takes SGLang's default for the GPU's "
        "memory (8192 on 35-160 GiB GPUs)", 0},
       &C::chunked_prefill_size},
      {{"max-running-requests", "requests",
        "sglang: most requests decoding at once; 0 derives it from the KV size as SGLang does", 0},
       &C::max_running_requests},
      {{"max-prefill-tokens", "tokens", "sglang: prompt-token budget of one prefill batch", 1},
       &C::max_prefill_tokens},
      {Choice("schedule-policy", "sglang: waiting-queue order, lpm (longest cached prefix) or fcfs",
              {"lpm", "fcfs"}),
       &C::schedule_policy},
      {{"page-size", "tokens", "sglang: radix-cache page; prefixes match in whole pages", 1, 1024},
       &C::page_size},
      {{"schedule-conservativeness", "factor",
        "sglang: scales the initial new_token_ratio (admission reserve for future decode tokens)",
        0.01, 100},
       &C::schedule_conservativeness},
  };
  return table;
}

}  // namespace efimsim
