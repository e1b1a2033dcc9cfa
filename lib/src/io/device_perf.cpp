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
  std::string workload_class;  // "" : every class
};

}  // namespace

DevicePerf read_device_perf_classes(std::string_view text, const std::string& file, const Topology& t,
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

  // The classes there are, and the one that applies by default.
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
  DevicePerf perf;
  perf.classes.assign(classes.begin(), classes.end());
  perf.default_class = workload_class.empty() && classes.size() == 1 ? *classes.begin() : workload_class;
  if (class_col) perf.class_column = header[*class_col].column;
  perf.header_line = header_line;

  std::vector<Row> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto [line, body] = lines[i];
    std::vector<Cell> cells = split(body);
    auto cell = [&](std::optional<std::size_t> col) -> const Cell* {
      return col && *col < cells.size() ? &cells[*col] : nullptr;
    };
    Row row;
    row.line = line;
    if (const Cell* k = cell(class_col)) row.workload_class = k->text;
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

  // Each row's devices, resolved once.
  TopologyIndex index(t);
  auto names = t.accelerators();
  std::vector<std::vector<DeviceId>> row_devices(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Row& row = rows[r];
    NamePattern pattern;
    std::string error;
    const SourceLocation at{file, row.line, row.device.column};
    if (!pattern.parse(row.device.text, error)) {
      sink.error(at, fmt::format("'{}': {}", row.device.text, error));
      continue;
    }
    std::vector<DeviceId>& devices = row_devices[r];
    if (pattern.is_literal()) {
      if (auto d = index.find_device(row.device.text); d && is_accelerator(t.device(*d).kind)) devices.push_back(*d);
    } else {
      for (DeviceId d : names)
        if (pattern.matches(t.device_name(d))) devices.push_back(d);
    }
    if (devices.empty()) sink.error(at, fmt::format("'{}' names no accelerator of {}", row.device.text, t.name()));
  }

  // What one class sees: the class-less rows, then the class's own (which
  // win where both name a device), later rows over earlier ones; the
  // measurements relative to their median over those rows, so the median
  // device is nominal. `speed` holds one speed per device id.
  std::set<int> reported;  // lines whose speed is out of range
  auto apply = [&](const std::string& cls, std::vector<float>& speed, std::vector<std::int64_t>* touched) {
    std::vector<const Row*> applying;
    std::vector<std::size_t> which;
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t r = 0; r < rows.size(); ++r)
        if (pass == 0 ? rows[r].workload_class.empty() : !cls.empty() && rows[r].workload_class == cls) {
          applying.push_back(&rows[r]);
          which.push_back(r);
        }
    double scale = 1.0;
    if (measure != Measure::relative) {
      std::vector<double> values;
      for (const Row* r : applying)
        if (r->value) values.push_back(*r->value);
      if (!values.empty()) scale = median(values);
    }
    for (std::size_t i = 0; i < applying.size(); ++i) {
      const Row& r = *applying[i];
      if (!r.value) continue;
      const double v = measure == Measure::relative     ? *r.value
                       : measure == Measure::throughput ? *r.value / scale
                                                        : scale / *r.value;
      // The range a topology file's `speed` takes (topoplan-topology(5)).
      if (!(v >= 1e-6 && v <= 1e6)) {
        if (reported.insert(r.line).second)
          sink.error({file, r.line, r.value_column},
                     fmt::format("a relative speed of {:g} is out of range (1e-06 to 1e+06 times nominal)", v));
        continue;
      }
      for (DeviceId d : row_devices[which[i]]) {
        speed[d] = static_cast<float>(v);
        if (touched) (*touched)[d] = 1;
      }
    }
  };

  std::vector<float> base(t.device_count());
  for (DeviceId d = 0; d < t.device_count(); ++d) base[d] = t.device(d).speed;

  // The default: speeds and states of the class-less rows and the default class's.
  std::vector<float> speed = base;
  std::vector<std::int64_t> named(t.device_count(), 0);
  apply(perf.default_class, speed, &named);
  std::vector<std::optional<DeviceState>> state(t.device_count());
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const Row& row = rows[r];
      const bool applies = pass == 0 ? row.workload_class.empty()
                                     : !perf.default_class.empty() && row.workload_class == perf.default_class;
      if (!applies) continue;
      for (DeviceId d : row_devices[r]) {
        named[d] = 1;
        if (row.state) state[d] = row.state;
      }
    }
  for (DeviceId d = 0; d < t.device_count(); ++d)
    if (named[d]) perf.overrides.push_back({d, speed[d], state[d].value_or(t.device(d).state)});

  for (const std::string& cls : perf.classes) {
    std::vector<float> s = base;
    apply(cls, s, nullptr);
    SpeedClass c{cls, {}};
    c.speed.reserve(names.size());
    for (DeviceId d : names) c.speed.push_back(s[d]);
    perf.speed_classes.push_back(std::move(c));
  }
  sink.throw_if_any();
  return perf;
}

std::vector<DeviceOverride> read_device_perf(std::string_view text, const std::string& file, const Topology& t,
                                             const std::string& workload_class) {
  DevicePerf perf = read_device_perf_classes(text, file, t, workload_class);
  if (workload_class.empty() && perf.classes.size() > 1)
    throw InputError({file, perf.header_line, perf.class_column},
                     fmt::format("rows for {} workload classes ({}); choose one with --perf-class",
                                 perf.classes.size(), fmt::join(perf.classes, ", ")));
  return std::move(perf.overrides);
}

}  // namespace topoplan
