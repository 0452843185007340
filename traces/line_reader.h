#pragma once
// Streaming line reader for trace files, plain or gzip-compressed (zlib
// detects which). Memory is bounded by max_line_bytes plus a 64 KiB buffer,
// whatever the file size.

#include <cstdint>
#include <string>

#include "sim/base/errors.h"

namespace efimsim {

// Default bound on one line (or one CSV record) of any trace file: 64 MiB.
inline constexpr int64_t kDefaultMaxLineBytes = int64_t{64} << 20;

// What a reader does with a line (or CSV record) longer than its maximum:
// kFail throws InputError naming the file and line (`efimsim convert`: a
// conversion must be faithful); kSkip skips it and counts it
// (TraceReader::skipped_lines; a run reports it in summary.json), together
// with the records that depended on it.
enum class LongLinePolicy { kFail, kSkip };

// How much of a skipped line's start LineReader::Read returns, so a reader
// can tell what the line held (its record type, its session).
inline constexpr size_t kSkippedLineHeadBytes = 4096;

// One outcome of LineReader::Read.
enum class LineRead { kLine, kTooLong, kEndOfFile };

class LineReader {
 public:
  // Opens `path`. Throws InputError(path, 0, "", ...) when it cannot be opened.
  // `long_lines` decides what Read does with a line over max_line_bytes.
  LineReader(std::string path, int64_t max_line_bytes = kDefaultMaxLineBytes,
             LongLinePolicy long_lines = LongLinePolicy::kFail);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Reads the next line into `line`, without its terminating "\n" (a "\r"
  // before it is kept: callers decide). A last line without "\n" counts;
  // an empty file has no lines. Returns false at end of file. Throws
  // InputError(path, line, "", ...) for a line longer than max_line_bytes
  // (whatever the policy: readers take header lines with Next) or a
  // read/decompression error.
  bool Next(std::string& line);

  // As Next, but with LongLinePolicy::kSkip a line longer than
  // max_line_bytes is not an error: it is consumed without being held in
  // memory (streamed past up to its "\n"), counted in line_number(), and
  // kTooLong is returned with its first kSkippedLineHeadBytes bytes in
  // `line` and the number of '"' bytes in the whole line in
  // skipped_line_quotes(). With kFail it throws as Next does.
  LineRead Read(std::string& line);

  // Double-quote bytes in the line of the last kTooLong (its parity says
  // whether a CSV quoted field opens or closes in it).
  int64_t skipped_line_quotes() const { return skipped_line_quotes_; }

  // 1-based number of the line last returned by Next (0 before the first).
  int64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }
  int64_t max_line_bytes() const { return max_line_bytes_; }

 private:
  bool FillBuffer();  // false at end of file
  // The InputError for the too-long line just counted.
  InputError TooLongError() const;
  // Consumes the rest of a too-long line from buffer_pos_ on, counting its
  // quotes (the head was already taken); leaves buffer_pos_ after its "\n".
  void SkipRestOfLine();

  std::string path_;
  int64_t max_line_bytes_;
  LongLinePolicy long_lines_;
  void* file_ = nullptr;  // gzFile, kept opaque so zlib.h stays out of headers
  std::string buffer_;
  size_t buffer_pos_ = 0;
  bool eof_ = false;
  int64_t line_number_ = 0;
  int64_t skipped_line_quotes_ = 0;
};

}  // namespace efimsim
