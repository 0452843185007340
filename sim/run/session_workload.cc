// Workloads of editing sessions and request records, sent by the
// trace-replay client (sim/client/trace_replay_client.h):
//   trace   a trace file replayed open loop, optionally at a scaled rate
//   typing  simulated developers typing real files (closed population of
//           --users, or an open one arriving at --session-rate)
// Editing sessions become completion requests through the client model of
// CompletionClientConfig; their text prompts need the tokenizer, loaded at
// the first session (a trace of request records never loads it).
#include <cstdio>
#include <filesystem>
#include <optional>

#include "sim/base/errors.h"
#include "sim/client/trace_replay_client.h"
#include "sim/run/workload.h"
#include "sim/run/workload_options.h"
#include "traces/rate_scaled_trace_reader.h"
#include "traces/typing_workload.h"

namespace efimsim {
namespace {

// "2", "0.25": a rate scale as the user would write it.
std::string FormatRateScale(double scale) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", scale);
  return text;
}

class SessionWorkload : public Workload {
 public:
  Client& MakeClient(Simulator& simulator, RequestSink& sink) override {
    client_ = MakeTraceReplayClient(context_.config, simulator, *reader_, sink, text_builder_.get(),
                                    trace_name_);
    client_->set_output_length(context_.output_length);
    if (!text_builder_) {
      // A trace's first editing session loads the tokenizer; without one
      // (no file), the client reports that sessions need it.
      client_->set_builder_source([this]() -> const TextPromptBuilder* {
        if (!std::filesystem::exists(context_.tokenizer->path())) return nullptr;
        return SetUpTextBuilder();
      });
    }
    return *client_;
  }

  void Describe(std::vector<Setting>& w) const override {
    const ExperimentConfig& config = context_.config;
    w.push_back({"name", name_});
    w.push_back({"description", description_});
    w.push_back({"documents", documents_});
    DescribeSource(w);
    w.push_back({"duration_s", config.duration_s});
    w.push_back({"trigger", config.completion.trigger});
    w.push_back({"debounce_ms", config.completion.debounce_ms});
    w.push_back({"cancel_stale", config.completion.cancel_stale});
    w.push_back({"context_lines_before", config.completion.context_lines_before});
    w.push_back({"context_lines_after", config.completion.context_lines_after});
  }

  void DescribeResults(RunInfo& info) const override {
    auto& client = info.Section("client").settings;
    const TraceReplayStats stats = client_->stats();
    client.push_back({"request_records", stats.request_records});
    client.push_back({"sessions", stats.sessions});
    client.push_back({"text_edits", stats.edits});
    client.push_back({"completion_requests", stats.completion_requests});
    client.push_back({"stale_requests_cancelled", stats.cancel_requests});
  }

  const TraceReader* trace() const override { return reader_.get(); }

 protected:
  explicit SessionWorkload(const WorkloadContext& context) : context_(context) {}

  // The settings of where sessions come from, after name/description/documents.
  virtual void DescribeSource(std::vector<Setting>& w) const = 0;

  // The text prompt builder of editing sessions, on the run's tokenizer.
  const TextPromptBuilder* SetUpTextBuilder() {
    bpe_.emplace(context_.tokenizer->Get(InterruptPoll(context_.config)));
    text_builder_ = std::make_unique<TextPromptBuilder>(context_.policy.prompt_format, *bpe_,
                                                        context_.model.tokens);
    return text_builder_.get();
  }

  const WorkloadContext context_;
  std::string name_;
  std::string description_;
  std::string documents_;
  std::string trace_name_;  // names the source in the client's errors
  std::unique_ptr<TraceReader> reader_;
  std::optional<tokenizer::BpeTokenizer> bpe_;
  std::unique_ptr<TextPromptBuilder> text_builder_;
  std::unique_ptr<TraceReplayClient> client_;
};

class TraceWorkload : public SessionWorkload {
 public:
  explicit TraceWorkload(const WorkloadContext& context) : SessionWorkload(context) {
    const ExperimentConfig& config = context.config;
    reader_ = OpenWorkloadTrace(config);
    name_ = "trace";
    trace_name_ = config.trace_path;
    description_ = "trace " + config.trace_path + " (" + reader_->header().source + ")";
    if (config.rate_scale != 1) {
      reader_ = std::make_unique<RateScaledTraceReader>(std::move(reader_), config.rate_scale);
      description_ += ", arrivals at " + FormatRateScale(config.rate_scale) + "x the recorded rate";
    }
    documents_ = "as recorded in the trace";
  }

  // A fresh reader of the trace at the run's --rate-scale.
  std::unique_ptr<TraceReader> Arrivals() const override {
    const ExperimentConfig& config = context_.config;
    std::unique_ptr<TraceReader> reader = OpenWorkloadTrace(config);
    if (config.rate_scale == 1) return reader;
    return std::make_unique<RateScaledTraceReader>(std::move(reader), config.rate_scale);
  }

 private:
  void DescribeSource(std::vector<Setting>& w) const override {
    const ExperimentConfig& config = context_.config;
    w.push_back({"trace", config.trace_path});
    w.push_back({"trace_format", config.trace_format});
    w.push_back({"max_line_bytes", config.max_line_bytes});
    if (config.rate_scale != 1) w.push_back({"rate_scale", config.rate_scale});
  }
};

class TypingSessionWorkload : public SessionWorkload {
 public:
  explicit TypingSessionWorkload(const WorkloadContext& context) : SessionWorkload(context) {
    const ExperimentConfig& config = context.config;
    TypingWorkloadConfig typing = TypingSettings(config);
    typing.users = config.users;
    typing.seed = static_cast<uint64_t>(config.seed);
    typing.source_dir = config.corpus_dir;
    if (config.session_rate_per_s > 0) {
      typing.population = TypingPopulation::kOpen;
      typing.session_rate_per_s = config.session_rate_per_s;
    }
    name_ = "typing";
    trace_name_ = name_;
    description_ = "typing: " + std::to_string(typing.users) + " users typing real files at " +
                   std::to_string(typing.behavior.chars_per_second) + " chars/s";
    if (typing.population == TypingPopulation::kOpen) {
      description_ = "typing: open population, " + std::to_string(typing.sessions) +
                     " sessions arriving at " + std::to_string(typing.session_rate_per_s) +
                     "/s (Poisson), typing real files at " +
                     std::to_string(typing.behavior.chars_per_second) + " chars/s";
    }
    auto typing_reader = std::make_unique<TypingWorkload>(typing);
    documents_ = "real code (" + typing_reader->documents().source() + "), Llama-3.1 tokenizer";
    reader_ = std::move(typing_reader);
    SetUpTextBuilder();
  }

 private:
  void DescribeSource(std::vector<Setting>& w) const override {
    const ExperimentConfig& config = context_.config;
    if (config.session_rate_per_s > 0) {
      w.push_back({"population", std::string("open")});
      w.push_back({"session_rate_per_s", config.session_rate_per_s});
      w.push_back({"sessions", TypingSettings(config).sessions});
    } else {
      w.push_back({"users", config.users});
    }
    w.push_back({"chars_per_second", TypingSettings(config).behavior.chars_per_second});
    w.push_back({"accept_probability", TypingSettings(config).behavior.accept_probability});
  }
};

}  // namespace

std::unique_ptr<Workload> MakeTraceWorkload(const WorkloadContext& context) {
  return std::make_unique<TraceWorkload>(context);
}

std::unique_ptr<Workload> MakeTypingWorkload(const WorkloadContext& context) {
  return std::make_unique<TypingSessionWorkload>(context);
}

}  // namespace efimsim
