// Corpus replay driver: the main() that stands in for libFuzzer in the
// normal build. Feeds every file named on the command line, and every
// regular file directly inside each directory named (in name order), to
// the target's LLVMFuzzerTestOneInput once. A finding aborts the process
// (so the ctest test fails) after this driver has printed the input's path.
// Fails when it found no input at all (a missing corpus is an error).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    if (std::filesystem::is_directory(arg)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (std::filesystem::is_regular_file(arg)) {
      inputs.push_back(arg);
    } else {
      std::cerr << argv[0] << ": no such file or directory: " << arg.string() << "\n";
      return 2;
    }
  }
  if (inputs.empty()) {
    std::cerr << argv[0] << ": no inputs (usage: " << argv[0] << " DIR_OR_FILE...)\n";
    return 2;
  }
  for (const std::filesystem::path& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    if (!in && !in.eof()) {
      std::cerr << argv[0] << ": cannot read " << path.string() << "\n";
      return 2;
    }
    // Named before running, so a crash's output says which input it was.
    std::cerr << "replay " << path.filename().string() << "\n";
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << "replayed " << inputs.size() << " inputs, no findings\n";
  return 0;
}
