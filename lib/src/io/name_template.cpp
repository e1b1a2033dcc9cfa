#include "topoplan/io/name_template.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "topoplan/support/error.hpp"

namespace topoplan {

void TemplateScope::set(std::string name, long long value) {
  Value v;
  v.is_number = true;
  v.number = value;
  values_.emplace_back(std::move(name), std::move(v));
}

void TemplateScope::set(std::string name, std::string value) {
  Value v;
  v.text = std::move(value);
  values_.emplace_back(std::move(name), std::move(v));
}

std::vector<std::string> TemplateScope::names() const {
  std::vector<std::string> out;
  for (const auto& entry : values_) out.push_back(entry.first);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const TemplateScope::Value* TemplateScope::find(std::string_view name) const {
  for (auto it = values_.rbegin(); it != values_.rend(); ++it)
    if (it->first == name) return &it->second;
  return nullptr;
}

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::optional<long long> parse_integer(std::string_view text) {
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Expands the inside of one `{...}`.
std::optional<std::string> expand_field(std::string_view field, const TemplateScope& scope, std::string& error) {
  std::string_view spec;
  if (std::size_t colon = field.find(':'); colon != std::string_view::npos) {
    spec = field.substr(colon + 1);
    field = field.substr(0, colon);
  }
  std::size_t name_end = 0;
  while (name_end < field.size() && is_name_char(field[name_end])) ++name_end;
  std::string_view name = field.substr(0, name_end);
  std::string_view op = field.substr(name_end);
  if (name.empty()) {
    error = fmt::format("'{{{}}}' names no variable", field);
    return std::nullopt;
  }
  const TemplateScope::Value* value = scope.find(name);
  if (!value) {
    std::string hint = did_you_mean(std::string(name), scope.names());
    error = fmt::format("unknown variable '{}' in template{}{}", name, hint.empty() ? "" : "; ", hint);
    return std::nullopt;
  }
  if (!value->is_number) {
    if (!op.empty() || !spec.empty()) {
      error = fmt::format("'{}' is a name, not a number: no arithmetic or width", name);
      return std::nullopt;
    }
    return value->text;
  }
  long long number = value->number;
  if (!op.empty()) {
    auto operand = parse_integer(op.substr(1));
    bool known = op[0] == '+' || op[0] == '-' || op[0] == '*' || op[0] == '/' || op[0] == '%';
    if (!known || !operand || *operand < 0 || *operand > 1'000'000'000) {
      error = fmt::format("'{{{}}}': after the variable only +N, -N, *N, /N or %N may follow", field);
      return std::nullopt;
    }
    if ((op[0] == '/' || op[0] == '%') && *operand == 0) {
      error = fmt::format("'{{{}}}' divides by zero", field);
      return std::nullopt;
    }
    switch (op[0]) {
      case '+': number += *operand; break;
      case '-': number -= *operand; break;
      case '*': number *= *operand; break;
      case '/': number /= *operand; break;
      default: number %= *operand; break;
    }
  }
  int width = 0;
  if (!spec.empty()) {
    auto w = parse_integer(spec);
    if (!w || *w < 0 || *w > 20) {
      error = fmt::format("'{}' is not a width from 0 to 20 (write {{i:03}} for 007)", spec);
      return std::nullopt;
    }
    width = static_cast<int>(*w);
  }
  if (number < 0) return fmt::format("-{:0{}}", -number, width > 0 ? width - 1 : 0);
  return fmt::format("{:0{}}", number, width);
}

}  // namespace

std::optional<std::string> expand_template(std::string_view pattern, const TemplateScope& scope, std::string& error) {
  std::string out;
  out.reserve(pattern.size() + 8);
  std::size_t i = 0;
  while (i < pattern.size()) {
    char c = pattern[i];
    if (c == '{' && i + 1 < pattern.size() && pattern[i + 1] == '{') {
      out += '{';
      i += 2;
    } else if (c == '}' && i + 1 < pattern.size() && pattern[i + 1] == '}') {
      out += '}';
      i += 2;
    } else if (c == '{') {
      std::size_t close = pattern.find('}', i);
      if (close == std::string_view::npos) {
        error = "unclosed '{' in template";
        return std::nullopt;
      }
      auto field = expand_field(pattern.substr(i + 1, close - i - 1), scope, error);
      if (!field) return std::nullopt;
      out += *field;
      i = close + 1;
    } else if (c == '}') {
      error = "unmatched '}' in template (write '}}' for a literal brace)";
      return std::nullopt;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

}  // namespace topoplan
