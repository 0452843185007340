#include "sim/base/params.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "sim/base/errors.h"

namespace efimsim {
namespace {

[[noreturn]] void Reject(const ParamInfo& info, const std::string& expected,
                         const std::string& text) {
  throw UsageError("--" + info.name + ": expected " + expected + ", got '" + text + "'");
}

// Time options (unit s, ms or us) are bounded at 10^8 s (about 3 years)
// unless their row says less: a run's clock is int64 nanoseconds (292
// years), and an option past that would overflow it instead of being
// refused here.
constexpr double kMaxOptionSeconds = 1e8;

double UnitSeconds(const std::string& unit) {
  if (unit == "s") return 1;
  if (unit == "ms") return 1e-3;
  if (unit == "us") return 1e-6;
  return 0;
}

double MaxValue(const ParamInfo& info) {
  const double seconds = UnitSeconds(info.unit);
  return seconds > 0 ? std::min(info.max_value, kMaxOptionSeconds / seconds) : info.max_value;
}

std::string RangeText(const ParamInfo& info) {
  std::string out;
  if (std::isfinite(info.min_value)) out += " >= " + FormatDouble(info.min_value);
  if (std::isfinite(MaxValue(info))) {
    out += (out.empty() ? " <= " : " and <= ") + FormatDouble(MaxValue(info));
  }
  return out;
}

}  // namespace

std::string FormatDouble(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

ParamInfo Choice(std::string name, std::string help, std::vector<std::string> allowed) {
  ParamInfo info;
  info.name = std::move(name);
  info.help = std::move(help);
  info.allowed = std::move(allowed);
  return info;
}

ParamInfo ScopedTo(std::string selector, std::vector<std::string> parts, ParamInfo info) {
  info.scope = ParamScope{std::move(selector), std::move(parts)};
  return info;
}

void CheckAllowedValue(const ParamInfo& info, const std::string& text) {
  if (info.allowed.empty()) return;
  std::string names;
  for (const std::string& value : info.allowed) {
    if (value == text) return;
    names += (names.empty() ? "" : ", ") + value;
  }
  throw UsageError("--" + info.name + ": unknown value '" + text + "' (choose one of: " + names +
                   ")");
}

void CheckRange(const ParamInfo& info, double value, const std::string& text) {
  if (value < info.min_value || value > MaxValue(info) || std::isnan(value)) {
    Reject(info, "a number" + RangeText(info), text);
  }
}

int64_t ParseInt64Option(const ParamInfo& info, const std::string& text) {
  const std::string expected = "an integer" + RangeText(info);
  if (text.empty()) Reject(info, expected, text);
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE) {
    Reject(info, expected + (std::isfinite(MaxValue(info)) ? "" : " and <= 9223372036854775807"),
           text);
  }
  if (errno != 0 || end != text.c_str() + text.size()) Reject(info, expected, text);
  if (static_cast<double>(value) < info.min_value || static_cast<double>(value) > MaxValue(info)) {
    Reject(info, expected, text);
  }
  return value;
}

double ParseDoubleOption(const ParamInfo& info, const std::string& text) {
  const std::string expected = "a number" + RangeText(info);
  if (text.empty()) Reject(info, expected, text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(value)) {
    Reject(info, expected, text);
  }
  if (value < info.min_value || value > MaxValue(info)) Reject(info, expected, text);
  return value;
}

bool ParseBoolOption(const ParamInfo& info, const std::string& text) {
  if (text == "true" || text == "1" || text == "on" || text == "yes") return true;
  if (text == "false" || text == "0" || text == "off" || text == "no") return false;
  Reject(info, "true or false", text);
}

}  // namespace efimsim
