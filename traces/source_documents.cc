#include "traces/source_documents.h"

#include "sim/base/errors.h"
#include "traces/pinned_corpus.h"
#include "traces/source_files.h"

namespace efimsim {
SourceDocuments SourceDocuments::Open(const std::string& directory,
                                      const std::vector<std::string>& extensions) {
  SourceDocuments documents;
  if (directory.empty()) {
    const std::string root(PinnedCorpusName());
    documents.source_ = "pinned corpus " + root;
    documents.root_bytes_ = root.size() + 1;
    for (const PinnedCorpusFile& file : PinnedCorpusFiles()) {  // sorted by path
      if (!HasExtension(file.path, extensions)) continue;
      documents.paths_.push_back(root + "/" + std::string(file.path));
      documents.pinned_.push_back(file.text);
    }
    return documents;
  }
  documents.source_ = directory;
  documents.paths_ = ListSourceFiles(directory, extensions);
  documents.root_bytes_ = directory.size() + (directory.back() == '/' ? 0 : 1);
  return documents;
}

std::string_view SourceDocuments::name(size_t i) const {
  return std::string_view(paths_[i]).substr(root_bytes_);
}

std::string SourceDocuments::Read(size_t i, int64_t max_bytes) const {
  if (pinned_.empty()) return ReadWholeFile(paths_[i], max_bytes);
  if (static_cast<int64_t>(pinned_[i].size()) > max_bytes) {
    throw InputError(paths_[i], 0, "", "larger than " + std::to_string(max_bytes) + " bytes");
  }
  return std::string(pinned_[i]);
}

}  // namespace efimsim
