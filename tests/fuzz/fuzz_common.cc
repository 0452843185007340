#include "tests/fuzz/fuzz_common.h"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>

#include <nlohmann/json.hpp>

namespace efimsim::fuzz {
namespace {

struct Scratch {
  std::string dir;
  Scratch() {
    const char* base = std::getenv("EFIMSIM_FUZZ_TMPDIR");
    std::filesystem::path path = (base != nullptr && *base != '\0') ? base : "/tmp";
    path /= "efimsim-fuzz-" + std::to_string(::getpid());
    std::filesystem::create_directories(path);
    dir = path.string();
  }
  ~Scratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

}  // namespace

const std::string& ScratchDir() {
  static const Scratch scratch;
  return scratch.dir;
}

std::string WriteScratchFile(const std::string& name, std::string_view data) {
  const std::string path = ScratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) {
    std::cerr << "fuzz: cannot write scratch file " << path << "\n";
    std::abort();
  }
  return path;
}

bool OpenBugsTolerated() {
  static const bool tolerated = [] {
    const char* strict = std::getenv("EFIMSIM_FUZZ_STRICT");
    return strict == nullptr || std::string_view(strict) != "1";
  }();
  return tolerated;
}

bool IsOpenBug(const std::exception& error) {
  if (!OpenBugsTolerated()) return false;
#ifdef EFIMSIM_FUZZ_OPEN_BUG_JSON_NUMBER_OVERFLOW
  // Finding 1: a JSON number beyond double's range ("1e400") makes nlohmann
  // throw out_of_range 406, which the readers do not turn into their
  // documented error type (they catch parse_error only).
  if (const auto* e = dynamic_cast<const nlohmann::json::out_of_range*>(&error)) {
    return e->id == 406;
  }
#endif
  (void)error;
  return false;
}

bool IsOpenBugDeleteOverflow(int64_t offset_bytes, int64_t length_bytes) {
#ifdef EFIMSIM_FUZZ_OPEN_BUG_DELETE_RANGE_OVERFLOW
  return OpenBugsTolerated() && offset_bytes > 0 && length_bytes > INT64_MAX - offset_bytes;
#else
  (void)offset_bytes;
  (void)length_bytes;
  return false;
#endif
}

void CheckFailed(const char* file, int line, const char* condition, const std::string& detail) {
  std::cerr << file << ":" << line << ": FUZZ_CHECK failed: " << condition << "\n  " << detail
            << std::endl;
  std::abort();
}

}  // namespace efimsim::fuzz
