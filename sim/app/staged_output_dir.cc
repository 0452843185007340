#include "sim/app/staged_output_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>

#include "sim/app/interrupt.h"
#include "sim/base/output_dir.h"
#include "sim/base/errors.h"

namespace efimsim::cli {
namespace fs = std::filesystem;
namespace {

// An exclusive lock on a folder (flock on its descriptor) for the life of
// the object: two efimsim processes committing into the same --out take
// turns, so the folder holds one whole output, the later one, never a mix.
// The lock goes with the descriptor, also when the process dies.
class FolderLock {
 public:
  explicit FolderLock(const std::string& dir) : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY)) {
    if (fd_ < 0) throw OutputError("--out: cannot open " + dir + " to lock it");
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        ::close(fd_);
        throw OutputError("--out: cannot lock " + dir);
      }
    }
  }
  ~FolderLock() { ::close(fd_); }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_;
};

}  // namespace

StagedOutputDir::StagedOutputDir(std::string final_dir)
    : final_dir_(OutputDirOption(std::move(final_dir))),
      staging_(final_dir_ + ".partial-" + std::to_string(::getpid())) {
  // Missing parents are created (as --out always did) and, if the run
  // fails, removed again.
  created_ = FirstMissingFolder(staging_);
  std::error_code error;
  fs::remove_all(staging_, error);  // a leftover of a killed run with our pid
  PrepareOutputDir(staging_);
}

StagedOutputDir::~StagedOutputDir() {
  if (committed_) return;
  std::error_code error;
  fs::remove_all(created_.empty() ? staging_ : created_, error);
}

void StagedOutputDir::Commit(const std::vector<std::string>& stale) {
  ThrowIfInterrupted();  // the last moment to stop; the moves below are not cut short
  try {
    PrepareOutputDir(final_dir_);
    const FolderLock lock(final_dir_);  // another process's commit into it waits, or we do
    std::vector<std::string> names;
    for (const fs::directory_entry& entry : fs::directory_iterator(staging_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      const fs::path target = fs::path(final_dir_) / name;
      const fs::path staged = fs::path(staging_) / name;
      if (fs::is_directory(staged) && fs::exists(target)) {
        // A folder cannot be renamed over a non-empty one: move the old one
        // aside first, then drop it.
        const fs::path old = fs::path(staging_ + ".old") / name;
        fs::create_directories(old.parent_path());
        fs::rename(target, old);
      }
      fs::rename(staged, target);
    }
    for (const std::string& name : stale) {
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      fs::remove_all(fs::path(final_dir_) / name);
    }
    fs::remove_all(staging_ + ".old");
    fs::remove_all(staging_);
  } catch (const fs::filesystem_error& error) {
    throw OutputError("--out: moving the outputs into " + final_dir_ + ": " + error.what());
  }
  committed_ = true;
}

}  // namespace efimsim::cli
