#pragma once
// A command's output folder, written whole or not at all. Outputs go into
// a staging folder beside the final one (<dir>.partial-<pid>); Commit moves
// each staged entry into the final folder, replacing an entry of the same
// name (a file by one rename, a folder by two), and removes the `stale`
// names the new output no longer has (compare's policy folders of an
// earlier run). Destroyed without Commit (an error, an interrupt), it
// removes the staging folder: a failed run leaves no new file or folder,
// and the previous complete output is as it was. Entries of the final folder
// that the command does not own are never touched. Commits of two processes
// into one folder take turns (a lock on the folder): it ends up holding the
// later one's whole output, never a mix.
#include <string>
#include <vector>

namespace efimsim::cli {

class StagedOutputDir {
 public:
  // `final_dir`: the --out folder (need not exist). Creates the staging
  // folder; OutputError when it cannot.
  explicit StagedOutputDir(std::string final_dir);
  ~StagedOutputDir();
  StagedOutputDir(const StagedOutputDir&) = delete;
  StagedOutputDir& operator=(const StagedOutputDir&) = delete;

  // Where the command writes ("<staging>/summary.json", ...).
  std::string Path(const std::string& name) const { return staging_ + "/" + name; }
  const std::string& dir() const { return staging_; }
  const std::string& final_dir() const { return final_dir_; }

  // Moves the staged outputs into the final folder (created if missing).
  // OutputError when a rename fails; the staging folder is then removed.
  // Interrupted, moving nothing, once a signal came (interrupt.h); a signal
  // during the moves waits for them (its handler only raises the flag).
  void Commit(const std::vector<std::string>& stale = {});

 private:
  std::string final_dir_;
  std::string staging_;
  std::string created_;  // the outermost folder this made for staging, removed on failure
  bool committed_ = false;
};

}  // namespace efimsim::cli
