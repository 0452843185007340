#pragma once
// `efimsim profile import --from llmservingsim --shapes --bundle DIR ...`:
// a shape profile (models/formats/shape_profile.h) from LLMServingSim bundles,
// keyed by the shapes their tp1 tables were timed at (meta.yaml's
// hf_overrides, scaled back by the bundle's last TP degree: they describe
// its last pass; the RTX PRO 6000 bundles of Llama-3.1-8B and Qwen3-32B
// record their TP2 shards, FFN 7168 and 12800, so their tp1 tables are the
// models' own shapes). They are vLLM's own kernels on that GPU for those
// shapes, and the shape rule prices any other model from them.
//
// Per bundle: the named catalogue model with the meta's shapes applied is
// the model that was profiled; its tables are imported as the model-keyed
// import does (checks, units, provenance), then keyed by shape
// (profile_transfer.h) and merged with the other bundles' (a repeated GEMM
// (n, k) or head count keeps the first bundle's). The elementwise rule
// (bytes / (datasheet bandwidth x fraction) + constant) is fitted by least
// squares on the bundles' measured RMSNorm and SiLU-and-mul tables over the
// bytes of those fused kernels (the rule the shape rule prices them by).

#include <string>
#include <vector>

#include "models/formats/model_spec.h"
#include "models/import/profile_import.h"
#include "models/formats/shape_profile.h"

namespace efimsim {

ShapeProfile ImportLlmServingSimShapes(const std::vector<std::string>& bundles, const GpuSpec& gpu,
                                       const ImportSettings& settings, ImportReport& report);

}  // namespace efimsim
