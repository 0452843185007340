#pragma once
// One tokenizer for many runs: loaded the first time a run needs text, at
// most once per object, however many runs (and threads) share it. The CLI
// makes one per command (cli::ExperimentFromOptions) and every run made from
// that config shares it (ExperimentConfig::shared_tokenizer), so a workload of
// lengths only never pays for tokenizer.json (~0.6 s), and a text workload
// pays once per process instead of once per run.
//
// Contract: Get() loads `path()` on its first call (std::call_once, so
// concurrent first calls load once and all wait for it) and returns the
// same immutable tokenizer afterwards. A failed load throws the
// LoadTokenizer InputError and leaves nothing cached: the next call tries
// again. BpeTokenizer is thread-safe and its copies share the loaded data.
// `poll` is called now and then during the load (the run's interrupt check);
// what it throws escapes and, like a failed load, caches nothing.

#include <mutex>
#include <optional>
#include <string>

#include "traces/tokenizer/bpe_tokenizer.h"

namespace efimsim {

class SharedTokenizer {
 public:
  // `path`: a tokenizer.json; "" = the cache scripts/fetch-tokenizer fills.
  explicit SharedTokenizer(const std::string& path);
  SharedTokenizer(const SharedTokenizer&) = delete;
  SharedTokenizer& operator=(const SharedTokenizer&) = delete;

  // The resolved path (never empty).
  const std::string& path() const { return path_; }
  const tokenizer::BpeTokenizer& Get(const tokenizer::StopPoll& poll = {}) const;

 private:
  std::string path_;
  mutable std::once_flag once_;
  mutable std::optional<tokenizer::BpeTokenizer> tokenizer_;
};

}  // namespace efimsim
