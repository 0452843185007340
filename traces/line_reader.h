#pragma once
// Streaming line reader for trace files, plain or gzip-compressed (zlib
// detects which). Memory is bounded by max_line_bytes plus a 64 KiB buffer,
// whatever the file size.

#include <cstdint>
#include <string>

namespace efimsim {

// Default bound on one line (or one CSV record) of any trace file: 64 MiB.
inline constexpr int64_t kDefaultMaxLineBytes = int64_t{64} << 20;

class LineReader {
 public:
  // Opens `path`. Throws InputError(path, 0, "", ...) when it cannot be opened.
  LineReader(std::string path, int64_t max_line_bytes = kDefaultMaxLineBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Reads the next line into `line`, without its terminating "\n" (a "\r"
  // before it is kept: callers decide). A last line without "\n" counts;
  // an empty file has no lines. Returns false at end of file. Throws
  // InputError(path, line, "", ...) for a line longer than max_line_bytes
  // or a read/decompression error.
  bool Next(std::string& line);

  // 1-based number of the line last returned by Next (0 before the first).
  int64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  int64_t max_line_bytes() const { return max_line_bytes_; }

 private:
  bool FillBuffer();  // false at end of file

  std::string path_;
  int64_t max_line_bytes_;
  void* file_ = nullptr;  // gzFile, kept opaque so zlib.h stays out of headers
  std::string buffer_;
  size_t buffer_pos_ = 0;
  bool eof_ = false;
  int64_t line_number_ = 0;
};

}  // namespace efimsim
