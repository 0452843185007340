#pragma once
#include <string>

namespace efimsim::cli {

// Creates `dir` (and parents) if missing; throws OutputError with a clear
// message when it cannot be created or is not a writable directory.
void PrepareOutputDir(const std::string& dir);

}  // namespace efimsim::cli
