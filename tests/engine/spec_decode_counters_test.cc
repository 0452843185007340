// Acceptance rates from a vLLM server's /metrics dump
// (sim/engine/vllm/spec_decode_counters.h): conditional per-position rates
// from the spec_decode counters, summed over label sets; bad dumps name the
// file, line and metric.
#include "sim/engine/vllm/spec_decode_counters.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "sim/base/errors.h"
#include "sim/engine/vllm/speculative_config.h"

namespace efimsim {
namespace {

std::string WriteDump(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name + ".prom";
  std::ofstream(path) << text;
  return path;
}

// Two engines' counters as prometheus_client writes them: 1,000 drafts of
// 3 tokens; 800 accepted the first token, 600 the first two, 300 all three.
const char* kDump =
    "# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.\n"
    "# TYPE vllm:spec_decode_num_drafts_total counter\n"
    "vllm:spec_decode_num_drafts_total{engine=\"0\",model_name=\"m\"} 600.0\n"
    "vllm:spec_decode_num_drafts_total{engine=\"1\",model_name=\"m\"} 400.0\n"
    "vllm:spec_decode_num_draft_tokens_total{engine=\"0\",model_name=\"m\"} 3000.0\n"
    "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n"
    "vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"0\",model_name=\"m\",position=\"0\"} 500.0\n"
    "vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"1\",model_name=\"m\",position=\"0\"} 300.0\n"
    "vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"0\",model_name=\"m\",position=\"1\"} 600.0\n"
    "vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"0\",model_name=\"m\",position=\"2\"} 300.0\n"
    "vllm:spec_decode_num_accepted_tokens_per_pos_created{engine=\"0\",model_name=\"m\",position=\"2\"} 1.7e9\n";

TEST(SpecDecodeCounters, ConditionalRatesSummedOverLabelSets) {
  const std::vector<double> rates = ReadSpecDecodeAcceptanceRates(WriteDump("good", kDump));
  ASSERT_EQ(rates.size(), 3u);
  EXPECT_DOUBLE_EQ(rates[0], 0.8);   // 800 / 1000
  EXPECT_DOUBLE_EQ(rates[1], 0.75);  // 600 / 800
  EXPECT_DOUBLE_EQ(rates[2], 0.5);   // 300 / 600
}

TEST(SpecDecodeCounters, TheSpeculativeConfigTakesThemAsItsRates) {
  const std::string path = WriteDump("config", kDump);
  const SpeculativeConfig c = ParseSpeculativeConfig(
      "{\"method\": \"eagle3\", \"num_speculative_tokens\": 4, \"acceptance_counters\": \"" + path +
          "\"}",
      4096);
  EXPECT_EQ(c.acceptance_counters, path);
  ASSERT_EQ(c.acceptance_rates.size(), 3u);
  EXPECT_DOUBLE_EQ(c.AcceptanceRate(3), 0.5);  // the last repeated beyond
  EXPECT_NE(DescribeSpeculativeConfig(c).find("vLLM's measured"), std::string::npos);
  EXPECT_THROW(ParseSpeculativeConfig("{\"method\": \"eagle3\", \"num_speculative_tokens\": 2, "
                                      "\"acceptance_rates\": [0.5], \"acceptance_counters\": \"" +
                                          path + "\"}",
                                      4096),
               UsageError);
  EXPECT_THROW(ParseSpeculativeConfig("{\"method\": \"ngram\", \"num_speculative_tokens\": 2, "
                                      "\"acceptance_counters\": \"" + path + "\"}",
                                      4096),
               UsageError);
}

void ExpectInputError(const std::string& name, const std::string& text, int64_t line,
                      const std::string& field) {
  const std::string path = WriteDump(name, text);
  try {
    ReadSpecDecodeAcceptanceRates(path);
    ADD_FAILURE() << name << ": accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path) << name;
    EXPECT_EQ(e.line(), line) << name << ": " << e.what();
    EXPECT_EQ(e.field(), field) << name << ": " << e.what();
  }
}

TEST(SpecDecodeCounters, BadDumpsNameFileLineAndMetric) {
  const std::string drafts = "vllm:spec_decode_num_drafts_total 10\n";
  const std::string pos = "vllm:spec_decode_num_accepted_tokens_per_pos_total";
  ExpectInputError("no-drafts", pos + "{position=\"0\"} 5\n", 0, "vllm:spec_decode_num_drafts");
  ExpectInputError("no-positions", drafts, 0, pos.substr(0, pos.size() - 6));
  ExpectInputError("zero-drafts", "vllm:spec_decode_num_drafts_total 0\n" + pos + "{position=\"0\"} 0\n",
                   0, "vllm:spec_decode_num_drafts");
  ExpectInputError("bad-value", drafts + pos + "{position=\"0\"} lots\n", 2, pos.substr(0, pos.size() - 6));
  ExpectInputError("negative", drafts + pos + "{position=\"0\"} -1\n", 2, pos.substr(0, pos.size() - 6));
  ExpectInputError("bad-position", drafts + pos + "{position=\"x\"} 1\n", 2, pos.substr(0, pos.size() - 6));
  ExpectInputError("gap", drafts + pos + "{position=\"0\"} 5\n" + pos + "{position=\"2\"} 1\n", 0,
                   pos.substr(0, pos.size() - 6));
  ExpectInputError("growing", drafts + pos + "{position=\"0\"} 5\n" + pos + "{position=\"1\"} 6\n", 0,
                   pos.substr(0, pos.size() - 6));
  ExpectInputError("unclosed", drafts + pos + "{position=\"0\" 5\n", 2, pos.substr(0, pos.size() - 6));
  try {
    ReadSpecDecodeAcceptanceRates("/dev/null");
    ADD_FAILURE() << "a device accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace efimsim
