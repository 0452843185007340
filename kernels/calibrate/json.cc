#include "json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace efimsim::kernels::json {
namespace {

const char* type_name(Value::Type t) {
  switch (t) {
    case Value::Type::kNull: return "null";
    case Value::Type::kBool: return "bool";
    case Value::Type::kNumber: return "number";
    case Value::Type::kString: return "string";
    case Value::Type::kArray: return "array";
    case Value::Type::kObject: return "object";
  }
  return "?";
}

[[noreturn]] void type_error(Value::Type want, Value::Type got) {
  throw Error(std::string("JSON: expected ") + type_name(want) + ", found " + type_name(got));
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Value document() {
    skip_ws();
    Value v = value(0);
    skip_ws();
    if (pos_ != text_.size()) fail("trailing characters after the document");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    int line = 1, col = 1;
    for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw Error("JSON parse error at line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + what);
  }

  void skip_ws() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  void literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) fail("invalid literal");
    pos_ += word.size();
  }

  Value value(int depth) {
    if (depth > 200) fail("nesting too deep");
    switch (peek()) {
      case '{': return object(depth);
      case '[': return array(depth);
      case '"': return Value(string());
      case 't': literal("true"); return Value(true);
      case 'f': literal("false"); return Value(false);
      case 'n': literal("null"); return Value();
      default: return Value(number());
    }
  }

  Value object(int depth) {
    expect('{');
    Value::Object obj;
    std::set<std::string, std::less<>> seen;
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return Value(std::move(obj));
    }
    for (;;) {
      skip_ws();
      if (peek() != '"') fail("expected a string key");
      std::string key = string();
      if (!seen.insert(key).second) fail("duplicate key \"" + key + "\"");
      skip_ws();
      expect(':');
      skip_ws();
      obj.emplace_back(std::move(key), value(depth + 1));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}');
      return Value(std::move(obj));
    }
  }

  Value array(int depth) {
    expect('[');
    Value::Array arr;
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return Value(std::move(arr));
    }
    for (;;) {
      skip_ws();
      arr.push_back(value(depth + 1));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']');
      return Value(std::move(arr));
    }
  }

  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else fail("bad hex digit in \\u escape");
    }
    return v;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated escape");
      const char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xd800 && cp < 0xdc00) {
            if (text_.substr(pos_, 2) != "\\u") fail("lone high surrogate");
            pos_ += 2;
            const unsigned lo = hex4();
            if (lo < 0xdc00 || lo >= 0xe000) fail("bad low surrogate");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          } else if (cp >= 0xdc00 && cp < 0xe000) {
            fail("lone low surrogate");
          }
          append_utf8(out, cp);
          break;
        }
        default: fail("bad escape");
      }
    }
  }

  double number() {
    const std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++pos_;
    } else {
      fail("unexpected character");
    }
    if (peek() == '.') {
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("digit expected after '.'");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("digit expected in exponent");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    const std::string token(text_.substr(start, pos_ - start));
    const double d = std::strtod(token.c_str(), nullptr);
    if (!std::isfinite(d)) fail("number out of range");
    return d;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

void write_string(std::string& out, const std::string& s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

bool is_scalar(const Value& v) { return !v.is_array() && !v.is_object(); }

// An object whose values are all scalars (a table point) prints on one line.
bool is_flat(const Value& v) {
  if (is_scalar(v)) return true;
  if (!v.is_object()) return false;
  for (const auto& [k, x] : v.as_object()) {
    if (!is_scalar(x)) return false;
  }
  return true;
}

void write_value(std::string& out, const Value& v, int indent, bool inline_mode) {
  const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
  const std::string pad_in(static_cast<std::size_t>(indent + 1) * 2, ' ');
  switch (v.type()) {
    case Value::Type::kNull: out += "null"; return;
    case Value::Type::kBool: out += v.as_bool() ? "true" : "false"; return;
    case Value::Type::kNumber: out += format_number(v.as_number()); return;
    case Value::Type::kString: write_string(out, v.as_string()); return;
    case Value::Type::kArray: {
      const auto& a = v.as_array();
      if (a.empty()) {
        out += "[]";
        return;
      }
      bool all_scalar = true;
      bool all_flat = true;
      for (const auto& x : a) {
        all_scalar = all_scalar && is_scalar(x);
        all_flat = all_flat && is_flat(x);
      }
      if (inline_mode || all_scalar) {
        out += '[';
        for (std::size_t i = 0; i < a.size(); ++i) {
          if (i) out += ", ";
          write_value(out, a[i], indent, true);
        }
        out += ']';
        return;
      }
      out += "[\n";
      for (std::size_t i = 0; i < a.size(); ++i) {
        out += pad_in;
        write_value(out, a[i], indent + 1, all_flat);
        out += i + 1 < a.size() ? ",\n" : "\n";
      }
      out += pad + "]";
      return;
    }
    case Value::Type::kObject: {
      const auto& o = v.as_object();
      if (o.empty()) {
        out += "{}";
        return;
      }
      if (inline_mode) {
        out += "{ ";
        for (std::size_t i = 0; i < o.size(); ++i) {
          if (i) out += ", ";
          write_string(out, o[i].first);
          out += ": ";
          write_value(out, o[i].second, indent, true);
        }
        out += " }";
        return;
      }
      out += "{\n";
      for (std::size_t i = 0; i < o.size(); ++i) {
        out += pad_in;
        write_string(out, o[i].first);
        out += ": ";
        write_value(out, o[i].second, indent + 1, false);
        out += i + 1 < o.size() ? ",\n" : "\n";
      }
      out += pad + "}";
      return;
    }
  }
}

}  // namespace

Value::Value(Object o) : type_(Type::kObject) {
  for (auto& [k, v] : o) set(std::move(k), std::move(v));
}

bool Value::as_bool() const {
  if (type_ != Type::kBool) type_error(Type::kBool, type_);
  return bool_;
}

double Value::as_number() const {
  if (type_ != Type::kNumber) type_error(Type::kNumber, type_);
  return number_;
}

std::int64_t Value::as_int() const {
  const double d = as_number();
  if (d != std::floor(d) || std::fabs(d) > 9007199254740992.0) {
    throw Error("JSON: expected an integer, found " + format_number(d));
  }
  return static_cast<std::int64_t>(d);
}

const std::string& Value::as_string() const {
  if (type_ != Type::kString) type_error(Type::kString, type_);
  return string_;
}

const Value::Array& Value::as_array() const {
  if (type_ != Type::kArray) type_error(Type::kArray, type_);
  return array_;
}

const Value::Object& Value::as_object() const {
  if (type_ != Type::kObject) type_error(Type::kObject, type_);
  return object_;
}

bool Value::contains(std::string_view key) const {
  for (const auto& [k, v] : as_object()) {
    if (k == key) return true;
  }
  return false;
}

const Value& Value::at(std::string_view key) const {
  for (const auto& [k, v] : as_object()) {
    if (k == key) return v;
  }
  throw Error("JSON: missing key \"" + std::string(key) + "\"");
}

Value& Value::set(std::string key, Value v) {
  if (type_ != Type::kObject) type_error(Type::kObject, type_);
  for (auto& [k, x] : object_) {
    if (k == key) {
      x = std::move(v);
      return x;
    }
  }
  object_.emplace_back(std::move(key), std::move(v));
  return object_.back().second;
}

Value& Value::push_back(Value v) {
  if (type_ != Type::kArray) type_error(Type::kArray, type_);
  array_.push_back(std::move(v));
  return array_.back();
}

Value parse(std::string_view text) { return Parser(text).document(); }

std::string write(const Value& v) {
  std::string out;
  write_value(out, v, 0, false);
  out += '\n';
  return out;
}

std::string format_number(double d) {
  if (!std::isfinite(d)) throw Error("JSON: cannot write a non-finite number");
  if (d == std::floor(d) && std::fabs(d) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", d);
    return std::string(buf) == "-0" ? "0" : buf;
  }
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  return buf;
}

}  // namespace efimsim::kernels::json
