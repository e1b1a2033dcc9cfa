// A small CSV (and TSV) reader for traces: records of fields, each with its
// line and column for diagnostics, quoted fields with "" escapes, CRLF line
// ends, and bounded line lengths. Numbers are parsed without locales.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/support/error.hpp"

namespace topoplan::csv {

struct Field {
  std::string text;
  int column = 0;  // 1-based, of the field's first character
};

class Reader {
 public:
  /// `comments`: lines whose first character is '#' are skipped.
  Reader(std::string_view text, std::string file, char separator = ',', bool comments = false);

  /// The next non-empty record, false at the end. Throws InputError for a
  /// line longer than TraceLimits::max_line, an unterminated quote or a NUL
  /// byte.
  bool next(std::vector<Field>& fields);
  /// Line of the record last returned.
  int line() const { return line_; }
  /// Where the record last returned is; a problem of the whole line points
  /// at its start, so that every error has FILE:LINE:COL.
  SourceLocation where(int column = 1) const { return {file_, line_, column}; }
  const std::string& file() const { return file_; }

 private:
  std::string_view text_;
  std::string file_;
  char separator_;
  bool comments_;
  std::size_t pos_ = 0;
  int line_ = 0;
  int next_line_ = 1;
};

/// A finite number in [low, high]; else an error in `sink` naming `what`.
std::optional<double> number(const Field& f, const Reader& r, DiagnosticSink& sink, std::string_view what,
                             double low, double high);
/// A whole number in [low, high].
std::optional<std::int64_t> integer(const Field& f, const Reader& r, DiagnosticSink& sink, std::string_view what,
                                    std::int64_t low, std::int64_t high);

/// The first line of `text` (without its line end).
std::string_view first_line(std::string_view text);

}  // namespace topoplan::csv
