// A small streaming JSON writer with deterministic output: keys in the order
// written, numbers with fixed precision, two-space indentation.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>
#include <vector>

namespace topoplan {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}
  ~JsonWriter();  // ends the document with a newline

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// The key of the next value; only inside objects.
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(bool flag);
  JsonWriter& value(long long number);
  JsonWriter& value(unsigned long long number);
  JsonWriter& value(int number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(unsigned number) { return value(static_cast<unsigned long long>(number)); }
  JsonWriter& value(long number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(unsigned long number) { return value(static_cast<unsigned long long>(number)); }
  /// A number with at most `decimals` digits after the point, trailing zeros
  /// dropped; non-finite numbers become null.
  JsonWriter& value(double number, int decimals = 3);
  JsonWriter& null();

  /// Shorthand for key(name).value(v).
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }
  JsonWriter& field(std::string_view name, double v, int decimals) {
    key(name);
    return value(v, decimals);
  }

  /// Writes `text` as a quoted JSON string with escapes.
  static void write_string(std::ostream& out, std::string_view text);

 private:
  void before_value();
  void newline();

  std::ostream& out_;
  struct Frame {
    bool is_object = false;
    bool empty = true;
  };
  std::vector<Frame> stack_;
  bool after_key_ = false;
  bool started_ = false;
};

/// Formats a number like JsonWriter does, for text output.
std::string format_number(double number, int decimals = 3);

}  // namespace topoplan
