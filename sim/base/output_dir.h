#pragma once
#include <string>

namespace efimsim {

// Creates `dir` (and parents) if missing; throws OutputError with a clear
// message when it cannot be created or is not a writable directory.
void PrepareOutputDir(const std::string& dir);

// `dir` as the --out option gave it, without trailing slashes ("out/" ->
// "out"; "/" stays), so the paths printed from it have no "//".
std::string OutputDirOption(std::string dir);

// UsageError naming `option` when `path`'s folder does not exist or is not
// writable: checked before a command's work, not after it.
void CheckOutputFileDir(const std::string& option, const std::string& path);

// The outermost folder of `dir` that does not exist yet ("" when `dir`
// exists). OutputError when the nearest existing ancestor is not a
// writable folder, so `dir` could not be created: checked before the work.
std::string FirstMissingFolder(const std::string& dir);

}  // namespace efimsim
