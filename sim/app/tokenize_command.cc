#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/app/cli_options.h"
#include "sim/app/commands.h"
#include "sim/app/interrupt.h"
#include "sim/base/errors.h"
#include "traces/load_tokenizer.h"

namespace efimsim::cli {
namespace {

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

int RunTokenizeCommand(int argc, const char* const* argv) {
  po::options_description visible("Tokenize");
  visible.add_options()
      ("files", po::value<std::vector<std::string>>()->multitoken(), "files to tokenize")
      ("json", po::bool_switch(), "print {\"files\": [{\"path\": ..., \"ids\": [...]}]}")
      ("tokenizer", po::value<std::string>()->default_value(""),
       "Hugging Face tokenizer.json; default: the Llama-3.1 one scripts/fetch-tokenizer caches");
  po::positional_options_description positional;
  positional.add("files", -1);
  po::variables_map values;
  if (!ParseCommandLine("tokenize",
                        "Prints each file's token count under the Llama-3.1 byte-level BPE "
                        "(no BOS added).\nusage: efimsim tokenize FILE... [--json]",
                        visible, argc, argv, values, &positional)) {
    return 0;
  }
  if (!values.count("files")) throw UsageError("tokenize needs at least one FILE");
  const std::vector<std::string> files = values["files"].as<std::vector<std::string>>();
  // Every input checked before anything is printed, so no output is half a listing.
  for (const std::string& file : files) {
    if (std::filesystem::is_directory(file)) {
      throw InputError(file, 0, "", "is a directory; give its files (e.g. " + file + "/*.py)");
    }
    if (!std::ifstream(file, std::ios::binary)) throw InputError(file, 0, "", "cannot open file");
  }
  const tokenizer::BpeTokenizer bpe = LoadTokenizer(values["tokenizer"].as<std::string>());
  const bool json = values["json"].as<bool>();
  // Printed whole at the end: an interrupt (polled per file) prints nothing.
  std::ostringstream out;
  if (json) out << "{\"files\": [";
  bool first = true;
  for (const std::string& file : files) {
    ThrowIfInterrupted();
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(file, 0, "", "cannot open file");
    std::ostringstream text;
    text << in.rdbuf();
    const std::vector<int32_t> ids = bpe.Encode(text.str(), tokenizer::AddedTokenText::kAsPlainText);
    if (json) {
      out << (first ? "" : ", ") << "{\"path\": " << JsonString(file) << ", \"ids\": [";
      for (size_t i = 0; i < ids.size(); ++i) out << (i ? "," : "") << ids[i];
      out << "]}";
    } else {
      out << ids.size() << "\t" << file << "\n";
    }
    first = false;
  }
  if (json) out << "]}\n";
  ThrowIfInterrupted();
  std::cout << out.str();
  return 0;
}

}  // namespace efimsim::cli
