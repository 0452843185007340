#pragma once
// Where real-code documents come from (the paper workload's code corpus, the
// typing workload): by default the pinned corpus compiled into the binary
// (pinned_corpus.h), the same bytes on every machine; when asked
// (--corpus-dir), the source files of a directory on this machine.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace efimsim {

class SourceDocuments {
 public:
  // directory "": the pinned corpus' files; otherwise the regular files
  // under `directory` (ListSourceFiles). Either way only names ending with
  // one of `extensions` (e.g. ".py"). Throws InputError(directory, 0, "", ...)
  // when directory is not a listable directory.
  static SourceDocuments Open(const std::string& directory,
                              const std::vector<std::string>& extensions);

  size_t size() const { return paths_.size(); }
  // Document i's path, sorted in byte order: the file's path under the
  // directory, or "<corpus name>/<name>" for the pinned corpus.
  const std::string& path(size_t i) const { return paths_[i]; }
  // Document i's path relative to the directory or corpus, e.g.
  // "asyncio/tasks.py".
  std::string_view name(size_t i) const;
  // Document i's bytes, read now. Throws InputError(path(i), 0, "", ...) when
  // unreadable or larger than max_bytes.
  std::string Read(size_t i, int64_t max_bytes) const;
  // What the documents are, for run descriptions: "pinned corpus
  // cpython-3.11.2" or the directory.
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::vector<std::string> paths_;
  size_t root_bytes_ = 0;                // of each path before its name
  std::vector<std::string_view> pinned_;  // texts, parallel to paths_; empty for a directory
};

}  // namespace efimsim
