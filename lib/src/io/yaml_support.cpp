#include "yaml_support.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

#include "topoplan/support/utf8.hpp"

namespace topoplan::yaml {

SourceLocation where(const std::string& file, const YAML::Node& node) {
  if (!node.IsDefined() || node.Mark().line < 0) return {file, 0, 0};
  return {file, node.Mark().line + 1, node.Mark().column + 1};
}

namespace {

// yaml-cpp recurses once per nesting level; refuse absurd flow nesting early
// so hostile inputs cannot exhaust the stack (its own guard allows 2000 levels,
// too deep for sanitizer builds).
constexpr int kMaxFlowDepth = 128;  // also the depth of any tree, below

void check_nesting(std::string_view text, const std::string& file) {
  int depth = 0;
  int line = 1;
  int column = 0;
  char quote = 0;
  bool comment = false;
  for (char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      comment = false;
      continue;
    }
    if (comment) continue;
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '#') comment = true;
    else if (c == '"' || c == '\'') quote = c;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxFlowDepth)
        throw InputError({file, line, column}, fmt::format("nesting deeper than {} levels", kMaxFlowDepth));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

InputError syntax_error(const YAML::Exception& e, std::string_view text, const std::string& file, FileKind expected) {
  std::string message = e.msg.empty() ? std::string("invalid YAML") : e.msg;
  if (!message.empty()) message[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(message[0])));
  // yaml-cpp's own depth guard says only "bad file".
  if (dynamic_cast<const YAML::DeepRecursion*>(&e))
    message = fmt::format("nesting deeper than {} levels", kMaxFlowDepth);
  // A tab where indentation belongs is the usual cause of a puzzling error.
  if (!e.mark.is_null() && e.mark.line >= 0) {
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
  if (e.mark.is_null()) return InputError({file, 1, 1}, fmt::format("invalid YAML: {}", message));
  return InputError({file, e.mark.line + 1, e.mark.column + 1}, fmt::format("invalid YAML: {}", message));
}

// Aliases let a small text stand for a huge tree (`&a [x, x]`, `&b [*a,
// *a]`, ... a "billion laughs") or for a cycle (`&a [*a]`: yaml-cpp registers
// an anchor before its contents), and every reader walks the tree. Walk it
// once here, without recursion, as the readers would see it: at most
// kMaxDepth levels deep and, aliases expanded, a bounded number of nodes.
// Without aliases a node takes at least one character, so the bound only
// ever stops alias expansion.
constexpr int kMaxDepth = 128;

void check_tree(const YAML::Node& root, std::size_t text_size, const std::string& file) {
  std::size_t budget = 1'000'000 + 2 * text_size;
  std::vector<std::pair<YAML::Node, int>> stack;
  stack.emplace_back(root, 1);
  while (!stack.empty()) {
    auto [node, depth] = std::move(stack.back());
    stack.pop_back();
    if (budget-- == 0)
      throw InputError(where(file, node), "aliases expand the document beyond what topoplan reads (an alias bomb?)");
    if (depth > kMaxDepth)
      throw InputError(where(file, node), fmt::format("nesting deeper than {} levels (or an alias inside its own "
                                                      "anchor)",
                                                      kMaxDepth));
    if (node.IsSequence()) {
      for (const YAML::Node& child : node) stack.emplace_back(child, depth + 1);
    } else if (node.IsMap()) {
      for (const auto& entry : node) {
        stack.emplace_back(entry.first, depth + 1);
        stack.emplace_back(entry.second, depth + 1);
      }
    }
  }
}

}  // namespace

// YAML is Unicode; yaml-cpp does not check. Invalid bytes (a Latin-1 file,
// binary data) are refused where they are, so that every name read is UTF-8
// and every writer can write it.
void check_utf8(std::string_view text, const std::string& file, FileKind expected) {
  // yaml-cpp reads UTF-16 and UTF-32 with a byte order mark itself.
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

YAML::Node parse(std::string_view text, const std::string& file, FileKind expected) {
  check_utf8(text, file, expected);
  check_nesting(text, file);
  YAML::Node root = [&] {
    try {
      return YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      throw syntax_error(e, text, file, expected);
    }
  }();
  check_tree(root, text.size(), file);
  return root;
}

std::vector<YAML::Node> parse_all(std::string_view text, const std::string& file, FileKind expected) {
  check_utf8(text, file, expected);
  check_nesting(text, file);
  std::vector<YAML::Node> documents = [&] {
    try {
      return YAML::LoadAll(std::string(text));
    } catch (const YAML::Exception& e) {
      throw syntax_error(e, text, file, expected);
    }
  }();
  for (const YAML::Node& d : documents) check_tree(d, text.size(), file);
  return documents;
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

std::optional<std::string> scalar(const YAML::Node& node, const std::string& file, DiagnosticSink& sink,
                                  std::string_view what) {
  if (!node.IsScalar()) {
    sink.error(where(file, node), fmt::format("{} must be a single value", what));
    return std::nullopt;
  }
  return node.Scalar();
}

MapReader::MapReader(const YAML::Node& node, const std::string& file, DiagnosticSink& sink, std::string_view what)
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
  std::vector<std::string> names(known.begin(), known.end());
  std::vector<std::string_view> seen;
  for (const auto& entry : node_) {
    const YAML::Node& key = entry.first;
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
    std::string hint = did_you_mean(key.Scalar(), names);
    sink_.error(yaml::where(file_, key), fmt::format("unknown key '{}' in {}{}{}", key.Scalar(), what_,
                                                     hint.empty() ? "" : "; ", hint));
  }
}

bool MapReader::has(std::string_view key) const { return ok_ && node_[std::string(key)].IsDefined(); }

YAML::Node MapReader::get(std::string_view key) const {
  // A missing key gives yaml-cpp's "zombie" node, which throws on Mark(),
  // reset() and more; callers get a plain undefined node instead.
  if (!ok_) return YAML::Node(YAML::NodeType::Undefined);
  YAML::Node value = static_cast<const YAML::Node&>(node_)[std::string(key)];
  if (!value.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
  return value;
}

SourceLocation MapReader::where() const { return yaml::where(file_, node_); }

SourceLocation MapReader::where(std::string_view key) const {
  YAML::Node value = get(key);
  return value.IsDefined() ? yaml::where(file_, value) : where();
}

void MapReader::missing(std::string_view key) {
  sink_.error(where(), fmt::format("{} needs '{}'", what_, key));
}

std::optional<std::string> MapReader::string(std::string_view key, bool required) {
  YAML::Node value = get(key);
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
