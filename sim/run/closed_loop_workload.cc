// The efim-paper workload: the EFIM paper's closed-loop multi-round
// benchmark (users x rounds, each round sent a think time after the
// previous response), on real code or synthetic token documents.
#include <filesystem>
#include <optional>

#include "sim/base/errors.h"
#include "sim/client/closed_loop_client.h"
#include "sim/client/round_prompter.h"
#include "sim/run/workload.h"
#include "sim/run/workload_options.h"
#include "traces/code_corpus.h"
#include "traces/load_tokenizer.h"
#include "traces/paper_workload.h"
#include "traces/text_paper_workload.h"

namespace efimsim {
namespace {

class ClosedLoopPaperWorkload : public Workload {
 public:
  explicit ClosedLoopPaperWorkload(const WorkloadContext& context) : context_(context) {
    if (context.output_length != nullptr && context.output_length->needs_line_context()) {
      throw UsageError("--output-length: eol needs editing sessions (--workload typing or "
                       "trace), not efim-paper");
    }
    if (ChooseDocuments() == "text") {
      SetUpText();
    } else {
      SetUpSynthetic();
    }
  }

  Client& MakeClient(Simulator& simulator, RequestSink& sink) override {
    const ExperimentConfig& config = context_.config;
    ClosedLoopConfig client_config;
    client_config.max_output_tokens = config.max_output_tokens;
    client_config.think_time = FromSeconds(config.think_time_ms / 1000.0);
    client_config.exponential_think_time = config.think_time_dist == "exponential";
    client_config.seed = static_cast<uint64_t>(config.seed);
    client_ = std::make_unique<ClosedLoopClient>(simulator, *prompter_, sink, client_config);
    client_->set_output_length(context_.output_length);
    return *client_;
  }

  void Describe(std::vector<Setting>& w) const override {
    const ExperimentConfig& config = context_.config;
    w.push_back({"name", std::string("efim-paper")});
    w.push_back({"description", description_});
    w.push_back({"documents", documents_});
    w.push_back({"users", config.users});
    w.push_back({"rounds", PaperSettings(config).rounds});
    w.push_back({"doc_min_tokens", PaperSettings(config).doc_min_tokens});
    w.push_back({"doc_max_tokens", PaperSettings(config).doc_max_tokens});
    w.push_back({"think_time_ms", config.think_time_ms});
    if (config.think_time_dist != "fixed") {
      w.push_back({"think_time_dist", config.think_time_dist});
    }
  }

  void DescribeResults(RunInfo& info) const override {
    if (text_paper_) DescribeBoundaryReuse(info);
  }

 private:
  // "text" or "synthetic", with auto_reason_ saying why auto chose synthetic
  // (--documents is one of auto, synthetic, text: CheckRunParams).
  std::string ChooseDocuments() {
    const ExperimentConfig& config = context_.config;
    const std::string& asked = config.documents;
    if (asked != "auto") return asked;
    const std::string tokenizer_path = context_.tokenizer->path();
    if (!std::filesystem::exists(tokenizer_path)) {
      auto_reason_ = " (no tokenizer at " + tokenizer_path + ")";
      return "synthetic";
    }
    // Fewer source files than users cannot give a document per user: say so
    // without loading the tokenizer and tokenizing the corpus (~1.3 s).
    CodeCorpusConfig probe;
    probe.directory = config.corpus_dir;
    const int64_t files = CodeCorpus::CountCandidateFiles(probe);
    if (files < config.users) {
      auto_reason_ = " (the corpus has " + std::to_string(files) + " source files for " +
                     std::to_string(config.users) + " users)";
      return "synthetic";
    }
    return "text";
  }

  void SetUpText() {
    const ExperimentConfig& config = context_.config;
    const ModelSpec& model = context_.model;
    bpe_.emplace(context_.tokenizer->Get(InterruptPoll(config)));
    CodeCorpusConfig corpus_config;
    corpus_config.directory = config.corpus_dir;
    corpus_config.min_tokens = PaperSettings(config).doc_min_tokens;
    corpus_config.max_tokens = PaperSettings(config).doc_max_tokens;
    corpus_.emplace(CodeCorpus::Build(corpus_config, *bpe_, InterruptPoll(config)));
    const int64_t available = static_cast<int64_t>(corpus_->documents().size());
    if (config.documents == "auto" && available < config.users) {
      auto_reason_ = " (the corpus has " + std::to_string(available) + " documents for " +
                     std::to_string(config.users) + " users)";
      SetUpSynthetic();
      return;
    }
    TextPaperWorkloadConfig text_config;
    text_config.users = config.users;
    text_config.rounds = PaperSettings(config).rounds;
    text_config.seed = static_cast<uint64_t>(config.seed);
    text_paper_ = std::make_unique<TextPaperWorkload>(text_config, *corpus_, *bpe_);
    text_builder_ =
        std::make_unique<TextPromptBuilder>(context_.policy.prompt_format, *bpe_, model.tokens);
    prompter_ = std::make_unique<TextRoundPrompter>(*text_paper_, *text_builder_);
    description_ = text_paper_->Description();
    documents_ = "real code (" + corpus_->source() + "), Llama-3.1 tokenizer";
    if (model.name != "llama-3.1-8b") {
      documents_ += "; note: tokenized with Llama-3.1's tokenizer, not " + model.name + "'s";
    }
  }

  void SetUpSynthetic() {
    PaperWorkloadConfig paper = PaperSettings(context_.config);
    paper.users = context_.config.users;
    paper.seed = context_.config.seed;
    paper.text_first = context_.model.tokens.text_first;
    paper.text_last = context_.model.tokens.text_last;
    synthetic_paper_ = std::make_unique<PaperWorkload>(paper);
    token_format_ = MakePromptFormat(context_.policy.prompt_format, context_.model.tokens);
    prompter_ = std::make_unique<TokenRoundPrompter>(*synthetic_paper_, *token_format_);
    description_ = synthetic_paper_->Description();
    documents_ = "synthetic tokens" + auto_reason_;
  }

  // What BPE boundaries cost the cache on real text: between consecutive
  // rounds of a user, the segment that grows (the whole prefix for psm/spm,
  // the increment after <MID> for efim) could be reused in full by
  // characters, but only its common leading token run by tokens.
  void DescribeBoundaryReuse(RunInfo& info) const {
    const bool efim = context_.policy.prompt_format == "efim";
    int64_t by_characters = 0;
    int64_t by_tokens = 0;
    for (int64_t user = 0; user < text_paper_->num_users(); ++user) {
      for (int64_t round = 1; round < text_paper_->num_rounds(user); ++round) {
        const BoundaryReuse reuse = text_paper_->AnalyzeBoundaryReuse(user, round);
        by_characters += efim ? reuse.previous_increment_tokens : reuse.previous_prefix_tokens;
        by_tokens += efim ? reuse.common_increment_tokens : reuse.common_prefix_tokens;
      }
    }
    auto& b = info.Section("bpe_boundary").settings;
    b.push_back({"segment", std::string(efim ? "increment after <MID>, between consecutive rounds"
                                             : "prefix, between consecutive rounds")});
    b.push_back({"reusable_by_characters_tokens", by_characters});
    b.push_back({"reusable_by_tokens_tokens", by_tokens});
    b.push_back({"lost_to_bpe_boundaries_tokens", by_characters - by_tokens});
  }

  const WorkloadContext context_;
  std::string description_;
  std::string documents_;
  std::string auto_reason_;
  std::optional<tokenizer::BpeTokenizer> bpe_;
  std::optional<CodeCorpus> corpus_;
  std::unique_ptr<PaperWorkload> synthetic_paper_;
  std::unique_ptr<TextPaperWorkload> text_paper_;
  std::unique_ptr<PromptFormat> token_format_;
  std::unique_ptr<TextPromptBuilder> text_builder_;
  std::unique_ptr<RoundPrompter> prompter_;
  std::unique_ptr<ClosedLoopClient> client_;
};

}  // namespace

std::unique_ptr<Workload> MakeClosedLoopPaperWorkload(const WorkloadContext& context) {
  return std::make_unique<ClosedLoopPaperWorkload>(context);
}

}  // namespace efimsim
