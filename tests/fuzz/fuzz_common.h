#pragma once
// Shared helpers of the libFuzzer targets (tests/fuzz/README.md). Every
// target defines LLVMFuzzerTestOneInput; the same sources are linked either
// with libFuzzer (clang, -fsanitize=fuzzer) or with replay_main.cc (any
// compiler), which feeds the committed corpus to them under ctest.
//
// A target treats the documented error types of the reader it drives as
// normal outcomes and lets anything else escape: an escaping exception,
// a failed FUZZ_CHECK, a sanitizer report or a timeout is a finding.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace efimsim::fuzz {

// Writes `data` to `name` in this process's scratch directory
// (/tmp/efimsim-fuzz-<pid>/, or $EFIMSIM_FUZZ_TMPDIR/efimsim-fuzz-<pid>/;
// removed at exit) and returns the file's path. The same name reuses the
// same file.
std::string WriteScratchFile(const std::string& name, std::string_view data);
// The scratch directory (created on first use).
const std::string& ScratchDir();

// True when `error` is the effect of a bug already reported and not yet
// fixed in product code (README.md, "Findings"), so a campaign can go on
// past it. Each such bug has a macro, defined in targets.cmake while the bug
// is open; with the macro removed the bug's reproducer in the corpus fails
// the regression test until the product is fixed.
// Setting EFIMSIM_FUZZ_STRICT=1 in the environment turns all of this off at
// run time (to check a fix against tests/fuzz/reproducers/ before deleting
// its macro).
bool IsOpenBug(const std::exception& error);
bool OpenBugsTolerated();

// Finding 3 (while open): a delete whose offset_bytes + length_bytes
// overflows int64 makes EditedDocument::Apply compute the range end with
// signed overflow (UB). True when `event` is such a delete and the bug is
// open, so the caller skips it.
bool IsOpenBugDeleteOverflow(int64_t offset_bytes, int64_t length_bytes);

// Aborts with a message (libFuzzer reports the crash and saves the input).
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition,
                              const std::string& detail);

}  // namespace efimsim::fuzz

#define FUZZ_CHECK(condition, detail)                                                 \
  do {                                                                                \
    if (!(condition)) ::efimsim::fuzz::CheckFailed(__FILE__, __LINE__, #condition, (detail)); \
  } while (false)
