#pragma once
// Helpers the importers share (defined in profile_import.cc): shape checks,
// the held-out interpolation study, and what every import ends with. For
// importers in other files (llmservingsim_import.cc); not a public API.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/formats/kernel_profile.h"
#include "models/formats/model_spec.h"
#include "models/import/profile_import.h"

namespace efimsim::profile_import_detail {

// Refuses a source whose measured shape figure is not the model's, naming
// both (InputError on origin, line, field).
void RequireModelShape(const std::string& origin, int64_t line, const std::string& field,
                       const std::string& measured, const std::string& what, int64_t source,
                       int64_t spec, const ModelSpec& model);
// Held-out errors along every row of a keyed table: `curves` maps a row key
// to its (key, time) points, sorted.
void HoldOutCurves(const std::map<int64_t, std::vector<std::pair<int64_t, double>>>& curves,
                   double offset, std::vector<double>& linear, std::vector<double>& loglog);
InterpolationErrors Summarize(const std::string& table, const std::vector<double>& linear,
                              const std::vector<double>& loglog, const std::vector<double>& noise);
Interpolation Choose(const ImportSettings& settings, const std::vector<double>& linear,
                     const std::vector<double>& loglog);
// The attention tables' shapes (the model's; 16-token blocks).
void SetAttentionShapes(KernelProfile& profile, const ModelSpec& model);
// The optional all-reduce tables, the source, host overheads at the
// simulator's defaults.
void Finish(KernelProfile& profile, ProfileSource source,
            const std::optional<VidurAllReduceTable>& all_reduce, const ModelSpec& model,
            ImportReport& report);

}  // namespace efimsim::profile_import_detail
