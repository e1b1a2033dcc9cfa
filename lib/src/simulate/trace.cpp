// read_trace: which format a trace is, told by its first line, and the
// FILE:key=value settings some formats take.
#include "topoplan/simulate/trace.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "csv_reader.hpp"
#include "trace_readers.hpp"

namespace topoplan {

std::pair<std::string, TraceSettings> parse_trace_argument(std::string_view argument) {
  TraceSettings settings;
  settings.origin = std::string(argument);
  std::size_t colon = argument.rfind(':');
  if (colon == std::string_view::npos) return {std::string(argument), settings};
  std::string_view tail = argument.substr(colon + 1);
  if (tail.find('=') == std::string_view::npos || tail.find('/') != std::string_view::npos)
    return {std::string(argument), settings};
  std::size_t start = 0;
  while (start <= tail.size()) {
    std::size_t comma = tail.find(',', start);
    std::string_view item = tail.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw InputError({}, fmt::format("'{}': settings are key=value, separated by commas; '{}' is not one",
                                       argument, item));
    settings.values.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return {std::string(argument.substr(0, colon)), settings};
}

TraceSettingsReader::TraceSettingsReader(const TraceSettings& settings, std::string_view format,
                                         std::vector<std::string> allowed)
    : settings_(settings), format_(format) {
  DiagnosticSink sink;
  for (const auto& [key, value] : settings.values) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    if (allowed.empty()) {
      sink.error({}, fmt::format("'{}': {} takes no settings", settings.origin, format_));
      break;
    }
    std::string hint = did_you_mean(key, allowed);
    sink.error({}, fmt::format("'{}': {} takes no setting '{}'; it takes {}{}{}", settings.origin, format_, key,
                               fmt::join(allowed, ", "), hint.empty() ? "" : "; ", hint));
  }
  sink.throw_if_any();
}

std::optional<std::string> TraceSettingsReader::get(std::string_view key) const {
  std::optional<std::string> out;
  for (const auto& [k, v] : settings_.values)
    if (k == key) out = v;
  return out;
}

std::optional<double> TraceSettingsReader::number(std::string_view key, double low, double high) const {
  std::optional<std::string> value = get(key);
  if (!value) return std::nullopt;
  const std::string_view text = *value;
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < low ||
      v > high)
    throw InputError({}, fmt::format("'{}': {}={} must be a number between {} and {}", settings_.origin, key, text,
                                     low, high));
  return v;
}

namespace {

// The first line that is not a '#' comment.
std::string_view header_line(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  while (!text.empty() && text.front() == '#') {
    std::size_t end = text.find('\n');
    if (end == std::string_view::npos) return {};
    text.remove_prefix(end + 1);
  }
  return csv::first_line(text);
}

bool has_field(std::string_view header, std::string_view name) {
  std::size_t start = 0;
  while (start <= header.size()) {
    std::size_t comma = header.find(',', start);
    std::string_view item = header.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item == name) return true;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return false;
}

}  // namespace

std::vector<std::string> trace_format_names() { return {"csv", "gavel", "openb", "acme"}; }

Trace read_trace(std::string_view text, const std::string& file, const TraceOptions& options) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    throw InputError({file, 1, 1},
                     "the file is empty; a trace is a CSV with the header id,submit_s,gpus,duration_s "
                     "(topoplan-formats(5), TRACES), a Gavel trace, an Alibaba openb pod list or the AcmeTrace "
                     "cluster summary");
  std::string_view header = header_line(text);
  Trace trace;
  if (header.find('\t') != std::string_view::npos)
    trace = read_gavel_trace(text, file, options);
  else if (has_field(header, "num_gpu") && has_field(header, "creation_time"))
    trace = read_openb_trace(text, file, options);
  else if (has_field(header, "job_num") && has_field(header, "avg_run_time_gpu"))
    trace = read_acme_trace(text, file, options);
  else if (has_field(header, "id") || has_field(header, "submit_s") || has_field(header, "gpus"))
    trace = read_native_trace(text, file, options);
  else
    throw InputError({file, 1, 1},
                     "not a trace topoplan reads: expected a CSV header with id,submit_s,gpus,duration_s "
                     "(topoplan-formats(5), TRACES), a Gavel trace, an Alibaba openb pod list or the AcmeTrace "
                     "cluster summary");
  trace.name = file;
  // Located like every other input error (an empty file's line 1 included).
  if (trace.jobs.empty()) throw InputError({file, 1, 1}, "the trace has no jobs");
  return trace;
}

}  // namespace topoplan
