#include "traces/source_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/base/errors.h"

namespace efimsim {
namespace fs = std::filesystem;

std::string DefaultPythonLibDir() {
  std::string best;
  int64_t best_minor = -1;
  std::error_code error;
  for (fs::directory_iterator it("/usr/lib", error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("python3.", 0) != 0 || !it->is_directory(error)) continue;
    const std::string minor_text = name.substr(8);
    if (minor_text.empty() ||
        !std::all_of(minor_text.begin(), minor_text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    const int64_t minor = std::stoll(minor_text);
    if (minor > best_minor) {
      best_minor = minor;
      best = it->path().string();
    }
  }
  return best;
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
    const std::string path = it->path().string();
    for (const std::string& extension : extensions) {
      if (path.size() >= extension.size() &&
          path.compare(path.size() - extension.size(), extension.size(), extension) == 0) {
        files.push_back(path);
        break;
      }
    }
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
