#include "sim/engine/vllm/speculation_outputs.h"

#include "sim/metrics/output_writers.h"

namespace efimsim {
namespace {

double Ratio(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

// vLLM's mean acceptance length: tokens generated per verifying step of a
// sequence, 1 + accepted drafts / drafts.
double MeanAcceptanceLength(const EngineCounters& e) {
  return 1.0 + Ratio(e.part("spec_decode_accepted_tokens"), e.part("spec_decode_drafts"));
}

}  // namespace

bool HasSpeculation(const RunSummary& summary) {
  return summary.engine.part("spec_decode_k") > 0;
}

void SummarizeSpeculation(const RunSummary& summary, std::vector<RunInfoSection>& results) {
  if (!HasSpeculation(summary)) return;
  const EngineCounters& e = summary.engine;
  RunInfoSection section{"speculative_decoding", {}};
  auto& s = section.settings;
  const int64_t drafted = e.part("spec_decode_draft_tokens");
  const int64_t accepted = e.part("spec_decode_accepted_tokens");
  s.push_back({"num_speculative_tokens", e.part("spec_decode_k")});
  s.push_back({"drafts", e.part("spec_decode_drafts")});
  s.push_back({"draft_tokens", drafted});
  s.push_back({"accepted_tokens", accepted});
  s.push_back({"acceptance_rate", Ratio(accepted, drafted)});
  s.push_back({"mean_acceptance_length", MeanAcceptanceLength(e)});
  s.push_back({"proposals", e.part("spec_decode_proposals")});
  s.push_back({"empty_proposals", e.part("spec_decode_empty_proposals")});
  for (int64_t i = 0; i < e.part("spec_decode_k"); ++i) {
    const std::string pos = std::to_string(i);
    s.push_back({"acceptance_rate_pos" + pos, Ratio(e.part("spec_decode_accepted_tokens_pos" + pos),
                                                    e.part("spec_decode_draft_tokens_pos" + pos))});
  }
  results.push_back(std::move(section));
}

std::vector<EngineReportRow> SpeculationReportRows() {
  return {
      {"draft acceptance rate",
       [](const RunSummary& s) {
         return FormatFixed(100.0 * Ratio(s.engine.part("spec_decode_accepted_tokens"),
                                          s.engine.part("spec_decode_draft_tokens")),
                            1) +
                "%";
       },
       HasSpeculation},
      {"mean acceptance length",
       [](const RunSummary& s) { return FormatFixed(MeanAcceptanceLength(s.engine), 2); },
       HasSpeculation},
      {"drafted / accepted tokens",
       [](const RunSummary& s) {
         return std::to_string(s.engine.part("spec_decode_draft_tokens")) + "/" +
                std::to_string(s.engine.part("spec_decode_accepted_tokens"));
       },
       HasSpeculation},
  };
}

std::string SpeculationHeadline(const RunInfo& info) {
  const std::string text = SettingText(info, "speculative_decoding", "config", 0);
  if (text.empty()) return "";
  return "speculation:   " + text + "\n";
}

}  // namespace efimsim
