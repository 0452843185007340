#pragma once
// Source-code files on this machine, used as real documents when a
// directory is named (--corpus-dir; source_documents.h).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace efimsim {

// Whether `path` ends with one of `extensions` (e.g. ".py").
bool HasExtension(std::string_view path, const std::vector<std::string>& extensions);

// Regular files under `dir` (recursively; symlinked directories not
// followed, unreadable directories skipped) whose names end with one of
// `extensions` (e.g. ".py"), sorted by path in byte order so every run sees
// the same list. Throws InputError(dir, 0, "", ...) when dir is not a directory.
std::vector<std::string> ListSourceFiles(const std::string& dir,
                                         const std::vector<std::string>& extensions);

// The whole content of `path`. Throws
// InputError(path, 0, "", ...) when unreadable or larger than max_bytes.
std::string ReadWholeFile(const std::string& path, int64_t max_bytes);

}  // namespace efimsim
