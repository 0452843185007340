// Fuzz target: the trace importers (traces/README.md) behind OpenTrace:
// Azure LLM CSV, Mooncake JSONL, TaskTracker snapshot CSV, HumanEval
// infilling JSONL (each plain or gzip: zlib reads both), and format
// auto-detection.
//
// Input: byte 0 chooses the importer and its options, the rest is the file.
//   byte0 % 5: 0 azure-csv, 1 mooncake-jsonl, 2 tasktracker-csv,
//              3 humaneval-infilling, 4 auto (DetectTraceFormat)
//   (byte0 >> 3) & 3: HumanEval users - 1
//   (byte0 >> 5) & 3: HumanEval chars_per_second {6, 1000, 0.5, 1e12};
//                     Mooncake block_key_tokens {16, 512, 32, 3 (invalid)}
// InputError and UsageError (bad options) are normal outcomes. What the
// importer yielded before any error must be valid: ValidateRecord passes,
// times never go back, TraceWriter accepts every record and the round trip
// gives them back unchanged, and every session's edits apply to its
// document (an importer must not produce an edit that does not fit: an
// InvalidEdit here is a finding, unlike in a hand-written trace). With
// valid options the input is also read at a 256-byte maximum with
// LongLinePolicy::kSkip and checked against a strict read
// (long_line_checks.h).

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tests/fuzz/fuzz_common.h"
#include "tests/fuzz/long_line_checks.h"
#include "tests/fuzz/trace_round_trip.h"
#include "traces/edited_document.h"
#include "traces/mooncake_reader.h"
#include "traces/trace_open.h"
#include "traces/utf8_text.h"

namespace {

constexpr int64_t kMaxLineBytes = 4096;

void CheckSessions(const std::vector<efimsim::TraceRecord>& records) {
  std::map<std::string, efimsim::EditedDocument> open;
  std::set<std::string> ended;
  for (const efimsim::TraceRecord& record : records) {
    if (const auto* s = std::get_if<efimsim::SessionStart>(&record)) {
      // A repeated id (two HumanEval tasks with one task_id) breaks
      // FORMAT.md's rule 4, which the consumer checks: stop here.
      if (open.contains(s->session_id) || ended.contains(s->session_id)) return;
      try {
        open.emplace(s->session_id, efimsim::EditedDocument(*s));
      } catch (const efimsim::InvalidEdit& e) {
        FUZZ_CHECK(false, "importer produced a session its document rejects: " +
                              std::string(e.what()) + ": " + efimsim::fuzz::DescribeRecord(record));
      }
    } else if (const auto* e = std::get_if<efimsim::EditEvent>(&record)) {
      const auto it = open.find(e->session_id);
      FUZZ_CHECK(it != open.end(),
                 "edit of a session not open: " + efimsim::fuzz::DescribeRecord(record));
      try {
        it->second.Apply(*e);
      } catch (const efimsim::InvalidEdit& error) {
        FUZZ_CHECK(false, "importer produced an edit that does not fit its document: " +
                              error.field() + ": " + error.what() + ": " +
                              efimsim::fuzz::DescribeRecord(record));
      }
      FUZZ_CHECK(efimsim::IsValidUtf8(it->second.text()), "document is not UTF-8");
      if (e->kind == efimsim::EditKind::kEnd) {
        ended.insert(e->session_id);
        open.erase(it);
      }
    }
  }
}

// Finding 2 (while open): MooncakeReader computes input_length + 511 with
// signed overflow for input_length > INT64_MAX - 511. True when a line of
// the (plain) file has such an input_length.
bool HasOpenBugMooncakeInputLength(std::string_view file) {
#ifdef EFIMSIM_FUZZ_OPEN_BUG_MOONCAKE_INPUT_LENGTH
  if (!efimsim::fuzz::OpenBugsTolerated()) return false;
  size_t start = 0;
  while (start <= file.size()) {
    size_t end = file.find('\n', start);
    if (end == std::string_view::npos) end = file.size();
    try {
      const efimsim::MooncakeRow row =
          efimsim::ParseMooncakeLine(file.substr(start, end - start), "scan", 1);
      if (row.input_length > INT64_MAX - 511) return true;
    } catch (const std::exception&) {
    }
    start = end + 1;
  }
#else
  (void)file;
#endif
  return false;
}

// Finding 5 (while open): ParseCivilTimeNs multiplies seconds by 1e9 with
// signed overflow for dates outside 1677-2262, and the CSV importers
// subtract the first row's time with signed overflow for rows more than
// 292 years apart. True when the file holds a "YYYY-" outside 1830-2110
// (then no two plausible timestamps are 146 years from 1970 or more).
bool HasOpenBugCivilTime(std::string_view file) {
#ifdef EFIMSIM_FUZZ_OPEN_BUG_CIVIL_TIME_OVERFLOW
  if (!efimsim::fuzz::OpenBugsTolerated()) return false;
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (size_t i = 0; i + 4 < file.size(); ++i) {
    if (digit(file[i]) && digit(file[i + 1]) && digit(file[i + 2]) && digit(file[i + 3]) &&
        file[i + 4] == '-') {
      const int year = (file[i] - '0') * 1000 + (file[i + 1] - '0') * 100 +
                       (file[i + 2] - '0') * 10 + (file[i + 3] - '0');
      if (year < 1830 || year > 2110) return true;
    }
  }
#else
  (void)file;
#endif
  return false;
}

// Finding 6 (while open): TaskTrackerCsvReader takes document_id from the
// fileName column without checking UTF-8, ValidateRecord does not check ids,
// and TraceWriter then fails inside nlohmann (type_error 316) instead of
// refusing the record with OutputError. True when a record has such an id.
bool HasOpenBugNonUtf8Id(const std::vector<efimsim::TraceRecord>& records) {
#ifdef EFIMSIM_FUZZ_OPEN_BUG_NON_UTF8_ID
  if (!efimsim::fuzz::OpenBugsTolerated()) return false;
  for (const efimsim::TraceRecord& record : records) {
    if (const auto* s = std::get_if<efimsim::SessionStart>(&record)) {
      if (!efimsim::IsValidUtf8(s->session_id) || !efimsim::IsValidUtf8(s->user_id) ||
          !efimsim::IsValidUtf8(s->document_id)) {
        return true;
      }
    }
  }
#else
  (void)records;
#endif
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t control = data[0];
  const std::string path = efimsim::fuzz::WriteScratchFile(
      "input.trace", std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));

  efimsim::TraceReadOptions options;
  constexpr efimsim::TraceFormat kFormats[] = {
      efimsim::TraceFormat::kAzureCsv, efimsim::TraceFormat::kMooncakeJsonl,
      efimsim::TraceFormat::kTaskTrackerCsv, efimsim::TraceFormat::kHumanEvalInfilling,
      efimsim::TraceFormat::kAuto};
  constexpr double kCharsPerSecond[] = {6.0, 1000.0, 0.5, 1e12};
  constexpr int64_t kBlockKeyTokens[] = {16, 512, 32, 3};
  options.format = kFormats[control % 5];
  if ((options.format == efimsim::TraceFormat::kMooncakeJsonl ||
       options.format == efimsim::TraceFormat::kAuto) &&
      HasOpenBugMooncakeInputLength(
          std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1))) {
    return 0;
  }
  options.max_line_bytes = kMaxLineBytes;
  options.humaneval.users = 1 + ((control >> 3) & 3);
  options.humaneval.chars_per_second = kCharsPerSecond[(control >> 5) & 3];
  options.mooncake_block_key_tokens = kBlockKeyTokens[(control >> 5) & 3];

  if ((options.format == efimsim::TraceFormat::kAzureCsv ||
       options.format == efimsim::TraceFormat::kTaskTrackerCsv ||
       options.format == efimsim::TraceFormat::kAuto) &&
      HasOpenBugCivilTime(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1))) {
    return 0;
  }

  std::unique_ptr<efimsim::TraceReader> reader;
  std::vector<efimsim::TraceRecord> records;
  try {
    reader = efimsim::OpenTrace(path, options);
    int64_t last_time_ns = 0;
    while (std::optional<efimsim::TraceRecord> record = reader->Next()) {
      const std::optional<efimsim::FieldProblem> problem = efimsim::ValidateRecord(*record);
      FUZZ_CHECK(!problem.has_value(),
                 "importer yielded an invalid record: field " +
                     (problem ? problem->field + ": " + problem->problem : std::string()));
      const int64_t time_ns = efimsim::RecordTimeNs(*record);
      FUZZ_CHECK(time_ns >= last_time_ns, "importer went back in time");
      last_time_ns = time_ns;
      records.push_back(std::move(*record));
    }
  } catch (const efimsim::InputError&) {
  } catch (const efimsim::UsageError&) {
  } catch (const std::exception& e) {
    if (!efimsim::fuzz::IsOpenBug(e)) throw;
  }
  // Valid options (the reader opened): the same input at a small maximum
  // line length, failing on long lines and skipping them.
  if (reader != nullptr) efimsim::fuzz::CheckLongLineSkipping(path, options);
  if (reader == nullptr || HasOpenBugNonUtf8Id(records)) return 0;
  efimsim::fuzz::CheckRoundTrip(reader->header(), records, "roundtrip.jsonl");
  CheckSessions(records);
  return 0;
}
