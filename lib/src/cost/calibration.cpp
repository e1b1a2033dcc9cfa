#include "topoplan/cost/calibration.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/support/error.hpp"

namespace topoplan {

namespace {

struct Line {
  int number = 0;
  std::vector<std::string> fields;
};

// Splits CSV text into lines of fields. No quoting: the files use none; the
// last field takes the rest of the line when `rest_in_last` is set.
std::vector<Line> csv_lines(std::string_view text, std::size_t columns, bool rest_in_last, const std::string& file) {
  std::vector<Line> out;
  int number = 0;
  bool header = true;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') {
      if (end == text.size()) break;
      continue;
    }
    Line l;
    l.number = number;
    std::size_t start = 0;
    while (true) {
      if (rest_in_last && l.fields.size() + 1 == columns) {
        l.fields.emplace_back(line.substr(start));
        break;
      }
      std::size_t comma = line.find(',', start);
      l.fields.emplace_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    if (l.fields.size() != columns)
      throw InputError({file, number, 1}, fmt::format("expected {} comma-separated fields, found {}", columns,
                                                      l.fields.size()));
    if (header) {
      header = false;
    } else {
      out.push_back(std::move(l));
    }
    if (end == text.size()) break;
  }
  return out;
}

template <typename T>
T number(const std::string& text, const std::string& file, int line, std::string_view what) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw InputError({file, line, 1}, fmt::format("{} '{}' is not a number", what, text));
  return value;
}

double compared_value(const CalibrationResult& r) {
  const CollectiveCost& c = r.cost;
  if (!c.reachable || !(c.time_us > 0)) return 0;
  if (r.setup.compare == "scale-up-bandwidth" || r.setup.compare == "nic-bandwidth") {
    const Tier want = r.setup.compare == "nic-bandwidth" ? Tier::nic : Tier::scale_up;
    double bytes = 0;
    for (const TierCost& t : c.tiers())
      if (t.tier == want) bytes = std::max(bytes, t.bytes);
    return bytes / (c.time_us * 1e3);
  }
  if (r.point.metric == "busbw") return c.busbw_gbps;
  if (r.point.metric == "algbw") return c.algbw_gbps;
  return c.time_us;
}

}  // namespace

std::vector<CalibrationPoint> parse_calibration_points(std::string_view text, const std::string& file) {
  std::vector<CalibrationPoint> out;
  for (const Line& l : csv_lines(text, 10, false, file)) {
    CalibrationPoint p;
    p.id = l.fields[0];
    p.setup = l.fields[1];
    p.gpus = number<std::uint32_t>(l.fields[2], file, l.number, "gpus");
    p.nodes = number<std::uint32_t>(l.fields[3], file, l.number, "nodes");
    p.collective = l.fields[4];
    p.algorithm = l.fields[5];
    p.size_bytes = number<std::uint64_t>(l.fields[6], file, l.number, "size_bytes");
    p.metric = l.fields[7];
    p.value = number<double>(l.fields[8], file, l.number, "value");
    p.source = l.fields[9];
    if (p.metric != "busbw" && p.metric != "algbw" && p.metric != "time_us")
      throw InputError({file, l.number, 1}, fmt::format("unknown metric '{}'", p.metric));
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<CalibrationSetup> parse_calibration_setups(std::string_view text, const std::string& file) {
  std::vector<CalibrationSetup> out;
  for (const Line& l : csv_lines(text, 7, true, file)) {
    CalibrationSetup s;
    s.id = l.fields[0];
    s.topology = l.fields[1];
    const std::string& ranks = l.fields[2];
    if (ranks.rfind("first:", 0) == 0)
      s.ranks.first = number<std::uint64_t>(ranks.substr(6), file, l.number, "first");
    else if (ranks.rfind("devices:", 0) == 0)
      s.ranks.devices = ranks.substr(8);
    else if (!ranks.empty())
      throw InputError({file, l.number, 1}, fmt::format("ranks '{}' must be first:N or devices:LIST", ranks));
    s.algorithm = l.fields[3];
    if (!l.fields[4].empty()) s.size_bytes = number<std::uint64_t>(l.fields[4], file, l.number, "size_bytes");
    if (!l.fields[5].empty()) s.compare = l.fields[5];
    if (s.compare != "metric" && s.compare != "scale-up-bandwidth" && s.compare != "nic-bandwidth")
      throw InputError({file, l.number, 1}, fmt::format("unknown comparison '{}'", s.compare));
    s.note = l.fields[6];
    out.push_back(std::move(s));
  }
  return out;
}

CalibrationSummary run_calibration(const std::vector<CalibrationPoint>& points,
                                   const std::vector<CalibrationSetup>& setups, const FileReader& read,
                                   const CostModelOptions& options) {
  struct Loaded {
    std::unique_ptr<Topology> topology;
    std::unique_ptr<CostModel> model;
  };
  std::map<std::string, Loaded> models;
  CalibrationSummary summary;
  for (const CalibrationPoint& p : points) {
    auto setup = std::find_if(setups.begin(), setups.end(), [&](const CalibrationSetup& s) { return s.id == p.id; });
    if (setup == setups.end()) throw InputError({}, fmt::format("calibration point {} has no setup", p.id));
    Loaded& loaded = models[setup->topology];
    if (!loaded.model) {
      loaded.topology = std::make_unique<Topology>(load_topology(setup->topology, read));
      loaded.model = std::make_unique<CostModel>(*loaded.topology, options);
    }
    const std::vector<DeviceId> ranks = select_ranks(*loaded.topology, setup->ranks);
    CollectiveQuery q;
    q.ranks = ranks;
    auto op = parse_collective(p.collective);
    if (!op) throw InputError({}, fmt::format("calibration point {}: unknown collective '{}'", p.id, p.collective));
    q.op = *op;
    q.bytes = setup->size_bytes ? setup->size_bytes : p.size_bytes;
    const std::string algorithm = setup->algorithm.empty() ? p.algorithm : setup->algorithm;
    auto a = parse_algorithm(algorithm);
    if (!a) throw InputError({}, fmt::format("calibration point {}: unknown algorithm '{}'", p.id, algorithm));
    q.algorithm = *a;
    CalibrationResult r;
    r.point = p;
    r.setup = *setup;
    r.cost = loaded.model->collective(q);
    r.model = compared_value(r);
    r.error = (r.model - p.value) / p.value;
    summary.results.push_back(std::move(r));
  }
  std::vector<double> errors;
  for (const CalibrationResult& r : summary.results) errors.push_back(std::fabs(r.error));
  std::sort(errors.begin(), errors.end());
  if (!errors.empty()) {
    const std::size_t n = errors.size();
    summary.median = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
    const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n)));
    summary.p90 = errors[std::clamp<std::size_t>(rank, 1, n) - 1];
  }
  return summary;
}

std::string calibration_header() {
  return fmt::format("{:<4} {:<14} {:>5} {:>12} {:<18} {:>10} {:>10} {:>8}  {}", "id", "collective", "ranks",
                     "size (B)", "metric", "measured", "model", "error", "model algorithm");
}

std::string calibration_row(const CalibrationResult& r) {
  const std::string& metric = r.setup.compare == "metric" ? r.point.metric : r.setup.compare;
  return fmt::format("{:<4} {:<14} {:>5} {:>12} {:<18} {:>10.2f} {:>10.2f} {:>+7.1f}%  {}", r.point.id,
                     r.point.collective, r.cost.ranks, r.cost.bytes, metric, r.point.value, r.model, 100 * r.error,
                     fmt::format("{}/{}", algorithm_name(r.cost.algorithm), protocol_name(r.cost.protocol)));
}

std::string calibration_summary(const CalibrationSummary& summary) {
  return fmt::format("{} points: median |error| {:.1f}%, 90th percentile {:.1f}%", summary.results.size(),
                     100 * summary.median, 100 * summary.p90);
}

void write_calibration_text(std::ostream& out, const CalibrationSummary& summary) {
  fmt::print(out, "{:<110} {}\n", calibration_header(), "topology");
  for (const CalibrationResult& r : summary.results)
    fmt::print(out, "{:<110} {}\n", calibration_row(r), r.setup.topology);
  fmt::print(out, "\n{}\n", calibration_summary(summary));
}

}  // namespace topoplan
