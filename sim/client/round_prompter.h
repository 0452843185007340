#pragma once
// Round r of user u as a prompt, for closed-loop multi-round workloads.
// Two ways to get there:
//   TokenRoundPrompter: a workload of token contexts + a token-level
//     PromptFormat (synthetic documents: tokens are the ground truth);
//   TextRoundPrompter: a workload of text + a TextPromptBuilder that
//     tokenizes each prompt segment as a server would (real documents: the
//     BPE boundaries decide what a cache can reuse).

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/client/client_request.h"
#include "sim/client/prompt_format.h"
#include "sim/client/text_prompt_builder.h"
#include "traces/text_paper_workload.h"

namespace efimsim {

class RoundPrompter {
 public:
  virtual ~RoundPrompter() = default;
  virtual int64_t num_users() const = 0;
  virtual int64_t num_rounds(int64_t user) const = 0;
  // Round `round` of `user`'s prompt into `prompt`. Rounds of one user are
  // built in order, starting from 0. Returns how many leading tokens of it
  // equal the user's previous prompt (0: none, or not known): what
  // ClientRequest::prompt_tokens_shared_with_previous_round says.
  virtual int64_t Build(int64_t user, int64_t round, TokenVector& prompt) = 0;
  // Build, leaving ids unmade where `sink` says a request submitted next
  // will not read them: request.prompt, its unmade range and
  // prompt_tokens_shared_with_previous_round are set. The default makes
  // every id.
  virtual void BuildFor(const RequestSink& /*sink*/, int64_t user, int64_t round,
                        ClientRequest& request) {
    request.prompt_tokens_shared_with_previous_round = Build(user, round, request.prompt);
  }
  // The round's reference output (ClientRequest::reference_output), at
  // most max_tokens tokens, into `reference`; left empty where the
  // workload has no text (synthetic token documents).
  virtual void BuildReference(int64_t /*user*/, int64_t /*round*/, int64_t /*max_tokens*/,
                              TokenVector& reference) {
    reference.clear();
  }
  // EFIM re-bases so far, over all users.
  virtual int64_t rebases() const = 0;
};

class TokenRoundPrompter : public RoundPrompter {
 public:
  // Both must outlive the prompter.
  TokenRoundPrompter(const MultiRoundWorkload& workload, const PromptFormat& format);
  int64_t num_users() const override { return workload_.num_users(); }
  int64_t num_rounds(int64_t user) const override { return workload_.num_rounds(user); }
  int64_t Build(int64_t user, int64_t round, TokenVector& prompt) override;
  // Leaves the suffix unmade where the workload has not made it yet, the
  // format says where it goes, and it lies within what the sink will not read.
  void BuildFor(const RequestSink& sink, int64_t user, int64_t round,
                ClientRequest& request) override;
  int64_t rebases() const override;

 private:
  // Build's work; `sink` null: every id made.
  int64_t BuildPrompt(const RequestSink* sink, int64_t user, int64_t round, ClientRequest* request,
                      TokenVector& prompt);

  const MultiRoundWorkload& workload_;
  const PromptFormat& format_;
  // The session state of each user between its first and last round only
  // (begun at round 0, dropped after the last round's prompt), so memory
  // follows the users in a session, not the population.
  std::unordered_map<int64_t, FormatSessionState> sessions_;
  int64_t finished_rebases_ = 0;  // of the users whose sessions were dropped
};

class TextRoundPrompter : public RoundPrompter {
 public:
  // Both must outlive the prompter. EFIM's prefix0 is each user's initial
  // prefix (the text before the first round's typing).
  TextRoundPrompter(const TextPaperWorkload& workload, const TextPromptBuilder& builder);
  int64_t num_users() const override { return workload_.num_users(); }
  int64_t num_rounds(int64_t user) const override { return workload_.num_rounds(user); }
  int64_t Build(int64_t user, int64_t round, TokenVector& prompt) override;
  // The tokens of TextPaperWorkload::ContinuationText (the text after the
  // round's cursor up to the suffix), whatever the prompt format.
  void BuildReference(int64_t user, int64_t round, int64_t max_tokens,
                      TokenVector& reference) override;
  int64_t rebases() const override;

 private:
  const TextPaperWorkload& workload_;
  const TextPromptBuilder& builder_;
  std::vector<TextPromptState> sessions_;
};

}  // namespace efimsim
