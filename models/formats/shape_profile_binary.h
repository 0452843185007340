#pragma once
// The compact form of a shape profile, in which the build compiles the
// built-in profiles into the binary: decoding one takes well under a
// millisecond where parsing its 1.4 MB of JSON takes about 40 ms, most of a
// short run's start-up. The committed JSON stays the reviewed source: the
// build tool efimsim_compile_shape_profiles parses it with
// ParseShapeProfile (so a bad built-in fails the build) and encodes it.
// Never read from users' files.
//
// Layout: the magic "efimsim-shape-profile/compact-1\n", then every field of
// ShapeProfile but `origin`, in declaration order (shape_profile_binary.cc
// lists them once for both directions): int64 and double as their 8 bytes in
// the host's byte order (made and read by the same build), bool as one byte,
// strings and vectors as an int64 count followed by their items.

#include <string>
#include <string_view>

#include "models/formats/shape_profile.h"

namespace efimsim {

std::string EncodeShapeProfile(const ShapeProfile& profile);

// The profile `bytes` encode, with `origin` set. Throws InternalError when
// `bytes` is not exactly one encoding (wrong magic, a count beyond the bytes
// left, truncated, bytes left over).
ShapeProfile DecodeShapeProfile(std::string_view bytes, const std::string& origin);

}  // namespace efimsim
