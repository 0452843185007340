#pragma once
// InputError expectations shared by the issue-25 reader tests.

#include <gtest/gtest.h>

#include <string>

#include "sim/base/errors.h"
#include "test_files.h"
#include "traces/trace_open.h"

namespace efimsim::test {

// Reads the whole trace at `path`; expects an InputError at `line` naming
// `field` whose message holds `words`.
inline void ExpectInputError(const std::string& path, int64_t line, const std::string& field,
                      const std::string& words, TraceFormat format = TraceFormat::kAuto) {
  TraceReadOptions options;
  options.format = format;
  try {
    auto reader = OpenTrace(path, options);
    ReadAll(*reader);
    ADD_FAILURE() << path << ": no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

inline constexpr char kAzureHeader[] = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

}  // namespace efimsim::test
