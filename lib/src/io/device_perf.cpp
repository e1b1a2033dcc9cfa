#include "topoplan/io/device_perf.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "topoplan/io/hostlist.hpp"

namespace topoplan {

namespace {

struct Cell {
  std::string text;
  int column = 1;  // 1-based byte position in its line
};

std::vector<Cell> split(std::string_view line) {
  std::vector<Cell> cells;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = line.find(',', start);
    std::string_view raw = line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::size_t lead = 0;
    while (lead < raw.size() && (raw[lead] == ' ' || raw[lead] == '\t')) ++lead;
    std::string_view value = raw.substr(lead);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r')) value.remove_suffix(1);
    cells.push_back({std::string(value), static_cast<int>(start + lead + 1)});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return cells;
}

enum class Measure { relative, throughput, duration };

std::optional<Measure> speed_column(const std::string& name) {
  if (name == "speed") return Measure::relative;
  if (name.find("tflops") != std::string::npos) return Measure::throughput;
  if (name == "duration" || name == "perf" || name.find("seconds") != std::string::npos) return Measure::duration;
  return std::nullopt;
}

std::optional<double> number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Row {
  int line = 0;
  Cell device;
  std::optional<double> value;
  int value_column = 1;
  std::optional<DeviceState> state;
};

}  // namespace

std::vector<DeviceOverride> read_device_perf(std::string_view text, const std::string& file, const Topology& t,
                                             const std::string& workload_class) {
  DiagnosticSink sink;
  std::vector<std::pair<int, std::string_view>> lines;
  {
    std::size_t start = 0;
    int number_of_line = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      std::string_view line = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
      ++number_of_line;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.find_first_not_of(" \t") != std::string_view::npos && line.front() != '#')
        lines.emplace_back(number_of_line, line);
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
  }
  if (lines.empty()) throw InputError({file, 1, 1}, "no header: a device performance file starts with a line naming "
                                                    "its columns, e.g. 'device,speed,state'");
  const auto [header_line, header_text] = lines.front();
  const std::vector<Cell> header = split(header_text);
  std::optional<std::size_t> device_col, speed_col, state_col, class_col;
  Measure measure = Measure::relative;
  for (std::size_t c = 0; c < header.size(); ++c) {
    const Cell& h = header[c];
    const SourceLocation at{file, header_line, h.column};
    if (h.text.find('"') != std::string::npos) {
      sink.error(at, "quoted fields are not supported; device names hold no commas");
      continue;
    }
    auto once = [&](std::optional<std::size_t>& slot) {
      if (slot) sink.error(at, fmt::format("column '{}' is given twice", h.text));
      slot = c;
    };
    if (h.text == "device") {
      once(device_col);
    } else if (h.text == "state") {
      once(state_col);
    } else if (h.text == "class") {
      once(class_col);
    } else if (auto m = speed_column(h.text)) {
      if (speed_col)
        sink.error(at, fmt::format("two speed columns, '{}' and '{}'; give one", header[*speed_col].text, h.text));
      speed_col = c;
      measure = *m;
    }
  }
  const SourceLocation header_at{file, header_line, 1};
  if (!device_col) {
    std::vector<std::string> names;
    for (const Cell& h : header) names.push_back(h.text);
    sink.error(header_at, fmt::format("no 'device' column (the header has {})", fmt::join(names, ", ")));
  }
  if (!speed_col && !state_col)
    sink.error(header_at, "no speed column: give 'speed' (relative, 1.0 = nominal), a TFLOP/s column (its name "
                          "holding 'tflops') or a duration ('duration', 'perf', a name holding 'seconds'), or a "
                          "'state' column");
  sink.throw_if_any();

  // The classes there are, and the one that applies.
  std::set<std::string> classes;
  if (class_col)
    for (std::size_t i = 1; i < lines.size(); ++i) {
      std::vector<Cell> cells = split(lines[i].second);
      if (*class_col < cells.size() && !cells[*class_col].text.empty()) classes.insert(cells[*class_col].text);
    }
  if (!workload_class.empty() && !classes.count(workload_class))
    throw InputError(header_at, classes.empty() ? fmt::format("--perf-class {}: the file has no 'class' column",
                                                              workload_class)
                                                : fmt::format("--perf-class {}: no row has that class (classes: {})",
                                                              workload_class, fmt::join(classes, ", ")));
  if (workload_class.empty() && classes.size() > 1)
    throw InputError({file, header_line, header[*class_col].column},
                     fmt::format("rows for {} workload classes ({}); choose one with --perf-class", classes.size(),
                                 fmt::join(classes, ", ")));

  std::vector<Row> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto [line, body] = lines[i];
    std::vector<Cell> cells = split(body);
    auto cell = [&](std::optional<std::size_t> col) -> const Cell* {
      return col && *col < cells.size() ? &cells[*col] : nullptr;
    };
    if (const Cell* k = cell(class_col); k && !k->text.empty() && k->text != workload_class && !workload_class.empty())
      continue;
    Row row;
    row.line = line;
    const Cell* d = cell(device_col);
    if (!d || d->text.empty()) {
      sink.error({file, line, d ? d->column : 1}, "a row needs a device (a name or a glob)");
      continue;
    }
    row.device = *d;
    if (const Cell* s = cell(speed_col); s && !s->text.empty()) {
      row.value = number(s->text);
      row.value_column = s->column;
      if (!row.value || *row.value <= 0 || *row.value > 1e9) {
        sink.error({file, line, s->column},
                   fmt::format("'{}' is not a {}: give a positive number up to 1e9", s->text,
                               measure == Measure::duration ? "duration" : "speed"));
        continue;
      }
    }
    if (const Cell* s = cell(state_col); s && !s->text.empty()) {
      row.state = parse_device_state(s->text);
      if (!row.state) {
        std::string hint = did_you_mean(s->text, {"up", "drain", "down"});
        sink.error({file, line, s->column}, fmt::format("unknown state '{}'; states are up, drain, down{}{}", s->text,
                                                        hint.empty() ? "" : "; ", hint));
        continue;
      }
    }
    rows.push_back(std::move(row));
  }

  // Measurements relative to their median: the median device is nominal.
  double scale = 1.0;
  if (measure != Measure::relative) {
    std::vector<double> values;
    for (const Row& r : rows)
      if (r.value) values.push_back(*r.value);
    if (!values.empty()) scale = median(values);
  }

  TopologyIndex index(t);
  std::vector<DeviceOverride> out;
  std::vector<std::int64_t> slot(t.device_count(), -1);  // its override in out
  auto names = t.accelerators();
  for (const Row& r : rows) {
    std::vector<DeviceId> devices;
    NamePattern pattern;
    std::string error;
    const SourceLocation at{file, r.line, r.device.column};
    if (!pattern.parse(r.device.text, error)) {
      sink.error(at, fmt::format("'{}': {}", r.device.text, error));
      continue;
    }
    if (pattern.is_literal()) {
      if (auto d = index.find_device(r.device.text); d && is_accelerator(t.device(*d).kind)) devices.push_back(*d);
    } else {
      for (DeviceId d : names)
        if (pattern.matches(t.device_name(d))) devices.push_back(d);
    }
    if (devices.empty()) {
      sink.error(at, fmt::format("'{}' names no accelerator of {}", r.device.text, t.name()));
      continue;
    }
    for (DeviceId d : devices) {
      if (slot[d] < 0) {
        slot[d] = static_cast<std::int64_t>(out.size());
        out.push_back({d, t.device(d).speed, t.device(d).state});
      }
      DeviceOverride& o = out[static_cast<std::size_t>(slot[d])];
      if (r.value) {
        double speed = measure == Measure::relative  ? *r.value
                       : measure == Measure::throughput ? *r.value / scale
                                                        : scale / *r.value;
        // The range a topology file's `speed` takes (topoplan-topology(5)).
        if (!(speed >= 1e-6 && speed <= 1e6)) {
          sink.error({file, r.line, r.value_column},
                     fmt::format("a relative speed of {:g} is out of range (1e-06 to 1e+06 times nominal)", speed));
          break;
        }
        o.speed = static_cast<float>(speed);
      }
      if (r.state) o.state = *r.state;
    }
  }
  sink.throw_if_any();
  std::sort(out.begin(), out.end(), [](const DeviceOverride& a, const DeviceOverride& b) { return a.device < b.device; });
  return out;
}

}  // namespace topoplan
