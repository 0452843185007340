#include "traces/serving_run_detail.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace efimsim::serving_run_detail {

namespace fs = std::filesystem;

std::string ReadBytes(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw InputError(path, 0, "file", "missing or not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "file", "cannot be read");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

Json ParseJson(const std::string& text, const std::string& file, int64_t line) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& error) {
    throw InputError(file, line, "json", std::string("not valid JSON: ") + error.what());
  } catch (const Json::out_of_range& error) {
    // A number too large for a double (4e4999...): also the file's fault.
    throw InputError(file, line, "json", std::string("not valid JSON: ") + error.what());
  }
}

// A JSONL file's non-blank lines with their 1-based line numbers.
std::vector<std::pair<int64_t, std::string>> Lines(const std::string& bytes) {
  std::vector<std::pair<int64_t, std::string>> lines;
  int64_t number = 0;
  size_t start = 0;
  while (start <= bytes.size()) {
    size_t end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    ++number;
    std::string line = bytes.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) lines.emplace_back(number, line);
    start = end + 1;
  }
  return lines;
}

int64_t SecondsToNs(double seconds) { return static_cast<int64_t>(std::llround(seconds * 1e9)); }


}  // namespace efimsim::serving_run_detail
