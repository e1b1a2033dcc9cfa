#include "yaml_support.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "topoplan/support/utf8.hpp"

namespace topoplan::yaml {

SourceLocation where(const std::string& file, const Node& node) {
  if (!node.IsDefined() || node.Mark().line < 0) return {file, 0, 0};
  return {file, node.Mark().line + 1, node.Mark().column + 1};
}

namespace {

InputError syntax_error(const Document::ParseError& e, std::string_view text, const std::string& file,
                        FileKind expected) {
  std::string message = e.message.empty() ? std::string("invalid YAML") : e.message;
  // A tab where indentation belongs is the usual cause of a puzzling error.
  if (e.mark.line >= 0) {
    std::size_t start = 0;
    for (int l = 0; l < e.mark.line && start != std::string_view::npos; ++l) {
      start = text.find('\n', start);
      if (start != std::string_view::npos) ++start;
    }
    if (start != std::string_view::npos) {
      std::string_view line = text.substr(start, text.find('\n', start) - start);
      std::string_view indent = line.substr(0, line.find_first_not_of(" \t"));
      if (indent.find('\t') != std::string_view::npos) message += " (YAML is indented with spaces, not tabs)";
    }
  }
  if (expected != FileKind::unknown)
    if (std::string hint = file_kind_hint(text, expected); !hint.empty()) message += "; " + hint;
  if (e.mark.line < 0) return InputError({file, 0, 0}, fmt::format("invalid YAML: {}", message));
  return InputError({file, e.mark.line + 1, e.mark.column + 1}, fmt::format("invalid YAML: {}", message));
}

// YAML is Unicode. Invalid bytes (a Latin-1 file, binary data) are refused
// where they are, with a hint at what the file is (libyaml's own message is
// terse), so that every name read is UTF-8 and every writer can write it.
void check_utf8(std::string_view text, const std::string& file, FileKind expected) {
  // libyaml reads UTF-16 and UTF-32 with a byte order mark itself.
  if (text.substr(0, 2) == "\xFF\xFE" || text.substr(0, 2) == "\xFE\xFF" || text.substr(0, 4) == std::string_view("\0\0\xFE\xFF", 4))
    return;
  std::size_t bad = first_invalid_utf8(text);
  if (bad == std::string_view::npos) return;
  std::string_view before = text.substr(0, bad);
  int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  std::size_t line_start = before.rfind('\n');
  int column = static_cast<int>(bad - (line_start == std::string_view::npos ? 0 : line_start + 1)) + 1;
  std::string hint = expected == FileKind::unknown ? "" : file_kind_hint(text, expected);
  if (hint.empty()) hint = "is the file Latin-1?";
  throw InputError({file, line, column}, fmt::format("byte 0x{:02x} is not UTF-8; {}",
                                                     static_cast<unsigned>(static_cast<unsigned char>(text[bad])), hint));
}

}  // namespace

Node parse(std::string_view text, const std::string& file, FileKind expected) {
  return first_document(parse_all(text, file, expected));
}

Node first_document(const std::vector<Node>& documents) {
  return documents.empty() ? Document::parse("~").front() : documents.front();
}

std::vector<Node> parse_all(std::string_view text, const std::string& file, FileKind expected) {
  check_utf8(text, file, expected);
  try {
    return Document::parse(text);
  } catch (const Document::ParseError& e) {
    throw syntax_error(e, text, file, expected);
  }
}

std::optional<long long> parse_integer(std::string_view text) {
  long long value = 0;
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_number(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::string copy(text);
  char* end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(value)) return std::nullopt;
  // strtod accepts hex floats and "inf"/"nan"; only plain decimals are numbers here.
  if (copy.find_first_of("xXnNiI") != std::string::npos) return std::nullopt;
  return value;
}

std::optional<std::string> scalar(const Node& node, const std::string& file, DiagnosticSink& sink,
                                  std::string_view what) {
  if (!node.IsScalar()) {
    sink.error(where(file, node), fmt::format("{} must be a single value", what));
    return std::nullopt;
  }
  return node.Scalar();
}

MapReader::MapReader(const Node& node, const std::string& file, DiagnosticSink& sink, std::string_view what)
    : node_(node), file_(file), sink_(sink), what_(what) {
  if (!node.IsMap()) {
    sink_.error(yaml::where(file_, node), fmt::format("{} must be a mapping of keys to values", what_));
    ok_ = false;
  }
}

void MapReader::allow(std::initializer_list<std::string_view> known) {
  allow(std::vector<std::string_view>(known.begin(), known.end()));
}

void MapReader::allow(const std::vector<std::string_view>& known) {
  if (!ok_) return;
  std::vector<std::string_view> seen;
  for (const auto& entry : node_) {
    const Node& key = entry.first;
    if (!key.IsScalar()) {
      sink_.error(yaml::where(file_, key), fmt::format("keys of {} must be plain names", what_));
      continue;
    }
    // YAML requires unique keys; yaml-cpp keeps both and reads the first.
    if (std::find(seen.begin(), seen.end(), key.Scalar()) != seen.end()) {
      sink_.error(yaml::where(file_, key), fmt::format("key '{}' is given twice in {}", key.Scalar(), what_));
      continue;
    }
    seen.push_back(key.Scalar());
    bool found = false;
    for (std::string_view k : known) found = found || key.Scalar() == k;
    if (found) continue;
    std::string hint = did_you_mean(key.Scalar(), std::vector<std::string>(known.begin(), known.end()));
    sink_.error(yaml::where(file_, key), fmt::format("unknown key '{}' in {}{}{}", key.Scalar(), what_,
                                                     hint.empty() ? "" : "; ", hint));
  }
}

bool MapReader::has(std::string_view key) const { return ok_ && node_[key].IsDefined(); }

Node MapReader::get(std::string_view key) const {
  if (!ok_) return Node();
  return node_[key];
}

SourceLocation MapReader::where() const { return yaml::where(file_, node_); }

SourceLocation MapReader::where(std::string_view key) const {
  Node value = get(key);
  return value.IsDefined() ? yaml::where(file_, value) : where();
}

void MapReader::missing(std::string_view key) {
  sink_.error(where(), fmt::format("{} needs '{}'", what_, key));
}

std::optional<std::string> MapReader::string(std::string_view key, bool required) {
  Node value = get(key);
  if (!value.IsDefined()) {
    if (required && ok_) missing(key);
    return std::nullopt;
  }
  return scalar(value, file_, sink_, fmt::format("'{}'", key));
}

std::optional<long long> MapReader::integer(std::string_view key, long long min, long long max, bool required) {
  auto text = string(key, required);
  if (!text) return std::nullopt;
  auto value = parse_integer(*text);
  if (!value) {
    sink_.error(where(key), fmt::format("'{}' must be a whole number, not '{}'", key, *text));
    return std::nullopt;
  }
  if (*value < min || *value > max) {
    sink_.error(where(key), fmt::format("'{}' is {}; it must be between {} and {}", key, *value, min, max));
    return std::nullopt;
  }
  return value;
}

std::optional<double> MapReader::number(std::string_view key, double min, double max, bool required) {
  auto text = string(key, required);
  if (!text) return std::nullopt;
  auto value = parse_number(*text);
  if (!value) {
    sink_.error(where(key), fmt::format("'{}' must be a number, not '{}'", key, *text));
    return std::nullopt;
  }
  if (*value < min || *value > max) {
    sink_.error(where(key), fmt::format("'{}' is {}; it must be between {} and {}", key, *text, min, max));
    return std::nullopt;
  }
  return value;
}

}  // namespace topoplan::yaml
