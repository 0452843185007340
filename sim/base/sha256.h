#pragma once
// SHA-256 (FIPS 180-4), for naming the exact bytes an imported profile was
// made from. Not for security: provenance only.

#include <string>
#include <string_view>

namespace efimsim {

// The digest of `bytes` as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view bytes);

}  // namespace efimsim
