// The vllm-bench workload: vLLM `bench serve`'s synthetic datasets
// (`random`, `prefix_repetition`) sent open loop at its request-rate
// schedule (Poisson, or gamma with --burstiness), as traces/
// vllm_bench_dataset.h generates them, replayed by the trace-replay client.
// Options keep vLLM's flag names; --seed seeds the dataset and arrivals.
#include <cstdio>
#include <limits>

#include "sim/base/errors.h"
#include "sim/client/trace_replay_client.h"
#include "sim/run/workload.h"
#include "sim/run/workload_options.h"
#include "traces/vllm_bench_dataset.h"

namespace efimsim {
namespace {

constexpr const char* kName = "vllm-bench";

const ParamTable<VllmBenchConfig>& VllmBenchParams() {
  using C = VllmBenchConfig;
  static const ParamTable<C> table = {
      {Quiet(Choice("dataset-name", "vllm-bench: vLLM bench serve's synthetic dataset: random "
                    "(--random-*) or prefix_repetition (--prefix-repetition-*)",
                    {"random", "prefix_repetition"})),
       &C::dataset_name},
      {{"num-prompts", "requests", "vllm-bench: requests to generate (prefix_repetition: "
        "rounded down to a multiple of --prefix-repetition-num-prefixes, as in vLLM)", 1,
        kParamNoLimit, {}, true},
       &C::num_prompts},
      {{"random-input-len", "tokens", "vllm-bench random: mean prompt length after the shared "
        "prefix, the tokenizer's special tokens (BOS) included", 0, kParamNoLimit, {}, true},
       &C::random_input_len},
      {{"random-output-len", "tokens", "vllm-bench random: mean output length (each request "
        "generates exactly its drawn length)", 1, kParamNoLimit, {}, true},
       &C::random_output_len},
      {{"random-range-ratio", "", "vllm-bench random: input and output lengths are uniform "
        "integers in [floor(L(1-r)), ceil(L(1+r))]", 0, 0.999999, {}, true},
       &C::random_range_ratio},
      {{"random-prefix-len", "tokens", "vllm-bench random: random tokens shared by every prompt, "
        "before its own", 0, kParamNoLimit, {}, true},
       &C::random_prefix_len},
      {{"prefix-repetition-prefix-len", "tokens", "vllm-bench prefix_repetition: length of each "
        "shared prefix", 0, kParamNoLimit, {}, true},
       &C::prefix_repetition_prefix_len},
      {{"prefix-repetition-suffix-len", "tokens", "vllm-bench prefix_repetition: length of each "
        "prompt's own suffix", 0, kParamNoLimit, {}, true},
       &C::prefix_repetition_suffix_len},
      {{"prefix-repetition-num-prefixes", "prefixes", "vllm-bench prefix_repetition: distinct "
        "prefixes, each shared by --num-prompts / this many prompts", 1, kParamNoLimit, {}, true},
       &C::prefix_repetition_num_prefixes},
      {{"prefix-repetition-output-len", "tokens", "vllm-bench prefix_repetition: output length "
        "of every request", 1, kParamNoLimit, {}, true},
       &C::prefix_repetition_output_len},
      {{"request-rate", "requests/s", "vllm-bench: mean arrival rate; gaps gamma-distributed, "
        "rescaled so the last request is sent at --num-prompts / rate (vLLM's get_request); "
        "0 = inf: every request at t = 0 (vLLM's default)", 0, kParamNoLimit, {}, true},
       &C::request_rate},
      {{"burstiness", "", "vllm-bench: the gamma gaps' shape: 1 = Poisson, < 1 burstier, > 1 "
        "more even; 0 = inf: constant gaps of 1 / rate", 0, kParamNoLimit, {}, true},
       &C::burstiness},
  };
  return table;
}

class VllmBenchWorkload : public Workload {
 public:
  explicit VllmBenchWorkload(const WorkloadContext& context) : context_(context) {
    const ExperimentConfig& config = context.config;
    options_ = WorkloadOptions<VllmBenchConfig>(config, kName);
    reader_ = NewReader();
  }

  // The requests and their arrivals, as vLLM's benchmark would send them.
  std::unique_ptr<VllmBenchReader> NewReader() const {
    const ExperimentConfig& config = context_.config;
    const VllmBenchVocabulary vocabulary{context_.model.tokens.text_first, context_.model.tokens.text_last,
                                         context_.model.tokens.bos};
    return std::make_unique<VllmBenchReader>(options_, vocabulary,
                                             static_cast<uint64_t>(config.seed),
                                             config.rate_scale);
  }

  std::unique_ptr<TraceReader> Arrivals() const override { return NewReader(); }

  Client& MakeClient(Simulator& simulator, RequestSink& sink) override {
    client_ = MakeTraceReplayClient(context_.config, simulator, *reader_, sink, nullptr, kName);
    return *client_;
  }

  void Describe(std::vector<Setting>& w) const override {
    const ExperimentConfig& config = context_.config;
    w.push_back({"name", std::string(kName)});
    w.push_back({"description", reader_->header().description});
    w.push_back({"documents", std::string("synthetic token ids (no tokenizer)")});
    w.push_back({"generator", std::string("vLLM bench serve datasets (random.py, "
                                          "prefix_repetition.py) and get_request arrivals")});
    w.push_back({"dataset_name", options_.dataset_name});
    w.push_back({"num_prompts", options_.num_prompts});
    if (options_.dataset_name == "random") {
      w.push_back({"random_input_len", options_.random_input_len});
      w.push_back({"random_output_len", options_.random_output_len});
      w.push_back({"random_range_ratio", options_.random_range_ratio});
      w.push_back({"random_prefix_len", options_.random_prefix_len});
    } else {
      w.push_back({"prefix_repetition_prefix_len", options_.prefix_repetition_prefix_len});
      w.push_back({"prefix_repetition_suffix_len", options_.prefix_repetition_suffix_len});
      w.push_back({"prefix_repetition_num_prefixes", options_.prefix_repetition_num_prefixes});
      w.push_back({"prefix_repetition_output_len", options_.prefix_repetition_output_len});
    }
    w.push_back({"request_rate", options_.request_rate == 0 ? std::string("inf")
                                                            : ShortNumber(options_.request_rate)});
    w.push_back({"burstiness", options_.burstiness == 0 ? std::string("inf")
                                                        : ShortNumber(options_.burstiness)});
    if (config.rate_scale != 1) w.push_back({"rate_scale", config.rate_scale});
    w.push_back({"requests", reader_->num_requests()});
    w.push_back({"duration_s", config.duration_s});
  }

  void DescribeResults(RunInfo& info) const override {
    auto& client = info.Section("client").settings;
    client.push_back({"request_records", client_->stats().request_records});
  }

  const TraceReader* trace() const override { return reader_.get(); }

 private:
  const WorkloadContext context_;
  VllmBenchConfig options_;
  std::unique_ptr<VllmBenchReader> reader_;
  std::unique_ptr<TraceReplayClient> client_;
};

}  // namespace

std::unique_ptr<Workload> MakeVllmBenchWorkload(const WorkloadContext& context) {
  return std::make_unique<VllmBenchWorkload>(context);
}

MemoryItem VllmBenchMemory(const ExperimentConfig& config) {
  // 4 bytes a token plus ~40 of bookkeeping per prompt held (measured on
  // this build: 4.14 kB a prompt of 1024 tokens); rounded up. `random`
  // prompts are made when sent, so only those in flight are held: every one
  // at --request-rate inf (all sent at t = 0), else as many as the engine
  // has not finished, which no option bounds (0 here). prefix_repetition
  // makes its whole list up front.
  constexpr double kBytesPerToken = 4;
  constexpr double kBytesPerPrompt = 64;
  const VllmBenchConfig& o = WorkloadOptions<VllmBenchConfig>(config, kName);
  const bool random = o.dataset_name == "random";
  if (random && o.request_rate > 0) return {};
  const double tokens = random ? static_cast<double>(o.random_prefix_len + o.random_input_len)
                               : static_cast<double>(o.prefix_repetition_prefix_len +
                                                     o.prefix_repetition_suffix_len);
  const std::string options =
      "--num-prompts " + std::to_string(o.num_prompts) +
      (random ? " x (--random-prefix-len + --random-input-len) " + ShortNumber(tokens) +
                    " at --request-rate inf"
              : " x (--prefix-repetition-prefix-len + -suffix-len) " + ShortNumber(tokens));
  return {random ? "vllm-bench's prompts, all sent at t = 0" : "vllm-bench's prompts, made up front",
          options, static_cast<double>(o.num_prompts) * (tokens * kBytesPerToken + kBytesPerPrompt)};
}

std::vector<RunParamTable> VllmBenchOptionTables() {
  return {BindWorkloadOptions(kName, "Workload vllm-bench (vLLM bench serve datasets and "
                              "arrivals)", VllmBenchParams())};
}

}  // namespace efimsim
