#pragma once
// The pinned corpus of real code shipped with efimsim: a subset of CPython's
// standard library (traces/data/corpus/<name>/, described with its source,
// licence and selection rule in traces/data/README.md), compiled into the
// binary at build time so the paper and typing workloads read the same bytes
// on every machine, whatever Python it has installed.

#include <string_view>
#include <vector>

namespace efimsim {

// The corpus' name with its version, its folder under traces/data/corpus/:
// "cpython-3.11.2".
std::string_view PinnedCorpusName();

struct PinnedCorpusFile {
  std::string_view path;  // relative to the corpus folder, e.g. "asyncio/tasks.py"
  std::string_view text;  // the file's bytes
};

// Every file of the corpus, sorted by path in byte order.
const std::vector<PinnedCorpusFile>& PinnedCorpusFiles();

}  // namespace efimsim
