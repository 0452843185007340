#include "traces/tokenizer/bpe_tokenizer.h"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "traces/tokenizer/added_token_matcher.h"
#include "traces/tokenizer/bpe_merge_table.h"
#include "traces/tokenizer/bpe_word_merger.h"
#include "traces/tokenizer/byte_level_alphabet.h"
#include "traces/tokenizer/llama3_pre_tokenizer.h"
#include "traces/tokenizer/pretoken_cache.h"
#include "traces/tokenizer/string_key_hash.h"
#include "traces/tokenizer/tokenizer_data.h"
#include "traces/tokenizer/tokenizer_io.h"
#include "traces/tokenizer/utf8.h"

namespace efimsim::tokenizer {

// Everything Encode/Decode need, in raw bytes (not the byte-level alphabet).
struct BpeTokenizer::Model {
  static constexpr std::size_t kPretokenCacheEntries = 1 << 16;

  std::unordered_map<std::string, int32_t, StringKeyHash, std::equal_to<>> vocab_id_by_bytes;
  std::array<int32_t, 256> byte_token_ids{};
  BpeMergeTable merges;
  bool ignore_merges = false;
  AddedTokenMatcher added_tokens;
  std::vector<std::string> bytes_by_id;  // indexed by id
  std::vector<bool> id_is_token;         // false for gaps in the id space
  mutable PretokenCache pretoken_cache{kPretokenCacheEntries};
};

namespace {

// Builds the model, checking what the JSON reader cannot: every vocab
// string is byte-level text, ids are unique, all 256 bytes have a token and
// every merge joins two tokens into a token.
class ModelBuilder {
 public:
  ModelBuilder(const TokenizerData& data, const StopPoll& poll) : data_(data), poll_(poll) {}

  template <typename Model>
  void Build(Model& model) const {
    model.ignore_merges = data_.ignore_merges;
    int32_t max_id = -1;
    for (const auto& [text, id] : data_.vocab) max_id = std::max(max_id, id);
    for (const AddedTokenSpec& added : data_.added_tokens) max_id = std::max(max_id, added.id);
    const auto id_count = static_cast<std::size_t>(max_id) + 1;  // max_id >= -1, bounded by the loader
    model.bytes_by_id.assign(id_count, std::string());
    model.id_is_token.assign(id_count, false);

    model.vocab_id_by_bytes.reserve(data_.vocab.size());
    for (const auto& [text, id] : data_.vocab) {
      Poll();
      const std::string field = "model.vocab[\"" + text + "\"]";
      std::optional<std::string> bytes = ByteLevelTextToBytes(text);
      if (!bytes) Fail(field, "token is not written in the byte-level alphabet");
      if (model.id_is_token[static_cast<std::size_t>(id)]) Fail(field, "id " + std::to_string(id) + " used twice");
      model.id_is_token[static_cast<std::size_t>(id)] = true;
      model.bytes_by_id[static_cast<std::size_t>(id)] = *bytes;
      model.vocab_id_by_bytes.emplace(std::move(*bytes), id);
    }
    for (int b = 0; b < 256; ++b) {
      const auto it = model.vocab_id_by_bytes.find(std::string(1, static_cast<char>(b)));
      if (it == model.vocab_id_by_bytes.end()) {
        Fail("model.vocab", "no token for byte " + std::to_string(b) + " (byte-level BPE needs all 256)");
      }
      model.byte_token_ids[static_cast<std::size_t>(b)] = it->second;
    }

    model.merges.Reserve(data_.merges.size());
    for (std::size_t rank = 0; rank < data_.merges.size(); ++rank) {
      Poll();
      const std::string field = "model.merges[" + std::to_string(rank) + "]";
      const auto& [left, right] = data_.merges[rank];
      const int32_t left_id = VocabId(model, left, field, "left part");
      const int32_t right_id = VocabId(model, right, field, "right part");
      const int32_t merged_id = VocabId(model, left + right, field, "merged token");
      model.merges.Insert(left_id, right_id, BpeMerge{static_cast<int32_t>(rank), merged_id});
    }

    for (std::size_t i = 0; i < data_.added_tokens.size(); ++i) {
      const AddedTokenSpec& added = data_.added_tokens[i];
      const auto index = static_cast<std::size_t>(added.id);
      if (model.id_is_token[index] && model.bytes_by_id[index] != added.content) {
        Fail("added_tokens[" + std::to_string(i) + "].id",
             "id " + std::to_string(added.id) + " already belongs to another token");
      }
      model.id_is_token[index] = true;
      model.bytes_by_id[index] = added.content;
      model.added_tokens.Add(added.content, added.id);
    }
  }

 private:
  [[noreturn]] void Fail(const std::string& field, const std::string& problem) const {
    throw TokenizerError(data_.source_path, field, problem);
  }

  void Poll() const {
    if (poll_ && ++items_ % kItemsPerStopPoll == 0) poll_();
  }

  template <typename Model>
  int32_t VocabId(const Model& model, const std::string& byte_level_text, const std::string& field,
                  const char* what) const {
    const std::optional<std::string> bytes = ByteLevelTextToBytes(byte_level_text);
    if (bytes) {
      const auto it = model.vocab_id_by_bytes.find(*bytes);
      if (it != model.vocab_id_by_bytes.end()) return it->second;
    }
    Fail(field, std::string(what) + " \"" + byte_level_text + "\" is not in model.vocab");
  }

  const TokenizerData& data_;
  const StopPoll& poll_;
  mutable int64_t items_ = 0;
};

}  // namespace

BpeTokenizer::BpeTokenizer(std::shared_ptr<const Model> model) : model_(std::move(model)) {}

BpeTokenizer BpeTokenizer::FromFile(const std::string& path, const StopPoll& poll) {
  const TokenizerData data = ReadTokenizerJson(path, poll);
  auto model = std::make_shared<Model>();
  ModelBuilder(data, poll).Build(*model);
  return BpeTokenizer(std::move(model));
}

std::vector<int32_t> BpeTokenizer::Encode(std::string_view text, AddedTokenText added_token_text) const {
  return EncodeLeading(text, SIZE_MAX, added_token_text);
}

std::vector<int32_t> BpeTokenizer::EncodeLeading(std::string_view text, std::size_t max_tokens,
                                                 AddedTokenText added_token_text) const {
  std::string replaced;
  if (!IsValidUtf8(text)) {
    replaced = ReplaceInvalidUtf8(text);
    text = replaced;
  }
  std::vector<int32_t> ids;
  ids.reserve(std::min(text.size() / 3 + 1, max_tokens));
  const bool recognize = added_token_text == AddedTokenText::kRecognize && !model_->added_tokens.empty();
  std::size_t pos = 0;
  while (pos < text.size() && ids.size() < max_tokens) {
    const std::optional<AddedTokenMatch> match =
        recognize ? model_->added_tokens.FindNext(text, pos) : std::nullopt;
    const std::size_t section_end = match ? match->position : text.size();
    AppendOrdinaryTextIds(text.substr(pos, section_end - pos), max_tokens, ids);
    if (!match) break;
    ids.push_back(match->id);  // past max_tokens, cut below
    pos = match->position + match->length;
  }
  // The last pre-token or added token may have given more ids than asked for.
  if (ids.size() > max_tokens) ids.resize(max_tokens);
  return ids;
}

// Text between added tokens: split into pre-tokens, each encoded alone.
void BpeTokenizer::AppendOrdinaryTextIds(std::string_view section, std::size_t limit,
                                         std::vector<int32_t>& ids) const {
  for (std::size_t begin = 0; begin < section.size() && ids.size() < limit;) {
    const std::size_t end = Llama3PreTokenEnd(section, begin);
    AppendPreTokenIds(section.substr(begin, end - begin), ids);
    begin = end;
  }
}

void BpeTokenizer::AppendPreTokenIds(std::string_view pre_token, std::vector<int32_t>& ids) const {
  const Model& model = *model_;
  if (pre_token.size() == 1) {
    ids.push_back(model.byte_token_ids[static_cast<uint8_t>(pre_token[0])]);
    return;
  }
  if (model.ignore_merges) {
    // A pre-token that is itself a token maps straight to it.
    const auto it = model.vocab_id_by_bytes.find(pre_token);
    if (it != model.vocab_id_by_bytes.end()) {
      ids.push_back(it->second);
      return;
    }
  }
  if (model.pretoken_cache.AppendIfPresent(pre_token, ids)) return;
  const std::size_t first = ids.size();
  AppendBpeMergedIds(pre_token, model.byte_token_ids, model.merges, ids);
  model.pretoken_cache.Insert(pre_token, std::span<const int32_t>(ids).subspan(first));
}

std::string BpeTokenizer::Decode(std::span<const int32_t> ids) const {
  std::string text;
  for (const int32_t id : ids) {
    if (id < 0 || static_cast<std::size_t>(id) >= model_->id_is_token.size() ||
        !model_->id_is_token[static_cast<std::size_t>(id)]) {
      throw std::out_of_range("BpeTokenizer::Decode: " + std::to_string(id) + " is not a token id");
    }
    text += model_->bytes_by_id[static_cast<std::size_t>(id)];
  }
  return text;
}

std::optional<int32_t> BpeTokenizer::SpecialTokenId(std::string_view content) const {
  return model_->added_tokens.IdOf(content);
}

int32_t BpeTokenizer::VocabSize() const { return static_cast<int32_t>(model_->bytes_by_id.size()); }

}  // namespace efimsim::tokenizer
