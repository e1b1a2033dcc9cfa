// The one error model of topoplan.
//
// Invalid input (a malformed file, an unknown name, an impossible number) is
// reported by throwing InputError, which carries one or more diagnostics, each
// with the file, line and column it refers to. The command-line driver catches
// it once, prints every diagnostic as `topoplan: error: FILE:LINE:COL: message`
// and exits with status 2. Expected outcomes ("this job does not fit") are
// values, never exceptions.
#pragma once

#include <exception>
#include <iosfwd>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace topoplan {

/// A place in an input: a display name (file path, preset name, or option) and a
/// 1-based line and column; line 0 means "the whole input".
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  /// `file:line:col`, `file` alone when line is 0, or "" when file is empty.
  std::string str() const;
};

/// One problem found in an input.
struct Diagnostic {
  SourceLocation where;
  std::string message;  // lower-case, no final period

  /// `file:line:col: message`, or just `message` without a file.
  std::string str() const;
};

/// Thrown for invalid input; holds every problem found before giving up.
class InputError : public std::exception {
 public:
  explicit InputError(std::vector<Diagnostic> diagnostics);
  InputError(SourceLocation where, std::string message);

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  const char* what() const noexcept override { return summary_.c_str(); }

 private:
  std::vector<Diagnostic> diagnostics_;  // never empty
  std::string summary_;                  // the first diagnostic, for what()
};

/// Collects diagnostics while a whole input is checked, so that every problem is
/// reported at once; `throw_if_any` ends the phase.
class DiagnosticSink {
 public:
  DiagnosticSink() = default;
  /// A sink that throws once it holds `limit` diagnostics: a hostile file
  /// could hold millions of problems, and the first few say enough.
  explicit DiagnosticSink(std::size_t limit) : limit_(limit) {}

  /// Adds a diagnostic; one identical to an earlier one (the same rule
  /// failing in every copy of a block) is dropped.
  void error(SourceLocation where, std::string message);
  bool empty() const { return diagnostics_.empty(); }
  std::size_t size() const { return diagnostics_.size(); }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  /// Throws InputError with everything collected so far, if anything was.
  void throw_if_any();

 private:
  std::vector<Diagnostic> diagnostics_;
  std::unordered_set<std::string> seen_;  // str() of every diagnostic held
  std::size_t limit_ = 0;  // 0: no limit
};

/// How every diagnostic reaches a user, one line each:
/// `topoplan: SEVERITY: FILE:LINE:COL: message` (severity "error" or "warning").
void write_diagnostics(std::ostream& out, std::string_view severity, const std::vector<Diagnostic>& diagnostics);
void write_diagnostic(std::ostream& out, std::string_view severity, const Diagnostic& diagnostic);

/// "did you mean 'x'?" text for the candidate closest to `word`, or "" when no
/// candidate is close enough to be a plausible typo.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace topoplan
