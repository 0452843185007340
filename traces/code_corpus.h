#pragma once
// A corpus of real code documents for the paper's workload (docs/semantics.md §2:
// code files whose whole text is 2048 < tokens < 4096): the pinned corpus of
// CPython standard-library files (pinned_corpus.h) or the source files of a
// directory (source_documents.h), tokenized with the Llama-3.1 BPE tokenizer,
// keeping files whose token count lies in the open range (min_tokens,
// max_tokens) and whose text is valid UTF-8.

#include <cstdint>
#include <string>
#include <vector>

#include "traces/tokenizer/bpe_tokenizer.h"

namespace efimsim {

struct CodeCorpusConfig {
  std::string directory;                      // "": the pinned corpus
  std::vector<std::string> extensions{".py"};
  int64_t min_tokens = 2048;                  // exclusive
  int64_t max_tokens = 4096;                  // exclusive
};

struct CodeDocument {
  std::string path;  // SourceDocuments::path: under the directory, or "cpython-3.11.2/..."
  std::string text;
  int64_t num_tokens = 0;  // Encode(text, kAsPlainText).size(), no BOS
};

class CodeCorpus {
 public:
  // Lists, reads and tokenizes every matching file (about 0.5 s for the
  // pinned corpus). Throws UsageError for an empty token range, InputError
  // when the directory cannot be listed. `poll` is called before each file;
  // what it throws escapes.
  static CodeCorpus Build(const CodeCorpusConfig& config,
                          const tokenizer::BpeTokenizer& tokenizer,
                          const tokenizer::StopPoll& poll = {});
  // How many source files Build would read: an upper bound on
  // documents().size(), found by listing the directory alone, so a caller
  // can tell that a corpus is too small before loading a tokenizer. Throws
  // InputError as Build does for a missing or unlistable directory.
  static int64_t CountCandidateFiles(const CodeCorpusConfig& config);

  // Kept documents, sorted by path.
  const std::vector<CodeDocument>& documents() const { return documents_; }
  // Where the documents come from: SourceDocuments::source(), "pinned
  // corpus cpython-3.11.2" or the directory.
  const std::string& source() const { return source_; }
  int64_t files_scanned() const { return files_scanned_; }
  const CodeCorpusConfig& config() const { return config_; }

  // `count` distinct document indices drawn with RandomStream::Derive(seed,
  // 0, "corpus.sample") by a partial Fisher-Yates shuffle, so the first k
  // picks are the same whatever count >= k is. Throws UsageError when count
  // exceeds the corpus size.
  std::vector<size_t> Sample(int64_t count, uint64_t seed) const;

 private:
  CodeCorpusConfig config_;
  std::string source_;
  int64_t files_scanned_ = 0;
  std::vector<CodeDocument> documents_;
};

}  // namespace efimsim
