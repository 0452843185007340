// JSON reader for measured step times (models/PROFILE.md, "Measured steps").
#include <nlohmann/json.hpp>

#include "models/latency/latency_validation.h"
#include "models/formats/strict_json_io.h"
#include "sim/base/errors.h"

namespace efimsim {

std::vector<MeasuredStep> ParseMeasuredSteps(const std::string& json_text, const std::string& origin) {
  const nlohmann::json root = ParseJson(json_text, origin);
  if (!root.is_array()) throw InputError(origin, 0, "", "expected a JSON list of steps");
  if (root.empty()) throw InputError(origin, 0, "", "no steps");
  std::vector<MeasuredStep> steps;
  for (size_t i = 0; i < root.size(); ++i) {
    std::string prefix = "[";  // built by appends: GCC 12 warns falsely on "[" + string
    prefix += std::to_string(i);
    prefix += ']';
    StrictObject row(root[i], origin, prefix);
    MeasuredStep step;
    step.index = static_cast<int64_t>(i);
    const std::string kind = row.String("kind");
    if (kind == "prefill") {
      step.kind = MeasuredStepKind::kPrefill;
    } else if (kind == "decode") {
      step.kind = MeasuredStepKind::kDecode;
    } else if (kind == "mixed") {
      step.kind = MeasuredStepKind::kMixed;
    } else {
      throw InputError(origin, 0, row.Path("kind"),
                       "expected \"prefill\", \"decode\" or \"mixed\", got \"" + kind + "\"");
    }
    const nlohmann::json& sequences = row.Array("sequences");
    if (sequences.empty()) throw InputError(origin, 0, row.Path("sequences"), "empty list");
    int64_t decodes = 0;
    for (size_t j = 0; j < sequences.size(); ++j) {
      StrictObject seq(sequences[j], origin, row.Path("sequences") + "[" + std::to_string(j) + "]");
      SequenceWork work;
      work.new_tokens = seq.Int("new_tokens", 1);
      work.context_tokens = seq.Int("context_tokens", 0);
      work.emits_token = seq.Has("emits_token") ? seq.Bool("emits_token") : true;
      seq.RejectUnknownKeys();
      decodes += work.new_tokens == 1 ? 1 : 0;
      step.sequences.push_back(work);
    }
    const int64_t count = static_cast<int64_t>(step.sequences.size());
    const bool consistent = step.kind == MeasuredStepKind::kDecode    ? decodes == count
                            : step.kind == MeasuredStepKind::kPrefill ? decodes == 0
                                                              : decodes > 0 && decodes < count;
    if (!consistent) {
      throw InputError(origin, 0, row.Path("kind"),
                       "\"" + kind + "\" does not match the sequences (" + std::to_string(decodes) +
                           " of " + std::to_string(count) +
                           " have new_tokens 1; decode: all, prefill: none, mixed: some)");
    }
    step.measured_ms = row.Positive("measured_ms");
    if (row.Has("mode")) {
      const std::string mode = row.String("mode");
      if (mode != "eager" && mode != "graph") {
        throw InputError(origin, 0, row.Path("mode"), "expected \"eager\" or \"graph\"");
      }
      step.cuda_graphs = mode == "graph";
    }
    row.RejectUnknownKeys();
    steps.push_back(std::move(step));
  }
  return steps;
}

std::vector<MeasuredStep> LoadMeasuredSteps(const std::string& path) {
  return ParseMeasuredSteps(ReadWholeFile(path), path);
}

}  // namespace efimsim
