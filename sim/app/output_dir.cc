#include "sim/app/output_dir.h"

#include <unistd.h>

#include <filesystem>

#include "sim/base/errors.h"

namespace efimsim::cli {

void PrepareOutputDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    throw OutputError("--out: cannot create directory '" + dir + "': " + error.message());
  }
  if (!fs::is_directory(dir, error)) {
    throw OutputError("--out: '" + dir + "' is not a directory");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw OutputError("--out: directory '" + dir + "' is not writable");
  }
}

}  // namespace efimsim::cli
