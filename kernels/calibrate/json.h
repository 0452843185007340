#pragma once
// A small JSON value with a strict reader and a deterministic writer, enough
// for the model spec files (models/specs/*.json) and the kernel profile
// (models/PROFILE.md). The calibration machine has no JSON library, so this
// lives here and depends on the standard library only.
//
// Objects keep their keys in insertion order (the writer's output is stable
// and diffable); duplicate keys are a parse error. Numbers are doubles; the
// writer prints integral values without a fraction and other values with the
// fewest digits that read back to the same double.

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace efimsim::kernels::json {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Value {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  using Array = std::vector<Value>;
  using Object = std::vector<std::pair<std::string, Value>>;

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : type_(Type::kBool), bool_(b) {}
  Value(double d) : type_(Type::kNumber), number_(d) {}
  Value(int i) : type_(Type::kNumber), number_(i) {}
  Value(std::int64_t i) : type_(Type::kNumber), number_(static_cast<double>(i)) {}
  Value(const char* s) : type_(Type::kString), string_(s) {}
  Value(std::string s) : type_(Type::kString), string_(std::move(s)) {}
  Value(Array a) : type_(Type::kArray), array_(std::move(a)) {}
  Value(Object o);

  static Value object() { return Value(Object{}); }
  static Value array() { return Value(Array{}); }

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_object() const { return type_ == Type::kObject; }
  bool is_array() const { return type_ == Type::kArray; }

  // Typed accessors throw Error naming the expected type.
  bool as_bool() const;
  double as_number() const;
  std::int64_t as_int() const;  // throws unless the number is integral
  const std::string& as_string() const;
  const Array& as_array() const;
  const Object& as_object() const;

  // Object access. `at` throws Error("missing key ...") when absent.
  bool contains(std::string_view key) const;
  const Value& at(std::string_view key) const;
  // Appends (or replaces) a key, keeping first-insertion order.
  Value& set(std::string key, Value v);
  // Array append.
  Value& push_back(Value v);

 private:
  Type type_ = Type::kNull;
  bool bool_ = false;
  double number_ = 0.0;
  std::string string_;
  Array array_;
  Object object_;
};

// Parses one JSON document (RFC 8259; no comments, no trailing commas).
// Errors carry the line and column.
Value parse(std::string_view text);

// Pretty-prints with two-space indentation. Arrays whose elements are all
// scalars or small flat objects are kept on one line for readability.
std::string write(const Value& v);

// Shortest decimal representation of a finite double that reads back exactly.
std::string format_number(double d);

}  // namespace efimsim::kernels::json
