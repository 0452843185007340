#pragma once
// Output files are written completely or not at all: content goes to a
// temporary file beside the target ("<path>.tmp-<pid>") and is renamed over
// the target only by Commit(). A writer destroyed without Commit() (an
// exception, an interrupted run) removes its temporary file.

#include <fstream>
#include <string>

namespace efimsim {

class AtomicOutputFile {
 public:
  // Throws OutputError naming the path if the temporary file cannot be created.
  explicit AtomicOutputFile(std::string path);
  ~AtomicOutputFile();
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  std::ostream& stream() { return out_; }
  // Flushes, closes and renames; throws OutputError on any write failure.
  void Commit();

 private:
  std::string path_;
  std::string temp_path_;
  std::ofstream out_;
  bool committed_ = false;
};

// Convenience: writes `content` to `path` atomically.
void WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace efimsim
