#include "traces/line_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace efimsim {
namespace {

constexpr unsigned kReadChunkBytes = 64 * 1024;

gzFile AsGz(void* file) { return static_cast<gzFile>(file); }

}  // namespace

LineReader::LineReader(std::string path, int64_t max_line_bytes, LongLinePolicy long_lines)
    : path_(std::move(path)), max_line_bytes_(max_line_bytes), long_lines_(long_lines) {
  if (max_line_bytes_ < 1) throw UsageError("max line length must be at least 1 byte");
  errno = 0;
  gzFile file = gzopen(path_.c_str(), "rb");
  if (file == nullptr) {
    throw InputError(path_, 0, "",
                     std::string("cannot open: ") + (errno != 0 ? std::strerror(errno) : "zlib error"));
  }
  gzbuffer(file, kReadChunkBytes);
  file_ = file;
}

LineReader::~LineReader() {
  if (file_ != nullptr) gzclose(AsGz(file_));
}

bool LineReader::FillBuffer() {
  if (eof_) return false;
  buffer_.erase(0, buffer_pos_);
  buffer_pos_ = 0;
  const size_t old_size = buffer_.size();
  buffer_.resize(old_size + kReadChunkBytes);
  const int got = gzread(AsGz(file_), buffer_.data() + old_size, kReadChunkBytes);
  if (got < 0) {
    int code = 0;
    const char* message = gzerror(AsGz(file_), &code);
    throw InputError(path_, line_number_ + 1, "", std::string("read error: ") + message);
  }
  buffer_.resize(old_size + static_cast<size_t>(got));
  if (got == 0) {
    // gzread returns 0 at a clean end of file; a truncated gzip stream sets an error.
    int code = 0;
    const char* message = gzerror(AsGz(file_), &code);
    if (code != Z_OK && code != Z_BUF_ERROR) {
      throw InputError(path_, line_number_ + 1, "", std::string("read error: ") + message);
    }
    if (code == Z_BUF_ERROR) {
      throw InputError(path_, line_number_ + 1, "", "truncated gzip stream");
    }
    eof_ = true;
    return false;
  }
  return true;
}

bool LineReader::Next(std::string& line) {
  switch (Read(line)) {
    case LineRead::kLine: return true;
    case LineRead::kEndOfFile: return false;
    case LineRead::kTooLong: break;
  }
  throw TooLongError();
}

InputError LineReader::TooLongError() const {
  return InputError(path_, line_number_, "",
                    "line longer than the maximum of " + std::to_string(max_line_bytes_) +
                        " bytes (raise the max line length if the file is right)");
}

LineRead LineReader::Read(std::string& line) {
  size_t scan_from = buffer_pos_;
  while (true) {
    const size_t newline = buffer_.find('\n', scan_from);
    const size_t end = newline != std::string::npos ? newline : buffer_.size();
    if (static_cast<int64_t>(end - buffer_pos_) > max_line_bytes_) {
      ++line_number_;
      if (long_lines_ == LongLinePolicy::kFail) throw TooLongError();
      line.assign(buffer_, buffer_pos_, std::min<size_t>(end - buffer_pos_, kSkippedLineHeadBytes));
      SkipRestOfLine();
      return LineRead::kTooLong;
    }
    if (newline != std::string::npos) {
      line.assign(buffer_, buffer_pos_, newline - buffer_pos_);
      buffer_pos_ = newline + 1;
      ++line_number_;
      return LineRead::kLine;
    }
    const size_t pending = buffer_.size() - buffer_pos_;
    if (!FillBuffer()) {
      if (pending == 0) return LineRead::kEndOfFile;
      line.assign(buffer_, buffer_pos_, pending);
      buffer_pos_ = buffer_.size();
      ++line_number_;
      return LineRead::kLine;
    }
    scan_from = pending;  // FillBuffer moved the pending bytes to the front
  }
}

void LineReader::SkipRestOfLine() {
  skipped_line_quotes_ = 0;
  while (true) {
    const size_t newline = buffer_.find('\n', buffer_pos_);
    const size_t end = newline != std::string::npos ? newline : buffer_.size();
    skipped_line_quotes_ += std::count(buffer_.begin() + static_cast<std::ptrdiff_t>(buffer_pos_),
                                       buffer_.begin() + static_cast<std::ptrdiff_t>(end), '"');
    if (newline != std::string::npos) {
      buffer_pos_ = newline + 1;
      return;
    }
    buffer_pos_ = buffer_.size();  // nothing of the line is kept
    if (!FillBuffer()) return;     // a last line without "\n"
  }
}

}  // namespace efimsim
