#pragma once
// When an IDE completion client sends a request (docs/semantics.md §6):
//   every-edit        after each text change (cancel_stale decides whether
//                     the previous request is aborted)
//   debounce          `debounce_ms` after the last text change (Continue:
//                     350 ms trailing debounce)
//   adaptive-debounce like Tabby: the wait follows the typing speed, twice
//                     a moving average of the gaps between edits, clamped
//                     to [adaptive_min_ms, adaptive_max_ms]
//   single-in-flight  like llama.vim: send on an edit when nothing is in
//                     flight; otherwise remember it and send `retry_ms`
//                     after the in-flight response ends

#include <cstdint>
#include <string>
#include <vector>

namespace efimsim {

enum class CompletionTrigger : uint8_t { kEveryEdit, kDebounce, kAdaptiveDebounce, kSingleInFlight };

// "every-edit", ... and back; ParseCompletionTrigger throws UsageError.
const char* CompletionTriggerName(CompletionTrigger trigger);
CompletionTrigger ParseCompletionTrigger(const std::string& name);
std::vector<std::string> CompletionTriggerNames();

struct CompletionClientConfig {
  std::string trigger = "debounce";
  double debounce_ms = 350;
  double adaptive_min_ms = 100;
  double adaptive_max_ms = 1000;
  double retry_ms = 100;
  bool cancel_stale = true;          // abort a session's in-flight request when sending a new one
  int64_t context_lines_before = -1;  // < 0: the whole prefix
  int64_t context_lines_after = -1;   // < 0: the whole suffix
  int64_t max_output_tokens = 128;
};

}  // namespace efimsim
