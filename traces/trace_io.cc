// JSON codec of the efimsim trace format (traces/FORMAT.md).
#include "traces/trace_io.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <initializer_list>
#include <limits>

#include "sim/base/errors.h"
#include "traces/json_line_io.h"

namespace efimsim {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;


// Field access with errors that name the field.
class Fields {
 public:
  Fields(const Json& object, const std::string& file, int64_t line)
      : object_(object), file_(file), line_(line) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& problem) const {
    throw InputError(file_, line_, field, problem);
  }
  bool Has(const char* field) const { return object_.contains(field); }
  const Json& Get(const char* field) const {
    const auto it = object_.find(field);
    if (it == object_.end()) Fail(field, "missing");
    return *it;
  }
  int64_t Int(const char* field) const {
    const Json& v = Get(field);
    if (v.is_number_unsigned()) {
      if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        Fail(field, "integer too large");
      }
      return static_cast<int64_t>(v.get<uint64_t>());
    }
    if (!v.is_number_integer()) Fail(field, "must be an integer");
    return v.get<int64_t>();
  }
  int64_t IntOr(const char* field, int64_t fallback) const {
    return Has(field) ? Int(field) : fallback;
  }
  std::string String(const char* field) const {
    const Json& v = Get(field);
    if (!v.is_string()) Fail(field, "must be a string");
    return v.get<std::string>();
  }
  std::string StringOr(const char* field, std::string fallback) const {
    return Has(field) ? String(field) : fallback;
  }
  // Rejects members outside `allowed` (catches misspelt fields).
  void OnlyThese(std::initializer_list<const char*> allowed) const {
    for (const auto& item : object_.items()) {
      bool known = false;
      for (const char* name : allowed) known = known || item.key() == name;
      if (!known) Fail(item.key(), "unknown field for this record type");
    }
  }

 private:
  const Json& object_;
  const std::string& file_;
  int64_t line_;
};

uint64_t ParseBlockKey(const Json& v, const Fields& fields) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) fields.Fail("block_keys", "keys must be >= 0");
  if (!v.is_string()) {
    fields.Fail("block_keys", "keys must be decimal strings (or non-negative integers)");
  }
  const std::string& text = v.get_ref<const std::string&>();
  uint64_t key = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), key);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || text[0] == '+') {
    fields.Fail("block_keys", "'" + text + "' is not an unsigned 64-bit decimal");
  }
  return key;
}

SessionStart ParseSession(const Fields& f) {
  f.OnlyThese({"type", "time_ns", "session_id", "user_id", "document_id", "cursor_bytes", "text",
               "text_file"});
  SessionStart s;
  s.time_ns = f.Int("time_ns");
  s.session_id = f.String("session_id");
  s.user_id = f.String("user_id");
  s.document_id = f.String("document_id");
  s.cursor_bytes = f.Int("cursor_bytes");
  if (f.Has("text") == f.Has("text_file")) f.Fail("text", "give exactly one of text and text_file");
  if (f.Has("text")) {
    s.text = f.String("text");
  } else {
    s.text_file = f.String("text_file");
    if (s.text_file.empty()) f.Fail("text_file", "must not be empty");
  }
  return s;
}

EditEvent ParseEdit(const Fields& f) {
  EditEvent e;
  const std::string kind = f.String("kind");
  const std::optional<EditKind> parsed = ParseEditKind(kind);
  if (!parsed) f.Fail("kind", "unknown edit kind '" + kind + "'");
  e.kind = *parsed;
  switch (e.kind) {
    case EditKind::kInsert:
    case EditKind::kCompletionAccepted:
      f.OnlyThese({"type", "time_ns", "session_id", "kind", "offset_bytes", "text"});
      e.offset_bytes = f.Int("offset_bytes");
      e.text = f.String("text");
      break;
    case EditKind::kDelete:
      f.OnlyThese({"type", "time_ns", "session_id", "kind", "offset_bytes", "length_bytes"});
      e.offset_bytes = f.Int("offset_bytes");
      e.length_bytes = f.Int("length_bytes");
      break;
    case EditKind::kMoveCursor:
      f.OnlyThese({"type", "time_ns", "session_id", "kind", "offset_bytes"});
      e.offset_bytes = f.Int("offset_bytes");
      break;
    case EditKind::kCompletionShown:
      f.OnlyThese({"type", "time_ns", "session_id", "kind", "text"});
      e.text = f.StringOr("text", "");
      break;
    case EditKind::kIdle:
      f.OnlyThese({"type", "time_ns", "session_id", "kind", "duration_ns"});
      e.duration_ns = f.Int("duration_ns");
      break;
    case EditKind::kCompletionRejected:
    case EditKind::kEnd:
      f.OnlyThese({"type", "time_ns", "session_id", "kind"});
      break;
  }
  e.time_ns = f.Int("time_ns");
  e.session_id = f.String("session_id");
  return e;
}

TraceRequest ParseRequest(const Fields& f) {
  f.OnlyThese({"type", "arrival_ns", "session_id", "think_time_ns", "prompt_tokens",
               "output_tokens", "token_ids", "block_key_tokens", "block_keys"});
  TraceRequest r;
  r.arrival_ns = f.Int("arrival_ns");
  r.session_id = f.StringOr("session_id", "");
  if (f.Has("session_id") && r.session_id.empty()) {
    f.Fail("session_id", "must not be empty when given");
  }
  if (f.Has("think_time_ns")) r.think_time_ns = f.Int("think_time_ns");
  r.prompt_tokens = f.Int("prompt_tokens");
  r.output_tokens = f.Int("output_tokens");
  if (f.Has("token_ids")) {
    const Json& ids = f.Get("token_ids");
    if (!ids.is_array() || ids.empty()) f.Fail("token_ids", "must be a non-empty array");
    r.token_ids.reserve(ids.size());
    for (const Json& id : ids) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
          id.get<int64_t>() > std::numeric_limits<TokenId>::max()) {
        f.Fail("token_ids", "ids must be integers in [0, 2^31)");
      }
      r.token_ids.push_back(static_cast<TokenId>(id.get<int64_t>()));
    }
  }
  if (f.Has("block_keys")) {
    const Json& keys = f.Get("block_keys");
    if (!keys.is_array() || keys.empty()) f.Fail("block_keys", "must be a non-empty array");
    r.block_keys.reserve(keys.size());
    for (const Json& key : keys) r.block_keys.push_back(ParseBlockKey(key, f));
    r.block_key_tokens = f.Int("block_key_tokens");
  } else if (f.Has("block_key_tokens")) {
    f.Fail("block_key_tokens", "given without block_keys");
  }
  return r;
}

std::string Dump(const OrderedJson& j) {
  // Records are validated (valid UTF-8) before they get here.
  return j.dump(-1, ' ', false, OrderedJson::error_handler_t::strict);
}

}  // namespace

TraceHeader ParseTraceHeaderLine(std::string_view line, const std::string& file,
                                 int64_t line_number) {
  const Json object = ParseJsonObjectLine(line, file, line_number);
  const Fields f(object, file, line_number);
  if (!f.Has("type") || !f.Get("type").is_string() || f.String("type") != "header") {
    throw InputError(file, line_number, "type",
                     "the first line of an efimsim trace must be {\"type\":\"header\",...}");
  }
  f.OnlyThese({"type", "schema_version", "source", "description"});
  TraceHeader header;
  header.schema_version = f.Int("schema_version");
  if (header.schema_version != kTraceSchemaVersion) {
    f.Fail("schema_version", "unsupported version " + std::to_string(header.schema_version) +
                                 " (this reader knows " + std::to_string(kTraceSchemaVersion) + ")");
  }
  header.source = f.StringOr("source", "");
  header.description = f.StringOr("description", "");
  return header;
}

TraceRecord ParseTraceRecordLine(std::string_view line, const std::string& file,
                                 int64_t line_number) {
  const Json object = ParseJsonObjectLine(line, file, line_number);
  const Fields f(object, file, line_number);
  const std::string type = f.String("type");
  if (type == "session") return ParseSession(f);
  if (type == "edit") return ParseEdit(f);
  if (type == "request") return ParseRequest(f);
  if (type == "header") f.Fail("type", "a second header");
  f.Fail("type", "unknown record type '" + type + "' (session, edit or request)");
}

std::string FormatTraceHeaderLine(const TraceHeader& header) {
  OrderedJson j;
  j["type"] = "header";
  j["schema_version"] = header.schema_version;
  if (!header.source.empty()) j["source"] = header.source;
  if (!header.description.empty()) j["description"] = header.description;
  return Dump(j);
}

std::string FormatTraceRecordLine(const TraceRecord& record) {
  OrderedJson j;
  if (const auto* s = std::get_if<SessionStart>(&record)) {
    j["type"] = "session";
    j["time_ns"] = s->time_ns;
    j["session_id"] = s->session_id;
    j["user_id"] = s->user_id;
    j["document_id"] = s->document_id;
    j["cursor_bytes"] = s->cursor_bytes;
    if (s->text_file.empty()) {
      j["text"] = s->text;
    } else {
      j["text_file"] = s->text_file;
    }
  } else if (const auto* e = std::get_if<EditEvent>(&record)) {
    j["type"] = "edit";
    j["time_ns"] = e->time_ns;
    j["session_id"] = e->session_id;
    j["kind"] = std::string(EditKindName(e->kind));
    switch (e->kind) {
      case EditKind::kInsert:
      case EditKind::kCompletionAccepted:
        j["offset_bytes"] = e->offset_bytes;
        j["text"] = e->text;
        break;
      case EditKind::kDelete:
        j["offset_bytes"] = e->offset_bytes;
        j["length_bytes"] = e->length_bytes;
        break;
      case EditKind::kMoveCursor:
        j["offset_bytes"] = e->offset_bytes;
        break;
      case EditKind::kCompletionShown:
        if (!e->text.empty()) j["text"] = e->text;
        break;
      case EditKind::kIdle:
        j["duration_ns"] = e->duration_ns;
        break;
      case EditKind::kCompletionRejected:
      case EditKind::kEnd:
        break;
    }
  } else {
    const auto& r = std::get<TraceRequest>(record);
    j["type"] = "request";
    j["arrival_ns"] = r.arrival_ns;
    if (!r.session_id.empty()) j["session_id"] = r.session_id;
    if (r.think_time_ns) j["think_time_ns"] = *r.think_time_ns;
    j["prompt_tokens"] = r.prompt_tokens;
    j["output_tokens"] = r.output_tokens;
    if (!r.token_ids.empty()) j["token_ids"] = r.token_ids;
    if (!r.block_keys.empty()) {
      j["block_key_tokens"] = r.block_key_tokens;
      OrderedJson keys = OrderedJson::array();
      for (const uint64_t key : r.block_keys) keys.push_back(std::to_string(key));
      j["block_keys"] = std::move(keys);
    }
  }
  return Dump(j);
}

namespace {

JsonLineShape ShapeOf(const Json& value) {
  JsonLineShape shape;
  for (const auto& item : value.items()) shape.keys.push_back(item.key());
  const auto type = value.find("type");
  if (type != value.end() && type->is_string()) shape.type = type->get<std::string>();
  return shape;
}

}  // namespace

JsonLineShape InspectJsonObjectLine(std::string_view line, const std::string& file,
                                    int64_t line_number) {
  return ShapeOf(ParseJsonObjectLine(line, file, line_number));
}

std::optional<JsonLineShape> InspectJsonLine(std::string_view line) {
  const Json value = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (!value.is_object()) return std::nullopt;
  return ShapeOf(value);
}

}  // namespace efimsim
