#include "traces/skipped_line_head.h"

#include <nlohmann/json.hpp>

namespace efimsim {
namespace {

// SAX handler keeping the top-level string and integer fields it needs.
// Every callback returns true to go on; parse_error returns false, which
// ends the parse where the head was cut.
class HeadFields : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit HeadFields(SkippedLineHead& out) : out_(out) {}

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t value) override { return Integer(value); }
  bool number_unsigned(number_unsigned_t value) override {
    return value <= static_cast<number_unsigned_t>(INT64_MAX) ? Integer(static_cast<int64_t>(value))
                                                               : Value();
  }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t& value) override {
    if (depth_ == 1 && key_ == "type") out_.type = value;
    if (depth_ == 1 && key_ == "session_id") out_.session_id = value;
    return Value();
  }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(); }
  bool key(string_t& value) override {
    if (depth_ == 1) key_ = value;
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool Value() {
    if (depth_ == 1) key_.clear();
    return true;
  }
  bool Integer(int64_t value) {
    if (depth_ == 1 && (key_ == "time_ns" || key_ == "arrival_ns")) out_.time_ns = value;
    return Value();
  }
  bool Open() {
    if (depth_ == 1) key_.clear();
    ++depth_;
    return true;
  }
  bool Close() {
    --depth_;
    return true;
  }

  SkippedLineHead& out_;
  int depth_ = 0;
  std::string key_;
};

}  // namespace

SkippedLineHead ReadSkippedLineHead(std::string_view head) {
  SkippedLineHead out;
  HeadFields handler(out);
  // The parse ends early (the head is cut), so its result says nothing.
  (void)nlohmann::json::sax_parse(head.begin(), head.end(), &handler,
                                  nlohmann::json::input_format_t::json, /*strict=*/false);
  return out;
}

}  // namespace efimsim
