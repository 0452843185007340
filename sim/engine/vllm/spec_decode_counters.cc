#include "sim/engine/vllm/spec_decode_counters.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include "sim/base/errors.h"

namespace efimsim {
namespace {

constexpr std::uintmax_t kMaxBytes = std::uintmax_t{64} << 20;
constexpr const char* kDrafts = "vllm:spec_decode_num_drafts";
constexpr const char* kPerPos = "vllm:spec_decode_num_accepted_tokens_per_pos";

// A counter's family name: prometheus_client exposes counter X as X_total
// (older text dumps show X itself).
std::string Family(const std::string& name) {
  const std::string suffix = "_total";
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return name.substr(0, name.size() - suffix.size());
  }
  return name;
}

// The value of label `key` in `labels` ("a=\"x\",b=\"y\""), or "" if absent.
std::string Label(const std::string& labels, const std::string& key) {
  const std::string needle = key + "=\"";
  size_t at = 0;
  while ((at = labels.find(needle, at)) != std::string::npos) {
    if (at == 0 || labels[at - 1] == ',' || labels[at - 1] == ' ') {
      const size_t begin = at + needle.size();
      const size_t end = labels.find('"', begin);
      return end == std::string::npos ? "" : labels.substr(begin, end - begin);
    }
    at += needle.size();
  }
  return "";
}

}  // namespace

std::vector<double> ReadSpecDecodeAcceptanceRates(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw InputError(path, 0, "", "not a regular file (a vLLM /metrics dump was expected)");
  }
  // Read whole, at most kMaxBytes whatever the file reports (a /proc file
  // says 0 bytes and may hold far more).
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(path, 0, "", "cannot open");
  std::string bytes;
  std::vector<char> chunk(size_t{1} << 16);
  while (file.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || file.gcount() > 0) {
    bytes.append(chunk.data(), static_cast<size_t>(file.gcount()));
    if (bytes.size() > kMaxBytes) {
      throw InputError(path, 0, "", "larger than 64 MiB: not a vLLM /metrics dump");
    }
  }
  std::istringstream in(bytes);
  double drafts = 0;
  bool any_drafts = false;
  std::map<int64_t, double> per_position;
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const size_t brace = line.find('{');
    const size_t space = line.find(' ');
    if (space == std::string::npos) continue;
    const bool labelled = brace != std::string::npos && brace < space;
    const std::string name = Family(line.substr(0, labelled ? brace : space));
    if (name != kDrafts && name != kPerPos) continue;
    const size_t close = labelled ? line.find('}', brace) : std::string::npos;
    if (labelled && close == std::string::npos) throw InputError(path, number, name, "unclosed labels");
    const std::string labels = labelled ? line.substr(brace + 1, close - brace - 1) : "";
    const size_t value_at = line.find_first_not_of(' ', labelled ? close + 1 : space);
    const std::string value_text = value_at == std::string::npos ? "" : line.substr(value_at);
    char* end = nullptr;
    const double value = std::strtod(value_text.c_str(), &end);
    if (end == value_text.c_str() || !std::isfinite(value) || value < 0 ||
        (*end != '\0' && *end != ' ')) {
      throw InputError(path, number, name, "value '" + value_text + "' is not a count >= 0");
    }
    if (name == kDrafts) {
      drafts += value;
      any_drafts = true;
      continue;
    }
    const std::string position = Label(labels, "position");
    char* position_end = nullptr;
    const long long p = std::strtoll(position.c_str(), &position_end, 10);
    if (position.empty() || *position_end != '\0' || p < 0 || p > 4096) {
      throw InputError(path, number, name, "label position=\"" + position + "\" is not 0..4096");
    }
    per_position[p] += value;
  }
  if (!any_drafts || per_position.empty()) {
    throw InputError(path, 0, any_drafts ? kPerPos : kDrafts,
                     "missing: is speculative decoding on for this server?");
  }
  if (!(drafts > 0)) throw InputError(path, 0, kDrafts, "no drafts counted yet");
  std::vector<double> rates;
  double before = drafts;
  int64_t expected = 0;
  for (const auto& [position, count] : per_position) {
    if (position != expected) {
      throw InputError(path, 0, kPerPos, "position " + std::to_string(expected) + " is missing");
    }
    if (count > before) {
      throw InputError(path, 0, kPerPos,
                       "position " + std::to_string(position) +
                           " counted more often than the drafts or the position before it");
    }
    rates.push_back(before > 0 ? count / before : 0.0);
    before = count;
    ++expected;
  }
  return rates;
}

}  // namespace efimsim
