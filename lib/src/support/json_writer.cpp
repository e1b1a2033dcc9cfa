#include "topoplan/support/json_writer.hpp"

#include <cmath>

#include <fmt/format.h>

#include "topoplan/support/utf8.hpp"

namespace topoplan {

std::string format_number(double number, int decimals) {
  if (!std::isfinite(number)) return "null";
  std::string s = fmt::format("{:.{}f}", number, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  // (Returning a new string, not assigning "0" to s: GCC 12 warns about that
  // assignment under -O2 with sanitizers, bug 105329.)
  if (s == "-0") return std::string("0");
  return s;
}

JsonWriter::~JsonWriter() {
  if (started_ && stack_.empty()) out_ << '\n';
}

void JsonWriter::newline() {
  out_ << '\n';
  for (std::size_t i = 0; i < stack_.size(); ++i) out_ << "  ";
}

void JsonWriter::before_value() {
  started_ = true;
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;
  Frame& f = stack_.back();
  if (!f.empty) out_ << ',';
  f.empty = false;
  newline();
}

JsonWriter& JsonWriter::key(std::string_view name) {
  Frame& f = stack_.back();
  if (!f.empty) out_ << ',';
  f.empty = false;
  newline();
  write_string(out_, name);
  out_ << ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ << '{';
  stack_.push_back({true, true});
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline();
  out_ << '}';
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ << '[';
  stack_.push_back({false, true});
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline();
  out_ << ']';
  return *this;
}

void JsonWriter::write_string(std::ostream& out, std::string_view raw) {
  // JSON is UTF-8: a byte that is not (from a command-line argument, say)
  // becomes U+FFFD rather than an invalid document.
  std::string repaired;
  std::string_view text = raw;
  if (first_invalid_utf8(raw) != std::string_view::npos) text = repaired = repair_utf8(raw);
  out << '"';
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out << "\\\""; break;
      case '\\': out << "\\\\"; break;
      case '\n': out << "\\n"; break;
      case '\t': out << "\\t"; break;
      case '\r': out << "\\r"; break;
      default:
        if (u < 0x20 || u == 0x7f)
          out << fmt::format("\\u{:04x}", u);
        else
          out << c;
    }
  }
  out << '"';
}

JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  write_string(out_, text);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  before_value();
  out_ << (flag ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::value(long long number) {
  before_value();
  out_ << number;
  return *this;
}

JsonWriter& JsonWriter::value(unsigned long long number) {
  before_value();
  out_ << number;
  return *this;
}

JsonWriter& JsonWriter::value(double number, int decimals) {
  before_value();
  out_ << format_number(number, decimals);
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ << "null";
  return *this;
}

}  // namespace topoplan
