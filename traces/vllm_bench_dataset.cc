#include "traces/vllm_bench_dataset.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/base/errors.h"
#include "sim/core/random.h"
#include "traces/benchmark_arrivals.h"

namespace efimsim {
namespace {

std::string Num(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

struct Range {
  int64_t low = 0, high = 0;
};

// vLLM's bounds: floor below, ceil above.
Range RatioRange(int64_t mean, double ratio) {
  return {static_cast<int64_t>(std::floor(static_cast<double>(mean) * (1.0 - ratio))),
          static_cast<int64_t>(std::ceil(static_cast<double>(mean) * (1.0 + ratio)))};
}

class Generator {
 public:
  Generator(const VllmBenchVocabulary& vocabulary, uint64_t seed, const char* stream)
      : vocabulary_(vocabulary), random_(RandomStream::Derive(seed, 0, stream)) {}

  TokenId RandomToken() {
    return static_cast<TokenId>(random_.UniformInt(vocabulary_.text_first, vocabulary_.text_last));
  }
  void AppendRandom(int64_t count, TokenVector& out) {
    for (int64_t j = 0; j < count; ++j) out.push_back(RandomToken());
  }
  // The k-th id of the text range (k in [0, vocab())).
  TokenId TextToken(int64_t k) const { return static_cast<TokenId>(vocabulary_.text_first + k); }
  int64_t vocab() const {
    return static_cast<int64_t>(vocabulary_.text_last) - vocabulary_.text_first + 1;
  }
  int64_t special_tokens() const { return vocabulary_.bos >= 0 ? 1 : 0; }
  // A prompt's start: the BOS the server's tokenizer adds, if any.
  TokenVector Start() const {
    return vocabulary_.bos >= 0 ? TokenVector{vocabulary_.bos} : TokenVector{};
  }
  RandomStream& random() { return random_; }

 private:
  VllmBenchVocabulary vocabulary_;
  RandomStream random_;
};

TraceRequest MakeRequest(TokenVector prompt, int64_t output_tokens) {
  TraceRequest r;
  r.prompt_tokens = static_cast<int64_t>(prompt.size());
  r.token_ids = std::move(prompt);
  r.output_tokens = output_tokens;
  return r;
}

}  // namespace

class VllmBenchReader::Prompts {
 public:
  virtual ~Prompts() = default;
  virtual int64_t size() const = 0;
  // The next request in send order, without its arrival time; called at
  // most size() times.
  virtual TraceRequest Next() = 0;
};

namespace {

// vLLM's random dataset, one prompt at a time: the shared prefix is drawn
// first, then each request's length, output length and offset in turn, as
// vLLM draws them.
class RandomPrompts : public VllmBenchReader::Prompts {
 public:
  RandomPrompts(const VllmBenchConfig& c, Generator generator)
      : g_(std::move(generator)), num_prompts_(c.num_prompts) {
    const int64_t real_input = std::max<int64_t>(0, c.random_input_len - g_.special_tokens());
    input_ = RatioRange(real_input, c.random_range_ratio);
    output_ = RatioRange(c.random_output_len, c.random_range_ratio);
    output_.low = std::max<int64_t>(output_.low, 1);
    output_.high = std::max<int64_t>(output_.high, 1);
    if (c.random_prefix_len + input_.low < 1) {
      throw UsageError("--random-input-len: too small: with --random-range-ratio " +
                       Num(c.random_range_ratio) + " and " + std::to_string(g_.special_tokens()) +
                       " special token(s), a prompt could have no token (vLLM refuses it too)");
    }
    g_.AppendRandom(c.random_prefix_len, prefix_);
  }

  int64_t size() const override { return num_prompts_; }

  TraceRequest Next() override {
    const int64_t i = next_++;
    const int64_t length = g_.random().UniformInt(input_.low, input_.high);
    const int64_t output_tokens = g_.random().UniformInt(output_.low, output_.high);
    const int64_t offset = g_.random().UniformInt(0, g_.vocab() - 1);
    TokenVector prompt = g_.Start();
    prompt.reserve(prompt.size() + prefix_.size() + static_cast<size_t>(length));
    prompt.insert(prompt.end(), prefix_.begin(), prefix_.end());
    for (int64_t j = 0; j < length; ++j) prompt.push_back(g_.TextToken((offset + i + j) % g_.vocab()));
    return MakeRequest(std::move(prompt), output_tokens);
  }

 private:
  Generator g_;
  int64_t num_prompts_;
  Range input_, output_;
  TokenVector prefix_;
  int64_t next_ = 0;
};

// A list made up front, sent in order.
class ListedPrompts : public VllmBenchReader::Prompts {
 public:
  explicit ListedPrompts(std::vector<TraceRequest> requests) : requests_(std::move(requests)) {}
  int64_t size() const override { return static_cast<int64_t>(requests_.size()); }
  TraceRequest Next() override { return std::move(requests_[next_++]); }

 private:
  std::vector<TraceRequest> requests_;
  size_t next_ = 0;
};

std::vector<TraceRequest> PrefixRepetitionDataset(const VllmBenchConfig& c, Generator& g) {
  if (c.prefix_repetition_num_prefixes < 1) {
    throw UsageError("--prefix-repetition-num-prefixes: must be at least 1");
  }
  const int64_t per_prefix = c.num_prompts / c.prefix_repetition_num_prefixes;
  if (per_prefix == 0) {
    throw UsageError("--num-prompts: " + std::to_string(c.num_prompts) +
                     " must be >= --prefix-repetition-num-prefixes " +
                     std::to_string(c.prefix_repetition_num_prefixes) + " (as in vLLM)");
  }
  if (c.prefix_repetition_prefix_len + c.prefix_repetition_suffix_len + g.special_tokens() < 1) {
    throw UsageError("--prefix-repetition-suffix-len: prompts would have no token");
  }
  std::vector<TraceRequest> out;
  for (int64_t p = 0; p < c.prefix_repetition_num_prefixes; ++p) {
    TokenVector prefix = g.Start();
    g.AppendRandom(c.prefix_repetition_prefix_len, prefix);
    for (int64_t s = 0; s < per_prefix; ++s) {
      TokenVector prompt = prefix;
      g.AppendRandom(c.prefix_repetition_suffix_len, prompt);
      out.push_back(MakeRequest(std::move(prompt), c.prefix_repetition_output_len));
    }
  }
  // random.shuffle: Fisher-Yates from the back.
  for (size_t i = out.size(); i > 1; --i) {
    const auto j = static_cast<size_t>(g.random().UniformInt(0, static_cast<int64_t>(i) - 1));
    std::swap(out[i - 1], out[j]);
  }
  return out;
}

}  // namespace

VllmBenchReader::VllmBenchReader(const VllmBenchConfig& config,
                                 const VllmBenchVocabulary& vocabulary, uint64_t seed,
                                 double rate_scale) {
  if (config.num_prompts < 1) throw UsageError("--num-prompts: must be at least 1");
  if (!(config.random_range_ratio >= 0 && config.random_range_ratio < 1)) {
    throw UsageError("--random-range-ratio: must be in [0, 1) (as in vLLM)");
  }
  if (!(config.request_rate >= 0)) throw UsageError("--request-rate: must be >= 0 (0: inf)");
  if (!(config.burstiness >= 0)) throw UsageError("--burstiness: must be >= 0 (0: inf)");
  Generator generator(vocabulary, seed, "vllm-bench.dataset");
  if (config.dataset_name == "random") {
    prompts_ = std::make_unique<RandomPrompts>(config, std::move(generator));
  } else if (config.dataset_name == "prefix_repetition") {
    prompts_ = std::make_unique<ListedPrompts>(PrefixRepetitionDataset(config, generator));
  } else {
    throw UsageError("--dataset-name: '" + config.dataset_name +
                     "' is not one of random, prefix_repetition");
  }
  num_requests_ = prompts_->size();
  const RandomStream arrivals = RandomStream::Derive(seed, 0, "vllm-bench.arrivals");
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double rate = config.request_rate == 0 ? kInf : config.request_rate * rate_scale;
  const double burstiness = config.burstiness == 0 ? kInf : config.burstiness;
  arrivals_ = std::make_unique<VllmBenchArrivalSchedule>(num_requests_, rate, burstiness, arrivals);
  header_.source = "vllm-bench";
  std::string& d = header_.description;
  d = "vLLM bench serve --dataset-name ";
  d += config.dataset_name;
  d += ", " + std::to_string(num_requests()) + " requests at --request-rate ";
  d += Num(rate);
  d += "/s, --burstiness ";
  d += Num(burstiness);
  d += " (synthetic token ids)";
}

VllmBenchReader::~VllmBenchReader() = default;

std::optional<TraceRecord> VllmBenchReader::ReadNext() {
  if (next_ >= num_requests_) return std::nullopt;
  ++next_;
  TraceRequest request = prompts_->Next();
  request.arrival_ns = arrivals_->NextNs();
  return request;
}

}  // namespace efimsim
