#pragma once
// The samples of one metric over a run (a latency per completed request),
// summarised exactly (Distribution) in memory bounded whatever the run's
// length. Up to `samples_in_memory` samples are held and summarised by
// Summarize(std::vector). Past that, each full buffer is sorted and written
// as one sorted run to an unlinked temporary file in $TMPDIR (else /tmp),
// which nothing outlives; Summarize() then merges the runs in ascending
// order, so the sum (taken in that order) and every order statistic are
// those of the in-memory path, to the bit. Costs: 8 bytes of disk per sample
// past the bound, one sort per run, one merge pass at the end.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "sim/metrics/distribution.h"

namespace efimsim {

class SampleSeries {
 public:
  // 2 MB of samples: a run of 262,144 requests never touches the disk.
  static constexpr size_t kDefaultSamplesInMemory = size_t{1} << 18;

  explicit SampleSeries(size_t samples_in_memory = kDefaultSamplesInMemory);
  SampleSeries(SampleSeries&&) noexcept;
  SampleSeries& operator=(SampleSeries&&) noexcept;
  ~SampleSeries();

  // Throws OutputError when a full buffer cannot be written to the file.
  void Add(double value);
  int64_t size() const { return spilled_ + static_cast<int64_t>(buffer_.size()); }
  // The distribution of every sample added; spends the series. Throws
  // OutputError when the file cannot be written or read back.
  Distribution Summarize();

 private:
  struct Run {
    int64_t offset = 0;  // in samples from the file's start
    int64_t length = 0;
  };
  struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };

  void Spill();
  Distribution MergeRuns();

  size_t samples_in_memory_;
  std::vector<double> buffer_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::vector<Run> runs_;
  int64_t spilled_ = 0;
};

}  // namespace efimsim
