#include "traces/source_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/base/errors.h"

namespace efimsim {
namespace fs = std::filesystem;

bool HasExtension(std::string_view path, const std::vector<std::string>& extensions) {
  for (const std::string& extension : extensions) {
    if (path.size() >= extension.size() &&
        path.compare(path.size() - extension.size(), extension.size(), extension) == 0) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> ListSourceFiles(const std::string& dir,
                                         const std::vector<std::string>& extensions) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) throw InputError(dir, 0, "", "not a directory");
  std::vector<std::string> files;
  const auto options = fs::directory_options::skip_permission_denied;
  for (fs::recursive_directory_iterator it(dir, options, error), end; !error && it != end;
       it.increment(error)) {
    if (!it->is_regular_file(error)) continue;
    std::string path = it->path().string();
    if (HasExtension(path, extensions)) files.push_back(std::move(path));
  }
  if (error) throw InputError(dir, 0, "", "cannot list: " + error.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadWholeFile(const std::string& path, int64_t max_bytes) {
  std::error_code error;
  const auto size = fs::file_size(path, error);
  if (error) throw InputError(path, 0, "", "cannot read: " + error.message());
  if (static_cast<int64_t>(size) > max_bytes) {
    throw InputError(path, 0, "", "larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open");
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace efimsim
