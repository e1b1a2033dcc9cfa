#include "topoplan/support/error.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/support/ascii.hpp"

namespace topoplan {

std::string SourceLocation::str() const {
  if (file.empty()) return {};
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

void write_diagnostic(std::ostream& out, std::string_view severity, const Diagnostic& diagnostic) {
  fmt::print(out, "topoplan: {}: {}\n", severity, diagnostic.str());
}

void write_diagnostics(std::ostream& out, std::string_view severity, const std::vector<Diagnostic>& diagnostics) {
  for (const Diagnostic& d : diagnostics) write_diagnostic(out, severity, d);
}

std::string Diagnostic::str() const {
  std::string w = where.str();
  std::string text = w.empty() ? message : fmt::format("{}: {}", w, message);
  // One diagnostic, one line: names quoted in it (a job name, a file name)
  // may hold line breaks or other control characters.
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out;
}

InputError::InputError(std::vector<Diagnostic> diagnostics) : diagnostics_(std::move(diagnostics)) {
  if (diagnostics_.empty()) diagnostics_.push_back({{}, "invalid input"});
  summary_ = diagnostics_.front().str();
}

InputError::InputError(SourceLocation where, std::string message)
    : InputError(std::vector<Diagnostic>{{std::move(where), std::move(message)}}) {}

void DiagnosticSink::error(SourceLocation where, std::string message) {
  Diagnostic d{std::move(where), std::move(message)};
  if (!seen_.insert(d.str()).second) return;
  diagnostics_.push_back(std::move(d));
  if (limit_ > 0 && diagnostics_.size() >= limit_) throw_if_any();
}

void DiagnosticSink::throw_if_any() {
  seen_.clear();
  if (!diagnostics_.empty()) throw InputError(std::move(diagnostics_));
}

namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and
// transpositions of neighbours each cost 1 (a swapped pair is a common typo).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  auto same = [](char x, char y) { return ascii_lower(x) == ascii_lower(y); };
  const std::size_t w = b.size() + 1;
  std::vector<std::size_t> d((a.size() + 1) * w);
  for (std::size_t i = 0; i <= a.size(); ++i) d[i * w] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
      std::size_t v = std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1, d[(i - 1) * w + j - 1] + cost});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        v = std::min(v, d[(i - 2) * w + j - 2] + 1);
      d[i * w + j] = v;
    }
  return d[a.size() * w + b.size()];
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.size() > 256) return {};
  // A typo changes at most a third of a word (and at least one character).
  std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  const std::string* best = nullptr;
  std::size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  return best ? fmt::format("did you mean '{}'?", *best) : std::string();
}

}  // namespace topoplan
