// Encoding throughput of BpeTokenizer, reported as bytes_per_second.
// Uses the fetched Llama-3.1 tokenizer.json and every .py file under
// /usr/lib/python3*/ (each file encoded as one request) when the cache
// exists, else the tiny test fixture on generated code-like text.
// EFIMSIM_TOKENIZER_BENCH_MAX_BYTES caps the corpus (used by the ctest smoke run).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "traces/tokenizer/bpe_tokenizer.h"
#include "traces/tokenizer/default_tokenizer_path.h"

namespace efimsim::tokenizer {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

std::vector<std::string> StdlibPythonSources(std::size_t max_bytes) {
  std::vector<fs::path> paths;
  std::error_code ec;
  for (const fs::directory_entry& dir : fs::directory_iterator("/usr/lib", ec)) {
    if (!dir.is_directory() || dir.path().filename().string().rfind("python3", 0) != 0) continue;
    for (auto it = fs::recursive_directory_iterator(dir.path(), fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->path().extension() == ".py" && it->is_regular_file()) paths.push_back(it->path());
    }
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> sources;
  std::size_t total = 0;
  for (const fs::path& path : paths) {
    if (total >= max_bytes) break;
    sources.push_back(ReadFile(path));
    total += sources.back().size();
  }
  return sources;
}

std::vector<std::string> GeneratedSources(std::size_t max_bytes) {
  const std::string unit =
      "def hello(world, n=12345):\n    \"\"\"Say hello.\"\"\"\n    for i in range(n):\n"
      "        print(f'hello {world}!', i)  # comment\n    return None\n\n";
  std::vector<std::string> sources;
  std::size_t total = 0;
  while (total < std::min<std::size_t>(max_bytes, 4u << 20)) {
    std::string source;
    for (int i = 0; i < 100; ++i) source += unit;
    total += source.size();
    sources.push_back(std::move(source));
  }
  return sources;
}

struct BenchmarkInput {
  BpeTokenizer tokenizer;
  std::vector<std::string> sources;
  std::string description;
};

BenchmarkInput& Input() {
  static BenchmarkInput* input = [] {
    std::size_t max_bytes = ~std::size_t{0};
    if (const char* cap = std::getenv("EFIMSIM_TOKENIZER_BENCH_MAX_BYTES")) max_bytes = std::strtoull(cap, nullptr, 10);
    std::string path;
    try {
      path = DefaultTokenizerPath();
    } catch (const std::exception&) {
    }
    if (!path.empty() && fs::exists(path)) {
      std::vector<std::string> sources = StdlibPythonSources(max_bytes);
      if (!sources.empty()) {
        return new BenchmarkInput{BpeTokenizer::FromFile(path), std::move(sources), "llama3.1 on /usr/lib/python3*/*.py"};
      }
    }
    return new BenchmarkInput{
        BpeTokenizer::FromFile(std::string(EFIMSIM_TOKENIZER_TESTDATA_DIR) + "/tiny_tokenizer.json"),
        GeneratedSources(max_bytes), "tiny fixture on generated code (no tokenizer cache)"};
  }();
  return *input;
}

void BM_EncodeSourceFiles(benchmark::State& state) {
  const BenchmarkInput& input = Input();
  std::size_t bytes = 0;
  for (const std::string& source : input.sources) bytes += source.size();
  std::size_t tokens = 0;
  for (auto _ : state) {
    tokens = 0;
    for (const std::string& source : input.sources) {
      const std::vector<int32_t> ids = input.tokenizer.Encode(source);
      tokens += ids.size();
      benchmark::DoNotOptimize(ids.data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["files"] = static_cast<double>(input.sources.size());
  state.counters["MB_per_iteration"] = static_cast<double>(bytes) / 1e6;
  state.counters["bytes_per_token"] = static_cast<double>(bytes) / static_cast<double>(std::max<std::size_t>(tokens, 1));
  state.SetLabel(input.description);
}
BENCHMARK(BM_EncodeSourceFiles)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace efimsim::tokenizer

BENCHMARK_MAIN();
