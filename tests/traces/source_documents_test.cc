#include "traces/source_documents.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/base/errors.h"
#include "sim/base/sha256.h"
#include "test_files.h"
#include "traces/pinned_corpus.h"
#include "traces/source_files.h"

namespace efimsim {
namespace {

// Issue 31 item 3: by default the documents are the pinned corpus compiled
// into the binary, the same 250 files on every machine, whatever
// /usr/lib/python3* holds.
TEST(SourceDocuments, DefaultIsThePinnedCorpusWithFixedBytes) {
  const SourceDocuments documents = SourceDocuments::Open("", {".py"});
  EXPECT_EQ(documents.source(), "pinned corpus cpython-3.11.2");
  ASSERT_EQ(documents.size(), 250u);
  EXPECT_EQ(documents.path(0), "cpython-3.11.2/" + std::string(documents.name(0)));
  // The digest traces/data/README.md gives: sha256sum of the sorted
  // `sha256sum ./<name>` lines.
  std::string listing;
  for (size_t i = 0; i < documents.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(documents.name(i - 1), documents.name(i));
    }
    listing += Sha256Hex(documents.Read(i, 1 << 20)) + "  ./" + std::string(documents.name(i)) + "\n";
  }
  EXPECT_EQ(Sha256Hex(listing), "d513d3fad4c5dda95ba2cc6db2dc293cae13880db078439b5275c5bf0de0c2e9");
  EXPECT_THROW(documents.Read(0, 10), InputError);
}

// The binary holds the committed files byte for byte (a stale build or a
// literal that changed a byte would differ).
TEST(SourceDocuments, PinnedCorpusIsTheCommittedFiles) {
  const std::string dir =
      std::string(EFIMSIM_REPO_TRACE_DATA_DIR) + "/corpus/" + std::string(PinnedCorpusName());
  const SourceDocuments on_disk = SourceDocuments::Open(dir, {".py"});
  const SourceDocuments pinned = SourceDocuments::Open("", {".py"});
  ASSERT_EQ(on_disk.size(), pinned.size());
  for (size_t i = 0; i < pinned.size(); ++i) {
    ASSERT_EQ(on_disk.name(i), pinned.name(i));
    EXPECT_EQ(on_disk.Read(i, 1 << 20), pinned.Read(i, 1 << 20)) << pinned.path(i);
  }
}

TEST(SourceDocuments, DirectoryListsItsFilesByRelativeName) {
  const std::string dir = test::ScratchDir();
  test::WriteFile(dir, "pkg/a.py", "a = 1\n");
  test::WriteFile(dir, "b.py", "b = 2\n");
  test::WriteFile(dir, "notes.txt", "not python\n");
  for (const std::string& root : {dir, dir + "/"}) {
    const SourceDocuments documents = SourceDocuments::Open(root, {".py"});
    EXPECT_EQ(documents.source(), root);
    ASSERT_EQ(documents.size(), 2u);
    EXPECT_EQ(documents.name(0), "b.py");
    EXPECT_EQ(documents.name(1), "pkg/a.py");
    EXPECT_EQ(documents.Read(1, 100), "a = 1\n");
    EXPECT_THROW(documents.Read(1, 2), InputError);
  }
  EXPECT_EQ(SourceDocuments::Open("", {".rs"}).size(), 0u);
  EXPECT_THROW(SourceDocuments::Open(dir + "/missing", {".py"}), InputError);
}

}  // namespace
}  // namespace efimsim
