#include "sim/engine/vllm/speculation_outputs.h"

#include "sim/metrics/output_writers.h"

namespace efimsim {
namespace {

// Counter names (EngineCounters::parts); per draft position i they end in
// "_pos<i>".
const char* const kK = "spec_decode_k";  // present (> 0) exactly when the run speculated
const char* const kDrafts = "spec_decode_drafts";
const char* const kDraftTokens = "spec_decode_draft_tokens";
const char* const kAcceptedTokens = "spec_decode_accepted_tokens";
const char* const kProposals = "spec_decode_proposals";
const char* const kEmptyProposals = "spec_decode_empty_proposals";

std::string AtPosition(const char* name, int64_t i) { return name + ("_pos" + std::to_string(i)); }

double Ratio(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

// vLLM's mean acceptance length: tokens generated per verifying step of a
// sequence, 1 + accepted drafts / drafts.
double MeanAcceptanceLength(const EngineCounters& e) {
  return 1.0 + Ratio(e.part(kAcceptedTokens), e.part(kDrafts));
}

}  // namespace

void AppendSpeculationCounters(const SpeculationCounters& counters, int64_t k,
                               std::vector<PartCounter>& out) {
  out.push_back({kK, k, PartCounter::Combine::kMax});
  out.push_back({kDrafts, counters.drafts});
  out.push_back({kDraftTokens, counters.draft_tokens});
  out.push_back({kAcceptedTokens, counters.accepted_tokens});
  out.push_back({kProposals, counters.proposals});
  out.push_back({kEmptyProposals, counters.empty_proposals});
  for (size_t i = 0; i < counters.drafted_at.size(); ++i) {
    const int64_t position = static_cast<int64_t>(i);
    out.push_back({AtPosition(kDraftTokens, position), counters.drafted_at[i]});
    out.push_back({AtPosition(kAcceptedTokens, position), counters.accepted_at[i]});
  }
}

bool HasSpeculation(const RunSummary& summary) {
  return summary.engine.part(kK) > 0;
}

void SummarizeSpeculation(const RunSummary& summary, std::vector<RunInfoSection>& results) {
  if (!HasSpeculation(summary)) return;
  const EngineCounters& e = summary.engine;
  RunInfoSection section{"speculative_decoding", {}};
  auto& s = section.settings;
  const int64_t drafted = e.part(kDraftTokens);
  const int64_t accepted = e.part(kAcceptedTokens);
  s.push_back({"num_speculative_tokens", e.part(kK)});
  s.push_back({"drafts", e.part(kDrafts)});
  s.push_back({"draft_tokens", drafted});
  s.push_back({"accepted_tokens", accepted});
  s.push_back({"acceptance_rate", Ratio(accepted, drafted)});
  s.push_back({"mean_acceptance_length", MeanAcceptanceLength(e)});
  s.push_back({"proposals", e.part(kProposals)});
  s.push_back({"empty_proposals", e.part(kEmptyProposals)});
  for (int64_t i = 0; i < e.part(kK); ++i) {
    s.push_back({"acceptance_rate_pos" + std::to_string(i),
                 Ratio(e.part(AtPosition(kAcceptedTokens, i)), e.part(AtPosition(kDraftTokens, i)))});
  }
  results.push_back(std::move(section));
}

std::vector<EngineReportRow> SpeculationReportRows() {
  return {
      {"draft acceptance rate",
       [](const RunSummary& s) {
         return FormatFixed(100.0 * Ratio(s.engine.part(kAcceptedTokens),
                                          s.engine.part(kDraftTokens)),
                            1) +
                "%";
       },
       HasSpeculation},
      {"mean acceptance length",
       [](const RunSummary& s) { return FormatFixed(MeanAcceptanceLength(s.engine), 2); },
       HasSpeculation},
      {"drafted / accepted tokens",
       [](const RunSummary& s) {
         return std::to_string(s.engine.part(kDraftTokens)) + "/" +
                std::to_string(s.engine.part(kAcceptedTokens));
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
