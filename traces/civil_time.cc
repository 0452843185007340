#include "traces/civil_time.h"

namespace efimsim {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Reads exactly `digits` decimal digits at text[pos]; advances pos.
bool ReadDigits(std::string_view text, size_t& pos, size_t digits, int64_t& value) {
  if (text.size() - pos < digits) return false;
  value = 0;
  for (size_t i = 0; i < digits; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  pos += digits;
  return true;
}

bool Expect(std::string_view text, size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<int64_t> ParseCivilTimeNs(std::string_view text) {
  size_t pos = 0;
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!ReadDigits(text, pos, 4, year) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 2, month) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 2, day)) {
    return std::nullopt;
  }
  if (pos >= text.size() || (text[pos] != ' ' && text[pos] != 'T')) return std::nullopt;
  ++pos;
  if (!ReadDigits(text, pos, 2, hour) || !Expect(text, pos, ':') ||
      !ReadDigits(text, pos, 2, minute) || !Expect(text, pos, ':') ||
      !ReadDigits(text, pos, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  int64_t fraction_ns = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int64_t scale = 100000000;
    size_t digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (++digits > 9) return std::nullopt;
      fraction_ns += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
  }
  int64_t zone_offset_s = 0;
  if (pos < text.size()) {
    const char sign = text[pos++];
    if (sign == 'Z') {
      // UTC
    } else if (sign == '+' || sign == '-') {
      int64_t zone_hours = 0, zone_minutes = 0;
      if (!ReadDigits(text, pos, 2, zone_hours)) return std::nullopt;
      if (pos < text.size() && text[pos] == ':') ++pos;
      if (!ReadDigits(text, pos, 2, zone_minutes)) return std::nullopt;
      if (zone_hours > 23 || zone_minutes > 59) return std::nullopt;
      zone_offset_s = (zone_hours * 3600 + zone_minutes * 60) * (sign == '+' ? 1 : -1);
    } else {
      return std::nullopt;
    }
  }
  if (pos != text.size()) return std::nullopt;
  const int64_t seconds =
      DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - zone_offset_s;
  // int64 nanoseconds since 1970 reach years 1677 to 2262; beyond, no time.
  int64_t ns = 0;
  if (__builtin_mul_overflow(seconds, int64_t{1000000000}, &ns) ||
      __builtin_add_overflow(ns, fraction_ns, &ns)) {
    return std::nullopt;
  }
  return ns;
}

}  // namespace efimsim
