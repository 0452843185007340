#include "sim/metrics/sample_series.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <string>
#include <utility>

#include "sim/base/errors.h"

namespace efimsim {
namespace {

// Samples read back per run at a time while merging (64 kB).
constexpr int64_t kMergeChunk = 8192;

[[noreturn]] void FailFile(const std::string& what) {
  throw OutputError("the latency samples' temporary file (runs of more than " +
                    std::to_string(SampleSeries::kDefaultSamplesInMemory) +
                    " requests keep them on disk; $TMPDIR or /tmp): " + what + ": " +
                    std::strerror(errno));
}

std::FILE* OpenUnlinkedTemporary() {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string path = (tmpdir != nullptr && *tmpdir != '\0' ? std::string(tmpdir) : "/tmp") +
                     "/efimsim-samples-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) FailFile("cannot create " + path);
  unlink(path.c_str());  // gone with the last descriptor, however the process ends
  std::FILE* file = fdopen(fd, "w+b");
  if (file == nullptr) {
    close(fd);
    FailFile("cannot open " + path);
  }
  return file;
}

// One sorted run being read back in chunks.
struct RunCursor {
  int64_t offset = 0;  // next sample's index in the file
  int64_t left = 0;    // samples of the run not yet read into `chunk`
  std::vector<double> chunk;
  size_t at = 0;
};

}  // namespace

SampleSeries::SampleSeries(size_t samples_in_memory)
    : samples_in_memory_(std::max<size_t>(samples_in_memory, 1)) {}
SampleSeries::SampleSeries(SampleSeries&&) noexcept = default;
SampleSeries& SampleSeries::operator=(SampleSeries&&) noexcept = default;
SampleSeries::~SampleSeries() = default;

void SampleSeries::Add(double value) {
  buffer_.push_back(value);
  if (buffer_.size() >= samples_in_memory_) Spill();
}

void SampleSeries::Spill() {
  if (buffer_.empty()) return;
  if (file_ == nullptr) file_.reset(OpenUnlinkedTemporary());
  std::sort(buffer_.begin(), buffer_.end());
  if (fseeko(file_.get(), static_cast<off_t>(spilled_) * static_cast<off_t>(sizeof(double)),
             SEEK_SET) != 0 ||
      std::fwrite(buffer_.data(), sizeof(double), buffer_.size(), file_.get()) != buffer_.size()) {
    FailFile("cannot write");
  }
  const auto length = static_cast<int64_t>(buffer_.size());
  runs_.push_back({spilled_, length});
  spilled_ += length;
  buffer_.clear();
}

Distribution SampleSeries::Summarize() {
  if (file_ == nullptr) return efimsim::Summarize(std::move(buffer_));
  return MergeRuns();
}

Distribution SampleSeries::MergeRuns() {
  Spill();  // what is left in memory, as the last run
  if (std::fflush(file_.get()) != 0) FailFile("cannot write");
  const auto n = static_cast<size_t>(spilled_);
  const PercentileRank ranks[3] = {PercentileRankOf(n, 50), PercentileRankOf(n, 90),
                                   PercentileRankOf(n, 99)};
  double below[3] = {0, 0, 0};
  double above[3] = {0, 0, 0};

  std::vector<RunCursor> cursors(runs_.size());
  auto refill = [&](RunCursor& c) {
    const int64_t count = std::min(c.left, kMergeChunk);
    c.chunk.resize(static_cast<size_t>(count));
    c.at = 0;
    if (fseeko(file_.get(), static_cast<off_t>(c.offset) * static_cast<off_t>(sizeof(double)),
               SEEK_SET) != 0 ||
        std::fread(c.chunk.data(), sizeof(double), c.chunk.size(), file_.get()) != c.chunk.size()) {
      FailFile("cannot read back");
    }
    c.offset += count;
    c.left -= count;
  };
  // Smallest value first; ties by run, so the order is deterministic.
  using Head = std::pair<double, size_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  for (size_t r = 0; r < runs_.size(); ++r) {
    cursors[r].offset = runs_[r].offset;
    cursors[r].left = runs_[r].length;
    refill(cursors[r]);
    heads.push({cursors[r].chunk[0], r});
  }
  double sum = 0;
  double last = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto [value, r] = heads.top();
    heads.pop();
    sum += value;  // ascending order, as Summarize sums its sorted vector
    last = value;
    for (int k = 0; k < 3; ++k) {
      if (i == ranks[k].below) below[k] = value;
      if (i == ranks[k].above) above[k] = value;
    }
    RunCursor& c = cursors[r];
    if (++c.at == c.chunk.size()) {
      if (c.left == 0) continue;
      refill(c);
    }
    heads.push({c.chunk[c.at], r});
  }
  Distribution d;
  d.count = static_cast<int64_t>(n);
  d.mean = sum / static_cast<double>(n);
  d.p50 = ranks[0].Of(below[0], above[0]);
  d.p90 = ranks[1].Of(below[1], above[1]);
  d.p99 = ranks[2].Of(below[2], above[2]);
  d.max = last;
  file_.reset();
  runs_.clear();
  spilled_ = 0;
  return d;
}

}  // namespace efimsim
