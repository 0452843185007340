#include "sim/base/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sim/base/errors.h"

namespace efimsim {

AtomicOutputFile::AtomicOutputFile(std::string path)
    : path_(std::move(path)), temp_path_(path_ + ".tmp-" + std::to_string(::getpid())) {
  out_.open(temp_path_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    throw OutputError("cannot write '" + path_ + "': " + std::strerror(errno) +
                      " (does the directory exist and is it writable?)");
  }
}

AtomicOutputFile::~AtomicOutputFile() {
  if (!committed_) {
    out_.close();
    std::remove(temp_path_.c_str());
  }
}

void AtomicOutputFile::Commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) {
    std::remove(temp_path_.c_str());
    committed_ = true;
    throw OutputError("writing '" + path_ + "' failed (disk full?); no file was written");
  }
  if (std::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temp_path_.c_str());
    committed_ = true;
    throw OutputError("cannot rename into '" + path_ + "': " + reason);
  }
  committed_ = true;
}

void WriteFileAtomically(const std::string& path, const std::string& content) {
  AtomicOutputFile file(path);
  file.stream() << content;
  file.Commit();
}

}  // namespace efimsim
