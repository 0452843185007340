#pragma once
// vLLM `bench serve`'s synthetic datasets (vllm/benchmarks/datasets:
// random.py, prefix_repetition.py) with its request-rate schedule
// (benchmark_arrivals.h), as a trace of request records with token ids.
// Token ids are synthetic (drawn from the model's text range, no
// tokenizer), so there is no decode/re-encode drift: every prompt has
// exactly the length vLLM aims for. Prefix sharing is exact as in vLLM.
//
//   random             --random-prefix-len tokens drawn once and shared by
//                      every prompt, then per request i an input length in
//                      [floor(L(1-r)), ceil(L(1+r))] with L = input_len minus
//                      the tokenizer's special tokens, an output length in
//                      [max(1, floor(O(1-r))), max(1, ceil(O(1+r)))] and an
//                      offset in [0, vocab): tokens (offset + i + j) mod vocab
//                      of the text range, j = 0.. (vLLM's sequence)
//   prefix_repetition  num_prefixes random prefixes of prefix_len tokens,
//                      each followed by num_prompts / num_prefixes (integer
//                      division) random suffixes of suffix_len tokens; every
//                      output output_len; the list shuffled
// Each prompt starts with the model's BOS when it has one (the server's
// tokenizer adds it; vLLM's random dataset subtracts it from input_len).
// Requests are sent in list order at VllmBenchArrivalSchedule times; each
// generates exactly its output length (ignore_eos, as `bench serve` asks).
//
// Memory: `random` prompts and all arrival times are made when read, so a
// run holds only the prompts in flight (10^7 prompts start at once);
// `prefix_repetition` makes its list up front, since vLLM shuffles the
// whole list before sending.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/base/tokens.h"
#include "traces/benchmark_arrivals.h"
#include "traces/trace_reader.h"

namespace efimsim {

struct VllmBenchConfig {
  std::string dataset_name = "random";  // random | prefix_repetition
  int64_t num_prompts = 1000;
  // random
  int64_t random_input_len = 1024;
  int64_t random_output_len = 128;
  double random_range_ratio = 0.0;  // in [0, 1)
  int64_t random_prefix_len = 0;
  // prefix_repetition
  int64_t prefix_repetition_prefix_len = 256;
  int64_t prefix_repetition_suffix_len = 256;
  int64_t prefix_repetition_num_prefixes = 10;
  int64_t prefix_repetition_output_len = 128;
  // arrivals: requests/s (0 = vLLM's inf: all at t = 0) and the gamma
  // gaps' shape (0 = inf: constant gaps of 1 / rate)
  double request_rate = 0;
  double burstiness = 1.0;
};

// What the generator needs from the model and run.
struct VllmBenchVocabulary {
  TokenId text_first = 0;  // synthetic ids in [text_first, text_last]
  TokenId text_last = 0;
  TokenId bos = -1;        // -1: none
};

class VllmBenchReader : public TraceReader {
 public:
  // Where the requests come from, in send order (vllm_bench_dataset.cc).
  class Prompts;

  // Throws UsageError naming the vLLM option for bad settings (range ratio
  // outside [0, 1), an input length that leaves no token, fewer prompts than
  // prefixes, ...). `rate_scale` multiplies --request-rate.
  VllmBenchReader(const VllmBenchConfig& config, const VllmBenchVocabulary& vocabulary,
                  uint64_t seed, double rate_scale = 1.0);
  ~VllmBenchReader() override;

  const TraceHeader& header() const override { return header_; }
  int64_t num_requests() const { return num_requests_; }

 protected:
  std::optional<TraceRecord> ReadNext() override;

 private:
  TraceHeader header_;
  int64_t num_requests_ = 0;
  int64_t next_ = 0;
  std::unique_ptr<Prompts> prompts_;
  std::unique_ptr<VllmBenchArrivalSchedule> arrivals_;
};

}  // namespace efimsim
