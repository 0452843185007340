// Fuzz target: the efimsim JSON Lines trace reader (traces/FORMAT.md),
// plain or gzip, and the writer round trip.
//
// The input is written to a scratch file and read with EfimTraceReader
// (max line 4 KiB, so the over-long-line path is reachable). InputError is
// a normal outcome. The records read before it (or all of them) must then
// survive TraceWriter -> EfimTraceReader unchanged, with canonical bytes
// (trace_round_trip.h); every session's edits are also applied to an
// EditedDocument, where InvalidEdit is normal (the consumer's check).
// DetectTraceFormat must classify the input or throw InputError. The input
// is also read at a 256-byte maximum with LongLinePolicy::kSkip and checked
// against a strict read (long_line_checks.h).
//
// A session may name a text_file relative to the trace: the scratch
// directory holds "doc.txt" (fixed content) for the seeds to use.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tests/fuzz/fuzz_common.h"
#include "tests/fuzz/long_line_checks.h"
#include "tests/fuzz/trace_round_trip.h"
#include "traces/edited_document.h"
#include "traces/efim_trace_reader.h"
#include "traces/trace_open.h"
#include "traces/utf8_text.h"

namespace {

constexpr int64_t kMaxLineBytes = 4096;
constexpr std::string_view kDocText = "def f(x):\n    return x  # \xc3\xa9t\xc3\xa9 \xe2\x82\xac\n";

void ApplySessions(const std::vector<efimsim::TraceRecord>& records) {
  std::map<std::string, efimsim::EditedDocument> documents;
  for (const efimsim::TraceRecord& record : records) {
    if (const auto* s = std::get_if<efimsim::SessionStart>(&record)) {
      try {
        documents.insert_or_assign(s->session_id, efimsim::EditedDocument(*s));
      } catch (const efimsim::InvalidEdit&) {
        // A cursor off a boundary is the consumer's check (FORMAT.md).
      }
    } else if (const auto* e = std::get_if<efimsim::EditEvent>(&record)) {
      const auto it = documents.find(e->session_id);
      if (it == documents.end()) continue;
      if (e->kind == efimsim::EditKind::kDelete &&
          efimsim::fuzz::IsOpenBugDeleteOverflow(e->offset_bytes, e->length_bytes)) {
        continue;
      }
      const std::string before = it->second.text();
      const int64_t cursor_before = it->second.cursor_bytes();
      try {
        it->second.Apply(*e);
      } catch (const efimsim::InvalidEdit&) {
        FUZZ_CHECK(it->second.text() == before && it->second.cursor_bytes() == cursor_before,
                   "a rejected edit changed the document");
        continue;
      }
      const efimsim::EditedDocument& doc = it->second;
      FUZZ_CHECK(efimsim::IsValidUtf8(doc.text()), "edit left invalid UTF-8");
      FUZZ_CHECK(doc.cursor_bytes() >= 0 && doc.cursor_bytes() <= doc.size_bytes(),
                 "cursor outside the document");
      FUZZ_CHECK(efimsim::IsUtf8Boundary(doc.text(), static_cast<size_t>(doc.cursor_bytes())),
                 "cursor splits a character");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string doc_path = efimsim::fuzz::WriteScratchFile("doc.txt", kDocText);
  (void)doc_path;
  const std::string path = efimsim::fuzz::WriteScratchFile(
      "trace.jsonl", std::string_view(reinterpret_cast<const char*>(data), size));

  efimsim::TraceHeader header;
  std::vector<efimsim::TraceRecord> records;
  bool opened = false;
  try {
    efimsim::EfimTraceReader reader(path, kMaxLineBytes);
    header = reader.header();
    opened = true;
    while (std::optional<efimsim::TraceRecord> record = reader.Next()) {
      FUZZ_CHECK(!efimsim::ValidateRecord(*record).has_value(),
                 "reader returned an invalid record");
      records.push_back(std::move(*record));
    }
  } catch (const efimsim::InputError&) {
  } catch (const std::exception& e) {
    if (!efimsim::fuzz::IsOpenBug(e)) throw;
  }

  if (opened) {
    // The round trip must not depend on files the input names: sessions
    // that loaded any text_file but the fixed doc.txt are written inline.
    for (efimsim::TraceRecord& record : records) {
      if (auto* s = std::get_if<efimsim::SessionStart>(&record);
          s != nullptr && !s->text_file.empty() && s->text_file != "doc.txt") {
        s->text_file.clear();
      }
    }
    efimsim::fuzz::CheckRoundTrip(header, records, "roundtrip.jsonl");
    ApplySessions(records);
  }

  // The same input at a small maximum line length, failing on long lines
  // and skipping them (long_line_checks.h).
  efimsim::TraceReadOptions options;
  options.format = efimsim::TraceFormat::kEfimsim;
  efimsim::fuzz::CheckLongLineSkipping(path, options);
  try {
    (void)efimsim::DetectTraceFormat(path, kMaxLineBytes);
  } catch (const efimsim::InputError&) {
  } catch (const std::exception& e) {
    if (!efimsim::fuzz::IsOpenBug(e)) throw;
  }
  // The next input must not see this one's round trip through a text_file.
  std::filesystem::remove(efimsim::fuzz::ScratchDir() + "/roundtrip.jsonl");
  return 0;
}
