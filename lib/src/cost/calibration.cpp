#include "topoplan/cost/calibration.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "topoplan/cost/ep_kernel.hpp"
#include "topoplan/cost/serial_launch.hpp"
#include "topoplan/model/nccl_environment.hpp"
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

struct KernelSetup {
  EpKernel kernel = EpKernel::nccl;
  EpPhase phase = EpPhase::dispatch;
  std::uint64_t message = 0;
};

// `KERNEL[-combine][:MESSAGE_BYTES]` in the algorithm column: an
// expert-parallel kernel library instead of NCCL (pplx:7168, deepep-ll-combine).
std::optional<KernelSetup> calibration_kernel(const std::string& text) {
  const std::size_t colon = text.find(':');
  std::string name = text.substr(0, colon);
  KernelSetup k;
  constexpr std::string_view kCombine = "-combine";
  if (name.size() > kCombine.size() && name.compare(name.size() - kCombine.size(), kCombine.size(), kCombine) == 0) {
    k.phase = EpPhase::combine;
    name.resize(name.size() - kCombine.size());
  }
  const std::optional<EpKernel> kernel = parse_ep_kernel(name);
  if (!kernel || *kernel == EpKernel::nccl) return std::nullopt;
  k.kernel = *kernel;
  if (colon != std::string::npos)
    k.message = number<std::uint64_t>(text.substr(colon + 1), "calibration-setups.csv", 0, "message size");
  return k;
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
  if (r.setup.compare == "rdma-bandwidth") {
    // DeepEP's test: each token once per node it goes to, its own included.
    const DeepEpRouting route = deepep_routing(c.ranks, c.islands);
    return static_cast<double>(c.bytes) / route.top_k * route.nodes / (c.time_us * 1e3);
  }
  if (r.point.metric == "busbw") return c.busbw_gbps;
  if (r.point.metric == "algbw") return c.algbw_gbps;
  return c.time_us;
}

// NCCL's choice in the algorithm column: one algorithm requested, or a list
// (NCCL_ALGO syntax) auto chooses from, and after a '/' the protocols it may
// use (NCCL_PROTO syntax). Sets `problem` and returns false when a part is
// unknown.
bool apply_nccl_choice(const std::string& text, CollectiveQuery& q, std::string& problem) {
  const std::size_t slash = text.find('/');
  const std::string algorithms = text.substr(0, slash);
  if (auto a = parse_algorithm(algorithms)) {
    q.algorithm = *a;
  } else if (auto set = parse_algorithm_set(algorithms)) {
    q.allowed = *set;
  } else {
    problem = fmt::format("unknown algorithm '{}'", algorithms);
    return false;
  }
  if (slash == std::string::npos) return true;
  const std::string protocols = text.substr(slash + 1);
  auto set = parse_protocol_set(protocols);
  if (!set) {
    problem = fmt::format("unknown protocols '{}'", protocols);
    return false;
  }
  q.protocols = *set;
  return true;
}

// The nccl column: the release the run states, then the variables it set,
// space-separated (`2.29.2 NCCL_BUFFSIZE=16777216`); either may be absent.
void parse_nccl_column(const std::string& text, CalibrationSetup& s, const SourceLocation& where) {
  std::istringstream words(text);
  std::string word;
  NcclEnvironment check;
  while (words >> word) {
    std::string problem;
    if (word.find('=') == std::string::npos) {
      if (s.nccl_version || !s.nccl_settings.empty())
        throw InputError(where, fmt::format("nccl '{}': the release comes first, and once", text));
      s.nccl_version = parse_nccl_version(word, problem);
      if (!s.nccl_version) throw InputError(where, problem);
      continue;
    }
    std::optional<NcclSetting> setting = split_nccl_setting(word, where, problem);
    if (!setting) throw InputError(where, fmt::format("nccl '{}': {}", text, problem));
    if (setting->name == kNcclVersionKey)
      throw InputError(where, fmt::format("nccl '{}': give the release as the first word", text));
    problem = apply_nccl_setting(check, *setting);
    if (!problem.empty()) throw InputError(where, problem);
    s.nccl_settings.push_back(std::move(*setting));
  }
}

}  // namespace

const std::vector<std::string>& calibration_groups() {
  static const std::vector<std::string> kGroups = {"single-node", "multi-node", "multi-rack-nvl72",
                                                   "latency",     "amd",        "alltoall"};
  return kGroups;
}

CalibrationStats calibration_stats(const std::vector<double>& model, const std::vector<double>& measured) {
  CalibrationStats out;
  std::vector<double> errors;
  for (std::size_t i = 0; i < model.size() && i < measured.size(); ++i) {
    errors.push_back(std::fabs((model[i] - measured[i]) / measured[i]));
    const double ratio = model[i] > 0 ? std::max(model[i] / measured[i], measured[i] / model[i])
                                      : std::numeric_limits<double>::infinity();
    out.worst_ratio = std::max(out.worst_ratio, ratio);
  }
  std::sort(errors.begin(), errors.end());
  out.count = errors.size();
  if (!errors.empty()) {
    const std::size_t n = errors.size();
    out.median = n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
    const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n)));
    out.p90 = errors[std::clamp<std::size_t>(rank, 1, n) - 1];
  }
  return out;
}

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
  for (const Line& l : csv_lines(text, 11, true, file)) {
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
    if (!s.algorithm.empty() && !calibration_kernel(s.algorithm)) {
      CollectiveQuery probe;
      std::string problem;
      if (!apply_nccl_choice(s.algorithm, probe, problem)) throw InputError({file, l.number, 1}, problem);
    }
    if (!l.fields[4].empty()) s.size_bytes = number<std::uint64_t>(l.fields[4], file, l.number, "size_bytes");
    if (!l.fields[5].empty()) s.compare = l.fields[5];
    if (s.compare != "metric" && s.compare != "scale-up-bandwidth" && s.compare != "nic-bandwidth" &&
        s.compare != "rdma-bandwidth")
      throw InputError({file, l.number, 1}, fmt::format("unknown comparison '{}'", s.compare));
    s.group = l.fields[6];
    const auto& groups = calibration_groups();
    if (std::find(groups.begin(), groups.end(), s.group) == groups.end())
      throw InputError({file, l.number, 1}, fmt::format("unknown group '{}' (one of {})", s.group,
                                                        fmt::join(groups, ", ")));
    s.role = l.fields[7];
    if (s.role != "fit" && s.role != "check" && s.role != "outlier")
      throw InputError({file, l.number, 1}, fmt::format("role '{}' must be fit, check or outlier", s.role));
    parse_nccl_column(l.fields[8], s, {file, l.number, 1});
    if (!l.fields[9].empty()) {
      s.gpus_per_thread = number<std::uint32_t>(l.fields[9], file, l.number, "gpus_per_thread");
      if (s.gpus_per_thread < 1 || s.gpus_per_thread > kMaxGpusPerThread)
        throw InputError({file, l.number, 1}, fmt::format("gpus_per_thread {} must be 1 to {} (nccl-tests' -g)",
                                                          s.gpus_per_thread, kMaxGpusPerThread));
    }
    if (s.role == "outlier" && l.fields[10].empty())
      throw InputError({file, l.number, 1}, "an outlier's note must say why the model cannot reproduce it");
    s.note = l.fields[10];
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
    // One model per topology, NCCL release and settings (the run's, where it
    // states them).
    std::string key = setup->topology + "@" + (setup->nccl_version ? setup->nccl_version->str() : "");
    for (const NcclSetting& setting : setup->nccl_settings) key += " " + setting.name + "=" + setting.value;
    Loaded& loaded = models[key];
    if (!loaded.model) {
      Topology topology = load_topology(setup->topology, read);
      for (const NcclSetting& setting : setup->nccl_settings)
        topology = with_nccl_setting(std::move(topology), setting);
      loaded.topology = std::make_unique<Topology>(std::move(topology));
      CostModelOptions run = options;
      if (setup->nccl_version) run.nccl_version = setup->nccl_version;
      loaded.model = std::make_unique<CostModel>(*loaded.topology, run);
    }
    const std::vector<DeviceId> ranks = select_ranks(*loaded.topology, setup->ranks);
    CollectiveQuery q;
    q.ranks = ranks;
    auto op = parse_collective(p.collective);
    if (!op) throw InputError({}, fmt::format("calibration point {}: unknown collective '{}'", p.id, p.collective));
    q.op = *op;
    q.bytes = setup->size_bytes ? setup->size_bytes : p.size_bytes;
    const std::string algorithm = setup->algorithm.empty() ? p.algorithm : setup->algorithm;
    CalibrationResult r;
    r.point = p;
    r.setup = *setup;
    // A kernel library instead of NCCL: `KERNEL[-combine]:MESSAGE_BYTES`.
    if (auto kernel = calibration_kernel(algorithm)) {
      r.cost = ep_collective(*loaded.model, q, kernel->kernel, kernel->phase, kernel->message);
      r.model = compared_value(r);
      r.error = (r.model - p.value) / p.value;
      summary.results.push_back(std::move(r));
      continue;
    }
    std::string problem;
    if (!apply_nccl_choice(algorithm, q, problem))
      throw InputError({}, fmt::format("calibration point {}: {}", p.id, problem));
    r.cost = loaded.model->collective(q);
    if (setup->gpus_per_thread > 1) r.cost = with_serial_launches(r.cost, setup->gpus_per_thread);
    r.model = compared_value(r);
    r.error = (r.model - p.value) / p.value;
    summary.results.push_back(std::move(r));
  }
  auto stats = [&](const std::function<bool(const CalibrationResult&)>& keep) {
    std::vector<double> model, measured;
    for (const CalibrationResult& r : summary.results)
      if (keep(r)) {
        model.push_back(r.model);
        measured.push_back(r.point.value);
      }
    return calibration_stats(model, measured);
  };
  summary.all = stats([](const CalibrationResult& r) { return r.setup.role != "outlier"; });
  summary.fit = stats([](const CalibrationResult& r) { return r.setup.role == "fit"; });
  summary.check = stats([](const CalibrationResult& r) { return r.setup.role == "check"; });
  summary.outliers = stats([](const CalibrationResult& r) { return r.setup.role == "outlier"; });
  for (const std::string& g : calibration_groups()) {
    CalibrationStats st =
        stats([&](const CalibrationResult& r) { return r.setup.group == g && r.setup.role != "outlier"; });
    if (st.count > 0) summary.groups.emplace_back(g, st);
  }
  summary.median = summary.all.median;
  summary.p90 = summary.all.p90;
  return summary;
}

std::string calibration_header() {
  return fmt::format("{:<4} {:<14} {:>5} {:>12} {:<18} {:>10} {:>10} {:>8}  {:<18} {:<16} {:<5}", "id",
                     "collective", "ranks", "size (B)", "metric", "measured", "model", "error", "model algorithm",
                     "group", "role");
}

std::string calibration_row(const CalibrationResult& r) {
  const std::string& metric = r.setup.compare == "metric" ? r.point.metric : r.setup.compare;
  return fmt::format("{:<4} {:<14} {:>5} {:>12} {:<18} {:>10.2f} {:>10.2f} {:>+7.1f}%  {:<18} {:<16} {:<5}",
                     r.point.id, r.point.collective, r.cost.ranks, r.cost.bytes, metric, r.point.value, r.model,
                     100 * r.error,
                     fmt::format("{}/{}", algorithm_name(r.cost.algorithm), protocol_name(r.cost.protocol)),
                     r.setup.group, r.setup.role);
}

std::string calibration_stats_line(std::string_view label, const CalibrationStats& st) {
  return fmt::format("{:<18} {:>3} points: median |error| {:5.1f}%, 90th percentile {:5.1f}%, worst x{:.2f}", label,
                     st.count, 100 * st.median, 100 * st.p90, st.worst_ratio);
}

std::string calibration_summary(const CalibrationSummary& summary) {
  std::string out = calibration_stats_line("fit and check", summary.all);
  out += "\n" + calibration_stats_line("fit", summary.fit);
  out += "\n" + calibration_stats_line("check", summary.check);
  for (const auto& [group, st] : summary.groups) out += "\n" + calibration_stats_line(group, st);
  if (summary.outliers.count > 0) out += "\n" + calibration_stats_line("outliers", summary.outliers);
  return out;
}

void write_calibration_report(std::ostream& out, const CalibrationSummary& summary,
                              const CalibrationSummary& ablation, bool topologies) {
  if (topologies)
    fmt::print(out, "{:<150} {}\n", calibration_header(), "topology");
  else
    fmt::print(out, "{}\n", calibration_header());
  for (const CalibrationResult& r : summary.results) {
    if (topologies) {
      std::vector<std::string> nccl;
      if (r.setup.nccl_version) nccl.push_back("NCCL " + r.setup.nccl_version->str());
      for (const NcclSetting& s : r.setup.nccl_settings) nccl.push_back(s.name + "=" + s.value);
      if (r.setup.gpus_per_thread > 1) nccl.push_back(fmt::format("-g {}", r.setup.gpus_per_thread));
      fmt::print(out, "{:<150} {}{}\n", calibration_row(r), r.setup.topology,
                 nccl.empty() ? "" : fmt::format(" ({})", fmt::join(nccl, " ")));
    } else
      fmt::print(out, "{}\n", calibration_row(r));
  }
  fmt::print(out, "\n{}\n", calibration_summary(summary));
  bool any = false;
  for (const CalibrationResult& r : summary.results) {
    if (r.setup.role != "outlier") continue;
    if (!any) fmt::print(out, "\noutliers (not in the statistics above):\n");
    any = true;
    fmt::print(out, "  {}: {}\n", r.point.id, r.setup.note);
  }
  fmt::print(out, "\nwithout the size-dependent efficiency:\n{}\n", calibration_stats_line("fit and check", ablation.all));
}

}  // namespace topoplan
