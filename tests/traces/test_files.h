#pragma once
// Helpers for traces tests: scratch files, reading a whole trace, and the
// shared real data.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "traces/trace_reader.h"

namespace efimsim::test {

// A fresh directory under gtest's TempDir, unique per test.
inline std::string ScratchDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    (std::string("efimsim_traces_") + info->test_suite_name() +
                                     "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

inline std::string WriteFile(const std::string& dir, const std::string& name,
                             const std::string& content) {
  const std::string path = dir + "/" + name;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// Every record the reader has left, in order.
inline std::vector<TraceRecord> ReadAll(TraceReader& reader) {
  std::vector<TraceRecord> records;
  while (auto record = reader.Next()) records.push_back(std::move(*record));
  return records;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// /work/shared/data/<relative> (../shared/data from the repository root);
// without it, the copy the repository ships in traces/data/ (the public
// traces, byte for byte: traces/data/README.md), so these tests run in a
// fresh clone too.
inline std::string SharedData(const std::string& relative) {
  const std::string shared = std::string(EFIMSIM_SHARED_DATA_DIR) + "/" + relative;
  if (std::filesystem::exists(shared)) return shared;
  const std::string shipped = std::string(EFIMSIM_REPO_TRACE_DATA_DIR) + "/" +
                              std::filesystem::path(relative).filename().string();
  return std::filesystem::exists(shipped) ? shipped : shared;
}

}  // namespace efimsim::test

// Skips the test when a real data file is absent.
#define EFIMSIM_REQUIRE_SHARED_DATA(path)                                              \
  do {                                                                                 \
    if (!std::filesystem::exists(path)) {                                              \
      GTEST_SKIP() << "real data file " << (path)                                      \
                   << " is absent (../shared/data from the repository root)";          \
    }                                                                                  \
  } while (0)
