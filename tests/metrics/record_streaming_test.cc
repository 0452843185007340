// Streaming request records: RequestIdOrder restores id order, the streamed
// requests.csv equals the one rendered from all records, and a summary built
// from records in finish order equals one from id order.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "sim/base/check.h"
#include "sim/core/random.h"
#include "sim/metrics/output_writers.h"
#include "sim/metrics/request_id_order.h"
#include "sim/metrics/requests_csv_writer.h"
#include "sim/metrics/summary.h"

namespace efimsim {
namespace {

class CollectingSink : public RequestRecordSink {
 public:
  void Add(const RequestRecord& record) override { records.push_back(record); }
  std::vector<RequestRecord> records;
};

RequestRecord Record(uint64_t id, RandomStream& rng) {
  RequestRecord r;
  r.request_id = id;
  r.user = static_cast<int64_t>(id % 7);
  r.arrival = TimePoint{Nanoseconds(rng.UniformInt(0, 1000000))};
  r.first_scheduled = r.arrival + Nanoseconds(rng.UniformInt(0, 5000));
  r.first_token = r.first_scheduled + Nanoseconds(rng.UniformInt(1, 5000));
  r.finish = r.first_token + Nanoseconds(rng.UniformInt(0, 50000));
  r.prompt_tokens = rng.UniformInt(1, 4000);
  r.output_tokens = rng.UniformInt(1, 64);
  r.cancelled = rng.UniformInt(0, 9) == 0;
  if (r.cancelled) r.first_token = TimePoint::max();
  return r;
}

TEST(RequestIdOrder, PassesRecordsOnInIdOrderSkippingRejectedIds) {
  CollectingSink sink;
  RequestIdOrder order(sink);
  RandomStream rng = RandomStream::Derive(3, 0, "test.id_order");
  order.Add(Record(2, rng));
  order.Skip(1);
  EXPECT_TRUE(sink.records.empty());  // id 0 is still in flight
  EXPECT_EQ(order.held(), 3);
  order.Add(Record(0, rng));
  ASSERT_EQ(sink.records.size(), 2u);
  EXPECT_EQ(sink.records[0].request_id, 0u);
  EXPECT_EQ(sink.records[1].request_id, 2u);
  EXPECT_EQ(order.held(), 0);
  order.Finish();
  order.Add(Record(4, rng));
  EXPECT_THROW(order.Finish(), InternalError);  // id 3 never ended
  EXPECT_THROW(order.Add(Record(4, rng)), InternalError);  // ended twice
}

TEST(RecordStreaming, StreamedCsvAndSummaryEqualTheWholeRunOnes) {
  RandomStream rng = RandomStream::Derive(5, 0, "test.record_streaming");
  std::vector<RequestRecord> by_id;
  for (uint64_t id = 0; id < 500; ++id) by_id.push_back(Record(id, rng));
  std::vector<RequestRecord> by_finish = by_id;
  std::stable_sort(by_finish.begin(), by_finish.end(),
                   [](const RequestRecord& a, const RequestRecord& b) { return a.finish < b.finish; });
  ASSERT_NE(by_finish.front().request_id, 0u);  // really out of order

  const std::string path =
      (std::filesystem::temp_directory_path() / ("efimsim-stream-" + std::to_string(getpid()) + ".csv"))
          .string();
  RunSummaryBuilder builder;
  {
    RequestsCsvWriter writer(path);
    RequestIdOrder order(writer);
    for (const RequestRecord& r : by_finish) {
      builder.Add(r);
      order.Add(r);
    }
    order.Finish();
    EXPECT_FALSE(std::filesystem::exists(path));  // nothing under the name before Commit
    writer.Commit();
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream streamed;
  streamed << in.rdbuf();
  std::filesystem::remove(path);
  EXPECT_EQ(streamed.str(), RenderRequestsCsv(by_id));

  EngineCounters counters;
  counters.steps = 9;
  const RunSummary whole = SummarizeRun(by_id, counters);
  const RunSummary streamed_summary = builder.Build(counters);
  RunInfo info;
  EXPECT_EQ(RenderSummaryJson(info, streamed_summary), RenderSummaryJson(info, whole));
}

TEST(RequestsCsv, SpansAreTheSameTextAsPrintfOfMilliseconds) {
  // requests.csv prints spans from integer nanoseconds; they must read as
  // FormatFixed(ToMilliseconds(span), 6) did, for spans up to 10^15 ns.
  RandomStream rng = RandomStream::Derive(8, 0, "test.csv_spans");
  std::vector<RequestRecord> records;
  std::vector<int64_t> spans;
  for (int i = 0; i < 20000; ++i) {
    const int64_t span = rng.UniformInt(0, int64_t{1} << rng.UniformInt(0, 49));  // < 5.6e14
    RequestRecord r;
    r.request_id = static_cast<uint64_t>(i);
    r.arrival = TimePoint{Nanoseconds(rng.UniformInt(0, 1000000))};
    r.first_scheduled = r.arrival + Nanoseconds(span);
    r.first_token = r.first_scheduled;
    r.finish = r.first_token;
    r.output_tokens = 1;
    records.push_back(r);
    spans.push_back(span);
  }
  std::istringstream csv(RenderRequestsCsv(records));
  std::string line;
  std::getline(csv, line);  // header
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_TRUE(std::getline(csv, line));
    std::vector<std::string> fields;
    std::stringstream row(line);
    for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
    ASSERT_GE(fields.size(), 12u);
    EXPECT_EQ(fields[11], FormatFixed(ToMilliseconds(Nanoseconds(spans[i])), 6)) << spans[i];
  }
}

TEST(RecordStreaming, AnUncommittedWriterLeavesNoFile) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("efimsim-uncommitted-" + std::to_string(getpid()) + ".csv"))
          .string();
  {
    RequestsCsvWriter writer(path);
    RandomStream rng = RandomStream::Derive(6, 0, "test.record_streaming");
    writer.Add(Record(0, rng));
  }
  const std::string name = std::filesystem::path(path).filename().string();
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
    EXPECT_NE(entry.path().filename().string().rfind(name, 0), 0u) << entry.path();  // no temp left
  }
}

}  // namespace
}  // namespace efimsim

namespace efimsim {
namespace {

TEST(RequestsCsv, TpotIsTheSameTextAsPrintf) {
  // The tpot column is printed with std::to_chars; it must read as
  // FormatFixed (snprintf "%.6f") of the same double.
  RandomStream rng = RandomStream::Derive(9, 0, "test.csv_tpot");
  std::vector<RequestRecord> records;
  for (int i = 0; i < 20000; ++i) {
    RequestRecord r;
    r.request_id = static_cast<uint64_t>(i);
    r.arrival = TimePoint{Nanoseconds(0)};
    r.first_scheduled = r.arrival;
    r.first_token = TimePoint{Nanoseconds(rng.UniformInt(0, 1000000))};
    r.finish = r.first_token + Nanoseconds(rng.UniformInt(0, int64_t{1} << rng.UniformInt(0, 49)));
    r.output_tokens = rng.UniformInt(2, 5000);
    records.push_back(r);
  }
  std::istringstream csv(RenderRequestsCsv(records));
  std::string line;
  std::getline(csv, line);  // header
  for (const RequestRecord& r : records) {
    ASSERT_TRUE(std::getline(csv, line));
    std::vector<std::string> fields;
    std::stringstream row(line);
    for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
    ASSERT_GE(fields.size(), 14u);
    EXPECT_EQ(fields[13], FormatFixed(r.tpot_ms(), 6));
  }
}

}  // namespace
}  // namespace efimsim
