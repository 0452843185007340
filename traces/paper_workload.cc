#include "traces/paper_workload.h"

#include "sim/base/check.h"
#include "sim/base/errors.h"
#include "sim/core/random.h"
#include "traces/uniform_tokens.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

namespace efimsim {

void ComputePaperLayout(int64_t length, int64_t rounds, PaperRoundLayout& layout) {
  layout.half = length / 2;
  // Python: chunk = int(half / (R + 2)); end_i = int(half / (R + 2) * (i + 2)).
  const double step = static_cast<double>(layout.half) / static_cast<double>(rounds + 2);
  layout.chunk = static_cast<int64_t>(step);
  layout.middle_end.resize(static_cast<size_t>(std::max<int64_t>(rounds, 0)));
  for (int64_t i = 0; i < rounds; ++i) {
    layout.middle_end[static_cast<size_t>(i)] = static_cast<int64_t>(step * static_cast<double>(i + 2));
  }
}

PaperRoundLayout ComputePaperLayout(int64_t length, int64_t rounds) {
  PaperRoundLayout layout;
  ComputePaperLayout(length, rounds, layout);
  return layout;
}

namespace {

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;  // unknown: no check
  return static_cast<int64_t>(pages) * static_cast<int64_t>(page_size);
}

}  // namespace

PaperWorkload::PaperWorkload(PaperWorkloadConfig config) : config_(config) {
  if (config_.users < 1) throw UsageError("--users: must be at least 1");
  if (config_.rounds < 1) throw UsageError("--rounds: must be at least 1");
  if (config_.doc_max_tokens - config_.doc_min_tokens < 2) {
    throw UsageError("--doc-min-tokens/--doc-max-tokens: the open range (" +
                     std::to_string(config_.doc_min_tokens) + ", " +
                     std::to_string(config_.doc_max_tokens) + ") holds no length");
  }
  if (config_.doc_min_tokens + 1 < 2 * (config_.rounds + 2)) {
    throw UsageError("--doc-min-tokens: documents too short for " +
                     std::to_string(config_.rounds) + " rounds");
  }
  EFIMSIM_CHECK(config_.text_first <= config_.text_last, "empty synthetic token range");
  const int64_t budget =
      config_.memory_budget_bytes > 0 ? config_.memory_budget_bytes : PhysicalMemoryBytes();
  const int64_t needed = PaperWorkloadPeakBytes(config_);
  if (budget > 0 && needed > budget) {
    const auto gb = [](int64_t bytes) {
      char text[32];
      std::snprintf(text, sizeof text, "%.1f GB", static_cast<double>(bytes) / 1e9);
      return std::string(text);
    };
    const int64_t per_user = needed / config_.users;
    throw UsageError("--users: " + std::to_string(config_.users) +
                     " users would need about " + gb(needed) + " of memory (every user of the "
                     "closed loop has a request in flight at once, ~" +
                     std::to_string((per_user + 512) / 1024) + " KB each), more than the " +
                     gb(budget) + (config_.memory_budget_bytes > 0 ? " allowed" : " this machine has") +
                     "; at most " + std::to_string(budget / std::max<int64_t>(per_user, 1)) +
                     " users fit");
  }
}

void PaperWorkload::Load(int64_t user) const {
  EFIMSIM_CHECK(user >= 0 && user < config_.users, "user out of range");
  if (user == loaded_user_) return;
  // One stream per user: a user's document does not depend on how many
  // other users the run has, nor on which users were asked for before.
  RandomStream stream = RandomStream::Derive(static_cast<uint64_t>(config_.seed),
                                             static_cast<uint64_t>(user), "efim-paper.document");
  const int64_t length = stream.UniformInt(config_.doc_min_tokens + 1, config_.doc_max_tokens - 1);
  ComputePaperLayout(length, config_.rounds, layout_);  // reuses layout_'s vector
  // The buffer only grows (a resize to each document's length would
  // zero-fill again whatever a longer one adds after a shorter); [0, length)
  // is used, and what is read is made first.
  if (tokens_.size() < static_cast<size_t>(length)) tokens_.resize(static_cast<size_t>(length));
  length_ = length;
  head_stream_ = stream;
  for (int i = 0; i < kUniformTokensSeedDraws; ++i) stream.NextU64();  // the head's seeds
  tail_stream_ = stream;
  head_made_ = 0;
  tail_made_ = false;
  loaded_user_ = user;
}

void PaperWorkload::MakeTail() const {
  if (tail_made_) return;
  RandomStream tail = *tail_stream_;
  FillUniformTokens(tail, config_.text_first, config_.text_last,
                    Held().subspan(static_cast<size_t>(layout_.half)));
  tail_made_ = true;
}

void PaperWorkload::MakeHead(int64_t head_tokens) const {
  EFIMSIM_CHECK(head_tokens <= layout_.half, "head beyond half the document");
  if (head_tokens > head_made_) {
    RandomStream head = *head_stream_;
    FillUniformTokens(head, config_.text_first, config_.text_last,
                      std::span<TokenId>(tokens_).first(static_cast<size_t>(head_tokens)));
    head_made_ = head_tokens;
  }
}

TokenSpan PaperWorkload::document(int64_t user) const {
  Load(user);
  MakeHead(layout_.half);
  MakeTail();
  return Held();
}

const PaperRoundLayout& PaperWorkload::layout(int64_t user) const {
  Load(user);
  return layout_;
}

TokenVector PaperWorkload::InitialPrefix(int64_t user) const {
  Load(user);
  MakeHead(layout_.chunk);
  return TokenVector(tokens_.begin(), tokens_.begin() + layout_.chunk);
}

InfillContext PaperWorkload::HeldRound(int64_t round) const {
  EFIMSIM_CHECK(round >= 0 && round < config_.rounds, "round out of range");
  const int64_t middle_end = layout_.middle_end[static_cast<size_t>(round)];
  MakeHead(middle_end);
  const TokenSpan text = Held();
  return InfillContext{text.first(static_cast<size_t>(middle_end)),
                       text.subspan(static_cast<size_t>(layout_.half))};
}

InfillContext PaperWorkload::Round(int64_t user, int64_t round) const {
  Load(user);
  MakeTail();
  return HeldRound(round);
}

InfillContext PaperWorkload::RoundSuffixIfCheap(int64_t user, int64_t round) const {
  Load(user);
  InfillContext context = HeldRound(round);
  context.suffix_ids_unspecified = !tail_made_;
  return context;
}

int64_t PaperWorkloadPeakBytes(const PaperWorkloadConfig& config) {
  // The mean document and its longest round's prompt, in tokens.
  const double mean_length =
      (static_cast<double>(config.doc_min_tokens) + static_cast<double>(config.doc_max_tokens)) / 2;
  const double half = mean_length / 2;
  const double rounds = static_cast<double>(std::max<int64_t>(config.rounds, 1));
  const double last_middle_end = half / (rounds + 2) * (rounds + 1);
  const double prompt_tokens = last_middle_end + (mean_length - half) + 4;
  // Per user in flight (measured: 2.5 KB a user for --users 100000
  // --rounds 1, traces/README.md): the engine keeps a queued request's
  // 16-byte block keys (one per 16-token block: a byte a token), not its
  // tokens; ~1 KB of request, event and bookkeeping structures. (EFIM's
  // prefix0 is not kept between rounds: every round extends the one
  // before, FormatSessionState::next_extends.)
  const double per_user = prompt_tokens * 1.0 + 1024;
  const double total = per_user * static_cast<double>(std::max<int64_t>(config.users, 0));
  return total >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(total);
}

std::string PaperWorkload::Description() const {
  return "efim-paper: " + std::to_string(config_.users) + " users x " +
         std::to_string(config_.rounds) + " rounds, closed loop; documents: synthetic tokens, " +
         "length uniform in (" + std::to_string(config_.doc_min_tokens) + ", " +
         std::to_string(config_.doc_max_tokens) + ") tokens, paper's character arithmetic on "
         "token positions";
}

}  // namespace efimsim
