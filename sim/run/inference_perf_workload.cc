// The inference-perf workload: kubernetes-sigs/inference-perf's
// `shared_prefix` data (traces/shared_prefix_data.h), optionally as
// multi-turn chats, sent by its load generator's stages with constant or
// Poisson arrivals (sim/client/staged_load_client.h). Options are
// inference-perf's config fields (data.shared_prefix.*, load.type,
// load.stages, load.interval) under CLI names; --seed seeds data and
// arrivals (inference-perf's load timers are unseeded).
#include <cmath>
#include <cstdio>
#include <sstream>

#include "sim/base/errors.h"
#include "sim/client/staged_load_client.h"
#include "sim/engine/token_draw.h"
#include "sim/run/workload.h"
#include "sim/run/workload_options.h"

namespace efimsim {
namespace {

constexpr const char* kName = "inference-perf";

struct InferencePerfOptions {
  int64_t num_groups = 10;
  int64_t num_prompts_per_group = 10;
  int64_t system_prompt_len = 100;
  int64_t question_len = 50;
  int64_t output_len = 50;
  bool enable_multi_turn_chat = false;
  std::string load_type = "constant";
  std::string stages = "10:60";  // rate:duration_s, stages separated by ',' or ';'
  double stage_interval_s = 1.0;
};

const ParamTable<InferencePerfOptions>& InferencePerfParams() {
  using C = InferencePerfOptions;
  static const ParamTable<C> table = {
      {{"num-groups", "groups", "inference-perf: distinct system prompts (data.shared_prefix."
        "num_groups)", 1, kParamNoLimit, {}, true},
       &C::num_groups},
      {{"num-prompts-per-group", "prompts", "inference-perf: users (questions) per system prompt "
        "(num_prompts_per_group)", 1, kParamNoLimit, {}, true},
       &C::num_prompts_per_group},
      {{"system-prompt-len", "tokens", "inference-perf: tokens of each system prompt, shared "
        "exactly by its group's prompts", 0, kParamNoLimit, {}, true},
       &C::system_prompt_len},
      {{"question-len", "tokens", "inference-perf: tokens of each question, after its system "
        "prompt", 0, kParamNoLimit, {}, true},
       &C::question_len},
      {{"output-len", "tokens", "inference-perf: tokens each request generates (ignore_eos, its "
        "default)", 1, kParamNoLimit, {}, true},
       &C::output_len},
      {{"enable-multi-turn-chat", "", "inference-perf: each user's requests are turns of one "
        "conversation: a turn waits for the previous one, and its prompt is the previous prompt, "
        "the answer, then the question again; conversations restart each stage",
        -kParamNoLimit, kParamNoLimit, {}, true},
       &C::enable_multi_turn_chat},
      {Quiet(Choice("load-type", "inference-perf: arrivals within a stage: constant (exponential "
                    "gaps scaled to fill the stage exactly) or poisson (a Poisson count each "
                    "second, spread over that second)",
                    {"constant", "poisson"})),
       &C::load_type},
      {{"stages", "", "inference-perf: load stages in sequence as rate:duration_s (requests/s, "
        "s), separated by ',' or ';' (';' in a sweep grid), e.g. 5:60,10:60; stage s sends "
        "int(rate x duration) requests; the next starts when all ended, after "
        "--stage-interval-s + 1 s", -kParamNoLimit, kParamNoLimit, {}, true},
       &C::stages},
      {{"stage-interval-s", "s", "inference-perf: pause between stages (load.interval)", 0,
        kParamNoLimit, {}, true},
       &C::stage_interval_s},
  };
  return table;
}

// "5:60,10:60" -> stages; UsageError naming --stages for anything else.
std::vector<LoadStage> ParseStages(const std::string& text) {
  std::vector<LoadStage> out;
  std::string item;
  std::string normalized = text;
  for (char& c : normalized) c = c == ';' ? ',' : c;
  std::stringstream items(normalized);
  while (std::getline(items, item, ',')) {
    LoadStage stage;
    char colon = 0;
    char rest = 0;
    std::istringstream in(item);
    if (!(in >> stage.rate >> colon >> stage.duration_s) || colon != ':' || (in >> rest) ||
        !(stage.rate > 0) || !(stage.duration_s > 0) || !std::isfinite(stage.rate) ||
        !std::isfinite(stage.duration_s)) {
      throw UsageError("--stages: '" + item + "' is not rate:duration_s with both > 0 (e.g. "
                       "5:60,10:60)");
    }
    out.push_back(stage);
  }
  if (out.empty()) throw UsageError("--stages: no stage given (e.g. 10:60)");
  return out;
}

// Measured on this build: a run's RSS grows by about 360 bytes per request
// it sends (--stages 1000:100, 100,000 requests); rounded up.
constexpr double kBytesPerRequest = 400;

SharedPrefixConfig DataConfig(const InferencePerfOptions& o) {
  SharedPrefixConfig c;
  c.num_groups = o.num_groups;
  c.num_prompts_per_group = o.num_prompts_per_group;
  c.system_prompt_len = o.system_prompt_len;
  c.question_len = o.question_len;
  c.output_len = o.output_len;
  c.enable_multi_turn_chat = o.enable_multi_turn_chat;
  return c;
}

class InferencePerfWorkload : public Workload {
 public:
  explicit InferencePerfWorkload(const WorkloadContext& context)
      : context_(context), options_(WorkloadOptions<InferencePerfOptions>(context.config, kName)),
        data_(DataConfig(options_), context.model.tokens.text_first,
              context.model.tokens.text_last,
              static_cast<uint64_t>(context.config.seed)) {
    stages_ = ParseStages(options_.stages);
    for (LoadStage& stage : stages_) stage.rate *= context.config.rate_scale;
  }

  Client& MakeClient(Simulator& simulator, RequestSink& sink) override {
    const ExperimentConfig& config = context_.config;
    StagedLoadConfig load;
    load.load = options_.load_type == "poisson" ? InferencePerfLoad::kPoisson
                                                : InferencePerfLoad::kConstant;
    load.stages = stages_;
    load.interval = FromSeconds(options_.stage_interval_s);
    load.seed = static_cast<uint64_t>(config.seed);
    if (config.duration_s > 0) load.stop_sending_at = TimePoint{FromSeconds(config.duration_s)};
    const TokenDraw draw(context_.model.tokens.text_first, context_.model.tokens.text_last);
    client_ = std::make_unique<StagedLoadClient>(
        simulator, data_, sink, load,
        [draw](uint64_t id, int64_t position) { return draw.Generated(id, position); });
    return *client_;
  }

  void Describe(std::vector<Setting>& w) const override;

  void DescribeResults(RunInfo& info) const override {
    auto& client = info.Section("client").settings;
    client.push_back({"stages_started", client_->stats().stages_started});
    client.push_back({"requests_sent", client_->stats().requests_sent});
    for (size_t s = 0; s < stages_.size(); ++s) {
      const int64_t start = client_->stage_start_ns(s);
      std::string key = "stage_";
      key += std::to_string(s);
      key += "_start_s";
      if (start >= 0) client.push_back({key, static_cast<double>(start) / 1e9});
    }
  }

 private:
  std::string Description() const {
    std::string text = std::string("inference-perf shared_prefix: ") +
                       std::to_string(options_.num_groups) + " system prompts of " +
                       std::to_string(options_.system_prompt_len) + " tokens x " +
                       std::to_string(options_.num_prompts_per_group) + " users, questions of " +
                       std::to_string(options_.question_len) + " tokens, outputs of " +
                       std::to_string(options_.output_len) + " tokens" +
                       (options_.enable_multi_turn_chat ? ", multi-turn chat" : "") + "; " +
                       options_.load_type + " load, stages";
    for (const LoadStage& stage : stages_) {
      // Appended piece by piece: g++ 12 warns (-Wrestrict, a false positive)
      // on "literal" + std::string&& here.
      text += ' ';
      text += ShortNumber(stage.rate);
      text += "/s x ";
      text += ShortNumber(stage.duration_s);
      text += " s";
    }
    return text;
  }

  const WorkloadContext context_;
  InferencePerfOptions options_;
  SharedPrefixData data_;
  std::vector<LoadStage> stages_;
  std::unique_ptr<StagedLoadClient> client_;
};

void InferencePerfWorkload::Describe(std::vector<Setting>& w) const {
  w.push_back({"name", std::string(kName)});
  w.push_back({"description", Description()});
  w.push_back({"documents", std::string("synthetic token ids (no tokenizer)")});
  w.push_back({"generator", std::string("inference-perf shared_prefix_datagen.py and "
                                        "load_generator.py / load_timer.py")});
  w.push_back({"num_groups", options_.num_groups});
  w.push_back({"num_prompts_per_group", options_.num_prompts_per_group});
  w.push_back({"system_prompt_len", options_.system_prompt_len});
  w.push_back({"question_len", options_.question_len});
  w.push_back({"output_len", options_.output_len});
  w.push_back({"enable_multi_turn_chat", options_.enable_multi_turn_chat});
  w.push_back({"load_type", options_.load_type});
  w.push_back({"stages", options_.stages});
  if (context_.config.rate_scale != 1) w.push_back({"rate_scale", context_.config.rate_scale});
  w.push_back({"stage_interval_s", options_.stage_interval_s});
  w.push_back({"stage_start_delay_s", 1.0});
  w.push_back({"duration_s", context_.config.duration_s});
}

}  // namespace

std::unique_ptr<Workload> MakeInferencePerfWorkload(const WorkloadContext& context) {
  return std::make_unique<InferencePerfWorkload>(context);
}

MemoryItem InferencePerfMemory(const ExperimentConfig& config) {
  const InferencePerfOptions& options = WorkloadOptions<InferencePerfOptions>(config, kName);
  double requests = 0;
  for (const LoadStage& stage : ParseStages(options.stages)) {
    requests += stage.rate * config.rate_scale * stage.duration_s;
  }
  return {"the " + ShortNumber(requests) + " requests inference-perf's stages send",
          "--stages " + options.stages, requests * kBytesPerRequest};
}

std::vector<RunParamTable> InferencePerfOptionTables() {
  return {BindWorkloadOptions(kName, "Workload inference-perf (shared_prefix data, load stages)",
                              InferencePerfParams())};
}

}  // namespace efimsim
