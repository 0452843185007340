// Open-loop rate scaling (traces/rate_scaled_trace_reader.h): arrivals
// scaled exactly in integer ns, sessions keeping their internal timing,
// output re-sorted by time.
#include "traces/rate_scaled_trace_reader.h"

#include <deque>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "traces/listed_trace_reader.h"

namespace efimsim {
namespace {


TraceRequest Request(int64_t arrival_ns) {
  TraceRequest r;
  r.arrival_ns = arrival_ns;
  r.prompt_tokens = 10;
  r.output_tokens = 1;
  return r;
}
SessionStart Session(const std::string& id, int64_t time_ns) {
  SessionStart s;
  s.time_ns = time_ns;
  s.session_id = id;
  s.user_id = "u-" + id;
  s.document_id = std::string("d");  // not operator=(const char*): g++ 12 -Wrestrict false positive
  s.text = std::string("x");
  return s;
}
EditEvent Edit(const std::string& id, int64_t time_ns, EditKind kind = EditKind::kInsert) {
  EditEvent e;
  e.time_ns = time_ns;
  e.session_id = id;
  e.kind = kind;
  if (kind == EditKind::kInsert) e.text = "y";
  return e;
}

// (time, what) of every record the scaled reader yields.
std::vector<std::pair<int64_t, std::string>> Scaled(std::vector<TraceRecord> records, double x) {
  RateScaledTraceReader reader(std::make_unique<ListedTraceReader>(std::move(records)), x);
  std::vector<std::pair<int64_t, std::string>> out;
  while (auto record = reader.Next()) {
    std::string what = "request";
    if (const auto* s = std::get_if<SessionStart>(&*record)) what = "start " + s->session_id;
    if (const auto* e = std::get_if<EditEvent>(&*record)) {
      what = std::string(EditKindName(e->kind)) + " " + e->session_id;
    }
    out.emplace_back(RecordTimeNs(*record), what);
  }
  return out;
}

TEST(RateScaledTraceReader, ScalesRequestArrivalsAndTheirGapsExactly) {
  const std::vector<int64_t> arrivals = {0, 1'000, 3'000, 7'000, 7'000, 1'000'000'000'000};
  for (const double x : {2.0, 0.5, 4.0, 0.25, 1.0}) {
    std::vector<TraceRecord> records;
    for (const int64_t t : arrivals) records.push_back(Request(t));
    const auto out = Scaled(records, x);
    ASSERT_EQ(out.size(), arrivals.size());
    for (size_t i = 0; i < arrivals.size(); ++i) {
      // Every t / x here is an integer, so the scaling is exact.
      EXPECT_EQ(out[i].first, static_cast<int64_t>(static_cast<double>(arrivals[i]) / x)) << x;
      if (i > 0) {
        EXPECT_EQ(static_cast<double>(out[i].first - out[i - 1].first),
                  static_cast<double>(arrivals[i] - arrivals[i - 1]) / x);
      }
    }
  }
}

TEST(RateScaledTraceReader, RoundsToTheNearestNanosecond) {
  // llround(t / 3): 1000/3 = 333.3 -> 333, 2000/3 = 666.7 -> 667, 5/2 = 2.5 -> 3.
  EXPECT_EQ(ScaleTimeNs(1000, 3.0), 333);
  EXPECT_EQ(ScaleTimeNs(2000, 3.0), 667);
  EXPECT_EQ(ScaleTimeNs(5, 2.0), 3);
  const auto out = Scaled({Request(1000), Request(2000), Request(4000)}, 3.0);
  EXPECT_EQ(out[1].first - out[0].first, 334);  // gap 1000 / 3, within 1 ns
  EXPECT_EQ(out[2].first - out[1].first, 666);
  EXPECT_THROW(ScaleTimeNs(INT64_MAX / 2, 1e-9), UsageError);
}

// Input order: A start, A edit, request, B start, B edit, A end, B end.
std::vector<TraceRecord> TwoSessionsAndARequest() {
  return {Session("A", 100), Edit("A", 150), Request(200), Session("B", 300), Edit("B", 350),
          Edit("A", 400, EditKind::kEnd), Edit("B", 500, EditKind::kEnd)};
}

TEST(RateScaledTraceReader, SessionsKeepTheirInternalTimingWhenStretched) {
  // x = 0.5: starts and the request at twice their times; each edit at
  // start' + its recorded offset, so A's end (200 + 300) overtakes B's start.
  const std::vector<std::pair<int64_t, std::string>> expected = {
      {200, "start A"}, {250, "insert A"}, {400, "request"}, {500, "end A"},
      {600, "start B"}, {650, "insert B"}, {800, "end B"}};
  EXPECT_EQ(Scaled(TwoSessionsAndARequest(), 0.5), expected);
}

TEST(RateScaledTraceReader, SessionsKeepTheirInternalTimingWhenCompressed) {
  // x = 4: A starts at 25, its edits at 25 + 50 and 25 + 300; B at 75,
  // 75 + 50, 75 + 200. The tie at 75 keeps input order (A's edit first).
  const std::vector<std::pair<int64_t, std::string>> expected = {
      {25, "start A"}, {50, "request"},  {75, "insert A"}, {75, "start B"},
      {125, "insert B"}, {275, "end B"}, {325, "end A"}};
  EXPECT_EQ(Scaled(TwoSessionsAndARequest(), 4.0), expected);
}

TEST(RateScaledTraceReader, RejectsScalesThatAreNotPositive) {
  for (const double x : {0.0, -1.0, std::numeric_limits<double>::infinity(),
                         std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_THROW(RateScaledTraceReader(std::make_unique<ListedTraceReader>(std::vector<TraceRecord>{}), x),
                 UsageError);
  }
}

}  // namespace
}  // namespace efimsim
