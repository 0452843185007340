#pragma once
// LLMServingSim's moe.csv (MoE models only; ../shared/data/gpu/llmservingsim,
// docs/profiler/output-bundle.md): one sparse-MoE block of one layer on one
// rank, timed at TP 1 by (tokens, activated_experts) -> time_us, where
// activated_experts is the number of distinct experts the tokens touched.
// The bundle's dense.csv has no router row: the block's time includes the
// router, so a profile built from it prices the router inside the experts.
//
// efimsim prices the fused experts by tokens under uniform routing: each
// token count is read at the expected number of distinct experts it
// activates (operator_work.h ExpectedActiveExperts), linearly between the
// two measured expert counts that bracket it at that token count (as
// LLMServingSim's own 2-D lookup does); beyond the measured counts, the
// nearest one.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/formats/kernel_profile.h"
#include "models/latency/operator_work.h"

namespace efimsim {

struct LlmServingSimMoeGrid {
  std::string origin;
  // tokens -> (activated experts -> microseconds), every count >= 1.
  std::map<int64_t, std::map<int64_t, double>> us;
};

// Reads and checks moe.csv: columns tokens, activated_experts, time_us;
// InputError naming the file, line and column; a repeated key is refused.
LlmServingSimMoeGrid ParseLlmServingSimMoe(const std::string& text, const std::string& origin);

// The grid's time at every measured token count under uniform routing for
// `shapes` (experts, top-k, experts on this GPU), in microseconds.
std::vector<ProfilePoint> UniformRoutingMoePoints(const LlmServingSimMoeGrid& grid,
                                                  const ShardShapes& shapes);

}  // namespace efimsim
