#include "sim/base/output_dir.h"

#include <unistd.h>

#include <filesystem>

#include "sim/base/errors.h"

namespace efimsim {

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

std::string FirstMissingFolder(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::path path = fs::absolute(fs::path(dir)).lexically_normal();
  std::string missing;
  std::error_code error;
  while (!fs::exists(path, error)) {
    missing = path.string();
    if (!path.has_parent_path() || path.parent_path() == path) break;
    path = path.parent_path();
  }
  if (!fs::is_directory(path, error) || ::access(path.c_str(), W_OK) != 0) {
    throw OutputError("--out: cannot create '" + dir + "': " + path.string() +
                      " is not a writable directory");
  }
  return missing;
}

std::string OutputDirOption(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

void CheckOutputFileDir(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? std::string(".") : parent.string();
  std::error_code error;
  if (!fs::is_directory(dir, error)) {
    throw UsageError(option + ": folder '" + dir + "' of " + path + " does not exist");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw UsageError(option + ": folder '" + dir + "' of " + path + " is not writable");
  }
}

}  // namespace efimsim
