#pragma once
// Wall-clock timestamps in imported traces, to integer nanoseconds since the
// Unix epoch (proleptic Gregorian calendar, no leap seconds).

#include <cstdint>
#include <optional>
#include <string_view>

namespace efimsim {

// Parses "YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS", optionally followed
// by a fraction of 1-9 digits (".9799600") and a zone ("Z", "+03:00",
// "-0500"). Without a zone the time is taken as UTC. Returns nullopt for
// anything else (the caller reports file:line:field).
std::optional<int64_t> ParseCivilTimeNs(std::string_view text);

}  // namespace efimsim
