// Alibaba's openb GPU pod list (cluster-trace-gpu-v2023; Weng et al., "Beware
// of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation
// Gradient Descent", ATC'23): one pod a line,
//   name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,
//   creation_time,deletion_time,scheduled_time
// A pod becomes a job of num_gpu whole GPUs (on one node: required at the
// host level, when the caller names it), submitted at creation_time and
// running from scheduled_time to deletion_time (the whole lifetime for pods
// that were never scheduled). CPU-only pods are left out; GPU-sharing pods
// (one GPU, gpu_milli < 1000) take a whole GPU, or are left out with
// `:sharing=skip` (the trace's whole-GPU part, which FGD's allocation ratios
// can be checked against). gpu_spec names the GPU models a pod accepts.
#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "csv_reader.hpp"
#include "trace_readers.hpp"

namespace topoplan {

namespace {

constexpr std::array<std::string_view, 6> kNeeded = {"name",          "num_gpu",       "gpu_milli",
                                                     "creation_time", "deletion_time", "scheduled_time"};

// "V100M16|V100M32" as one glob: V100M[16,32]; nullopt when the models share
// no such form.
std::optional<std::string> model_glob(const std::string& spec) {
  std::vector<std::string> models;
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t bar = spec.find('|', start);
    models.push_back(spec.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  if (models.size() == 1) return models.front();
  // A common prefix followed by digits only.
  std::size_t prefix = models.front().size();
  for (const std::string& m : models) {
    std::size_t k = 0;
    while (k < prefix && k < m.size() && m[k] == models.front()[k]) ++k;
    prefix = k;
  }
  while (prefix > 0 && std::isdigit(static_cast<unsigned char>(models.front()[prefix - 1]))) --prefix;
  std::vector<std::string> tails;
  for (const std::string& m : models) {
    std::string tail = m.substr(prefix);
    if (tail.empty() || !std::all_of(tail.begin(), tail.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return std::nullopt;
    tails.push_back(tail);
  }
  return fmt::format("{}[{}]", models.front().substr(0, prefix), fmt::join(tails, ","));
}

}  // namespace

Trace read_openb_trace(std::string_view text, const std::string& file, const TraceOptions& options) {
  TraceSettingsReader settings(options.settings, "an openb pod list", {"sharing"});
  const std::string sharing = settings.get("sharing").value_or("whole");
  if (sharing != "whole" && sharing != "skip")
    throw InputError({}, fmt::format("'{}': sharing must be whole (a GPU-sharing pod takes a whole GPU) or skip "
                                     "(GPU-sharing pods are left out), not '{}'",
                                     options.settings.origin, sharing));
  Trace trace;
  trace.format = "openb";
  DiagnosticSink sink(20);
  csv::Reader reader(text, file);
  std::vector<csv::Field> f;
  reader.next(f);
  std::map<std::string, std::size_t> column;
  for (std::size_t c = 0; c < f.size(); ++c) column.emplace(f[c].text, c);
  for (std::string_view name : kNeeded)
    if (!column.count(std::string(name)))
      sink.error(reader.where(1), fmt::format("an openb pod list needs the column '{}'", name));
  sink.throw_if_any();
  auto col = [&](std::string_view name) { return column.at(std::string(name)); };
  const std::size_t c_name = col("name"), c_gpu = col("num_gpu"), c_milli = col("gpu_milli"),
                    c_create = col("creation_time"), c_delete = col("deletion_time"),
                    c_sched = col("scheduled_time");
  const auto c_spec = column.count("gpu_spec") ? column.at("gpu_spec") : f.size();
  const std::size_t width = f.size();
  std::size_t cpu_only = 0, shared = 0, never_scheduled = 0, dropped_spec = 0;
  while (reader.next(f)) {
    if (trace.jobs.size() >= TraceLimits::max_jobs)
      throw InputError(reader.where(), fmt::format("more than {} jobs in one trace", TraceLimits::max_jobs));
    if (f.size() != width) {
      sink.error(reader.where(), fmt::format("{} fields, but the header has {}", f.size(), width));
      continue;
    }
    const std::size_t errors = sink.size();
    auto gpus = csv::integer(f[c_gpu], reader, sink, "num_gpu", 0, TraceLimits::max_gpus);
    auto milli = f[c_milli].text.empty() ? std::optional<std::int64_t>(0)
                                         : csv::integer(f[c_milli], reader, sink, "gpu_milli", 0, 1000);
    auto created = csv::number(f[c_create], reader, sink, "creation_time", 0, TraceLimits::max_seconds);
    auto deleted = csv::number(f[c_delete], reader, sink, "deletion_time", 0, TraceLimits::max_seconds);
    std::optional<double> scheduled;
    if (!f[c_sched].text.empty())
      scheduled = csv::number(f[c_sched], reader, sink, "scheduled_time", 0, TraceLimits::max_seconds);
    if (sink.size() != errors) continue;
    if (*gpus == 0) {
      ++cpu_only;
      continue;
    }
    if (*gpus == 1 && *milli < 1000) {
      ++shared;
      if (sharing == "skip") continue;
    }
    TraceJob job;
    job.where = reader.where(1);
    job.id = f[c_name].text;
    job.gpus = static_cast<std::uint32_t>(*gpus);
    job.submit_s = *created;
    const double start = scheduled.value_or(*created);
    if (!scheduled) ++never_scheduled;
    if (*deleted < start) {
      sink.error(reader.where(f[c_delete].column),
                 fmt::format("deletion_time {} is before the pod started ({})", f[c_delete].text, start));
      continue;
    }
    job.duration_s = *deleted - start;
    if (!options.host_level.empty()) job.required = options.host_level;  // a pod runs on one node
    if (c_spec < f.size() && !f[c_spec].text.empty()) {
      if (auto glob = model_glob(f[c_spec].text))
        job.accelerator_model = *glob;
      else
        ++dropped_spec;
    }
    trace.jobs.push_back(std::move(job));
  }
  sink.throw_if_any();
  trace.assumptions.push_back(fmt::format("openb: a pod runs num_gpu whole GPUs{} from scheduled_time to "
                                          "deletion_time, submitted at creation_time; qos and CPU/memory requests "
                                          "are not used",
                                          options.host_level.empty() ? "" : " of one " + options.host_level));
  if (cpu_only) trace.assumptions.push_back(fmt::format("openb: {} CPU-only pods left out", cpu_only));
  if (shared)
    trace.assumptions.push_back(sharing == "skip"
                                    ? fmt::format("openb: {} GPU-sharing pods (gpu_milli < 1000) left out", shared)
                                    : fmt::format("openb: {} GPU-sharing pods (gpu_milli < 1000) each take a whole "
                                                  "GPU (':sharing=skip' leaves them out)",
                                                  shared));
  if (never_scheduled)
    trace.assumptions.push_back(fmt::format(
        "openb: {} pods were never scheduled in production; they run from creation_time to deletion_time",
        never_scheduled));
  if (dropped_spec)
    trace.assumptions.push_back(
        fmt::format("openb: {} pods accept GPU models no single pattern names; any model is allowed", dropped_spec));
  return trace;
}

}  // namespace topoplan
