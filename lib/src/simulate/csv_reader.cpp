#include "csv_reader.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "topoplan/simulate/trace.hpp"

namespace topoplan::csv {

Reader::Reader(std::string_view text, std::string file, char separator, bool comments)
    : text_(text), file_(std::move(file)), separator_(separator), comments_(comments) {
  // A UTF-8 byte order mark is not part of the first field.
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
}

bool Reader::next(std::vector<Field>& fields) {
  while (pos_ < text_.size()) {
    fields.clear();
    line_ = next_line_++;
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view line = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > TraceLimits::max_line)
      throw InputError(where(), fmt::format("line longer than {} bytes", TraceLimits::max_line));
    if (line.find('\0') != std::string_view::npos) throw InputError(where(), "NUL byte in a text file");
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (comments_ && line.front() == '#') continue;
    std::size_t i = 0;
    while (true) {
      Field f;
      f.column = static_cast<int>(i) + 1;
      if (i < line.size() && line[i] == '"') {
        ++i;
        bool closed = false;
        while (i < line.size()) {
          if (line[i] == '"') {
            if (i + 1 < line.size() && line[i + 1] == '"') {
              f.text += '"';
              i += 2;
              continue;
            }
            closed = true;
            ++i;
            break;
          }
          f.text += line[i++];
        }
        if (!closed) throw InputError(where(f.column), "unterminated quoted field");
        if (i < line.size() && line[i] != separator_)
          throw InputError(where(static_cast<int>(i) + 1), "text after a quoted field");
      } else {
        std::size_t stop = line.find(separator_, i);
        if (stop == std::string_view::npos) stop = line.size();
        f.text = std::string(line.substr(i, stop - i));
        i = stop;
      }
      fields.push_back(std::move(f));
      if (i >= line.size()) break;
      ++i;  // the separator
      if (i == line.size()) {
        fields.push_back({"", static_cast<int>(i) + 1});
        break;
      }
    }
    return true;
  }
  return false;
}

namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<double> number(const Field& f, const Reader& r, DiagnosticSink& sink, std::string_view what,
                             double low, double high) {
  std::string_view s = trimmed(f.text);
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) {
    sink.error(r.where(f.column), fmt::format("{} must be a number, not '{}'", what, f.text));
    return std::nullopt;
  }
  if (v < low || v > high) {
    sink.error(r.where(f.column), fmt::format("{} must be between {} and {}, not {}", what, low, high, f.text));
    return std::nullopt;
  }
  return v;
}

std::optional<std::int64_t> integer(const Field& f, const Reader& r, DiagnosticSink& sink, std::string_view what,
                                    std::int64_t low, std::int64_t high) {
  std::string_view s = trimmed(f.text);
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    sink.error(r.where(f.column), fmt::format("{} must be a whole number, not '{}'", what, f.text));
    return std::nullopt;
  }
  if (v < low || v > high) {
    sink.error(r.where(f.column), fmt::format("{} must be between {} and {}, not {}", what, low, high, f.text));
    return std::nullopt;
  }
  return v;
}

std::string_view first_line(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::size_t end = text.find('\n');
  std::string_view line = text.substr(0, end);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace topoplan::csv
