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

// tokenize's options.
struct TokenizeCommandOptions {
  std::vector<std::string> files;
  bool json = false;
  std::string tokenizer;
};

const CommandParamTable<TokenizeCommandOptions>& TokenizeParams() {
  using C = TokenizeCommandOptions;
  static const CommandParamTable<C> table = {
      {{"files", "", "files to tokenize (also the positional arguments)"}, &C::files,
       {.multitoken = true, .positional = -1}},
      {{"json", "", "print the token ids as JSON: {\"files\": [{\"path\": ..., \"ids\": [...]}]}"},
       &C::json, {.is_switch = true}},
      {RunParamInfo("tokenizer"), &C::tokenizer},
  };
  return table;
}

CommandRows TokenizeRows() {
  return OwnRows("tokenize",
                 "Prints each file's token count under the Llama-3.1 byte-level BPE (no BOS "
                 "added).\nusage: efimsim tokenize FILE... [--json]",
                 "Tokenize", TokenizeParams());
}

}  // namespace

std::vector<CommandRows> TokenizeCommandRows() { return {TokenizeRows()}; }

int RunTokenizeCommand(int argc, const char* const* argv) {
  po::variables_map values;
  TokenizeCommandOptions own;
  if (!ParseCommandRows(TokenizeRows(), TokenizeParams(), argc, argv, values, own)) return 0;
  if (own.files.empty()) throw UsageError("tokenize needs at least one FILE");
  const std::vector<std::string>& files = own.files;
  // Every input checked before anything is printed, so no output is half a listing.
  for (const std::string& file : files) {
    if (std::filesystem::is_directory(file)) {
      throw InputError(file, 0, "", "is a directory; give its files (e.g. " + file + "/*.py)");
    }
    if (!std::ifstream(file, std::ios::binary)) throw InputError(file, 0, "", "cannot open file");
  }
  const tokenizer::BpeTokenizer bpe = LoadTokenizer(own.tokenizer);
  const bool json = own.json;
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
