// Helpers for reading YAML (yaml_tree.hpp) while reporting problems at the
// line and column they occur. Private to lib/: no public header includes
// them.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yaml_tree.hpp"

#include "topoplan/io/file_kind.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan::yaml {

/// Where `node` starts in `file` (1-based); line 0 when it has no position.
SourceLocation where(const std::string& file, const Node& node);

/// Parses a whole document; syntax errors become InputError with position
/// and, when the text seems to be another kind of file than `expected`, a
/// hint saying what it is (file_kind_hint). Bytes that are not UTF-8 and
/// hostile inputs (very deep nesting, alias bombs) are refused. An empty
/// document is a null node.
Node parse(std::string_view text, const std::string& file, FileKind expected = FileKind::unknown);
/// Parses a stream of `---`-separated documents.
std::vector<Node> parse_all(std::string_view text, const std::string& file, FileKind expected = FileKind::unknown);
/// The first document of a parsed stream, as parse() gives it: a null node
/// when the stream has none.
Node first_document(const std::vector<Node>& documents);

/// Reads one YAML mapping with diagnostics: unknown keys are reported (with a
/// suggestion for a close known key), and typed getters report wrong types.
class MapReader {
 public:
  MapReader(const Node& node, const std::string& file, DiagnosticSink& sink, std::string_view what);
  /// Reports every key not in `known`; call once after construction.
  void allow(std::initializer_list<std::string_view> known);
  void allow(const std::vector<std::string_view>& known);

  bool ok() const { return ok_; }
  bool has(std::string_view key) const;
  Node get(std::string_view key) const;
  SourceLocation where() const;
  SourceLocation where(std::string_view key) const;

  std::optional<std::string> string(std::string_view key, bool required = false);
  std::optional<long long> integer(std::string_view key, long long min, long long max, bool required = false);
  std::optional<double> number(std::string_view key, double min, double max, bool required = false);

 private:
  void missing(std::string_view key);

  Node node_;
  const std::string& file_;
  DiagnosticSink& sink_;
  std::string what_;
  bool ok_ = true;
};

/// A scalar as text, or nullopt after reporting that `node` is not a scalar.
std::optional<std::string> scalar(const Node& node, const std::string& file, DiagnosticSink& sink,
                                  std::string_view what);
/// Strict decimal integer parsing (no trailing junk, no floats).
std::optional<long long> parse_integer(std::string_view text);
/// Strict finite floating-point parsing.
std::optional<double> parse_number(std::string_view text);

}  // namespace topoplan::yaml
