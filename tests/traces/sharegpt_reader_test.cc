// The ShareGPT (LLMServingSim layout) importer: the shared workload file
// read whole and detected, and errors that name file, line and field.
#include <gtest/gtest.h>

#include <variant>

#include "expect_input_error.h"
#include "test_files.h"
#include "traces/sharegpt_reader.h"
#include "traces/trace_open.h"

namespace efimsim {
namespace {

using test::ExpectInputError;
using test::WriteFile;

const std::string kLine1 =
    R"({"input_toks": 3, "output_toks": 2, "arrival_time_ns": 5, "input_tok_ids": [7, 8, 9]})";

TEST(ShareGptReader, ReadsTheLlmServingSimWorkloadWithIdsAndForcedLengths) {
  const std::string path = test::SharedData(
      "serving-runs/llmservingsim/workloads/sharegpt-llama-3.1-8b-300-sps10.jsonl");
  EFIMSIM_REQUIRE_SHARED_DATA(path);
  EXPECT_EQ(DetectTraceFormat(path), TraceFormat::kShareGptJsonl);
  auto reader = OpenTrace(path);
  const std::vector<TraceRecord> records = test::ReadAll(*reader);
  ASSERT_EQ(records.size(), 300u);
  const auto& first = std::get<TraceRequest>(records.front());
  EXPECT_EQ(first.arrival_ns, 46926808);
  EXPECT_EQ(first.prompt_tokens, 2358);
  EXPECT_EQ(first.output_tokens, 531);
  ASSERT_EQ(first.token_ids.size(), 2358u);
  EXPECT_EQ(first.token_ids[0], 5971);
  EXPECT_EQ(reader->header().source, "sharegpt-jsonl");
}

TEST(ShareGptReader, LinesWithoutIdsGiveLengthsOnly) {
  const std::string dir = test::ScratchDir();
  const std::string path = WriteFile(
      dir, "w.jsonl", kLine1 + "\n" + R"({"input_toks": 4, "output_toks": 1, "arrival_time_ns": 9})" "\n");
  auto reader = OpenTrace(path);
  const auto records = test::ReadAll(*reader);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(std::get<TraceRequest>(records[0]).token_ids, (TokenVector{7, 8, 9}));
  EXPECT_TRUE(std::get<TraceRequest>(records[1]).token_ids.empty());
  EXPECT_EQ(std::get<TraceRequest>(records[1]).prompt_tokens, 4);
}

TEST(ShareGptReader, ErrorsNameFileLineAndField) {
  const std::string dir = test::ScratchDir();
  ExpectInputError(WriteFile(dir, "count.jsonl", kLine1 + "\n" +
                                  R"({"input_toks": 3, "output_toks": 2, "arrival_time_ns": 6, "input_tok_ids": [1, 2]})"),
                   2, "input_tok_ids", "has 2 ids, input_toks says 3");
  ExpectInputError(WriteFile(dir, "id.jsonl", kLine1 + "\n" +
                                  R"({"input_toks": 2, "output_toks": 2, "arrival_time_ns": 6, "input_tok_ids": [1, -4]})"),
                   2, "input_tok_ids[1]", "token id");
  ExpectInputError(WriteFile(dir, "order.jsonl", kLine1 + "\n" +
                                  R"({"input_toks": 3, "output_toks": 2, "arrival_time_ns": 4})"),
                   2, "arrival_time_ns", "sorted by time");
  ExpectInputError(WriteFile(dir, "out.jsonl", kLine1 + "\n" +
                                  R"({"input_toks": 3, "output_toks": 0, "arrival_time_ns": 6})"),
                   2, "output_toks", "at least 1");
  ExpectInputError(WriteFile(dir, "type.jsonl",
                             R"({"input_toks": "3", "output_toks": 2, "arrival_time_ns": 6})"),
                   1, "input_toks", "integer", TraceFormat::kShareGptJsonl);
}

}  // namespace
}  // namespace efimsim
