// topoplan's native trace: a CSV with a header naming its columns
// (topoplan-formats(5), TRACES). Every problem is reported, with its line
// and column, before the reader gives up.
#include <algorithm>
#include <array>
#include <map>
#include <set>

#include <fmt/format.h>

#include "csv_reader.hpp"
#include "trace_readers.hpp"

namespace topoplan {

namespace {

enum Column : std::uint8_t {
  kId,
  kSubmit,
  kGpus,
  kDuration,
  kKind,
  kTp,
  kPp,
  kDp,
  kEp,
  kRequired,
  kPreferred,
  kCommFraction,
  kPriority,
  kTenant,
  kModel,
  kColumns
};

constexpr std::array<std::string_view, kColumns> kNames = {
    "id", "submit_s", "gpus", "duration_s", "kind", "tp", "pp", "dp", "ep",
    "required", "preferred", "comm_fraction", "priority", "tenant", "model"};
constexpr std::size_t kRequiredColumns = 4;  // id, submit_s, gpus, duration_s

std::optional<std::uint32_t> factor(const csv::Field& f, const csv::Reader& r, DiagnosticSink& sink,
                                    std::string_view what) {
  auto v = csv::integer(f, r, sink, what, 1, TraceLimits::max_gpus);
  if (!v) return std::nullopt;
  return static_cast<std::uint32_t>(*v);
}

// tp x pp x dp must cover the job's accelerators; dp follows from the others
// when it is not given.
std::optional<Parallelism> parallelism(std::uint32_t gpus, const std::array<const csv::Field*, kColumns>& cell,
                                       const csv::Reader& r, DiagnosticSink& sink) {
  if (!cell[kTp] && !cell[kPp] && !cell[kDp] && !cell[kEp]) return std::nullopt;
  Parallelism p;
  std::size_t errors = sink.size();
  if (cell[kTp]) p.tp = factor(*cell[kTp], r, sink, "tp").value_or(1);
  if (cell[kPp]) p.pp = factor(*cell[kPp], r, sink, "pp").value_or(1);
  if (cell[kEp]) p.ep = factor(*cell[kEp], r, sink, "ep").value_or(1);
  if (sink.size() != errors || gpus == 0) return std::nullopt;
  const std::uint64_t model = std::uint64_t{p.tp} * p.pp;
  if (cell[kDp]) {
    p.dp = factor(*cell[kDp], r, sink, "dp").value_or(1);
    if (sink.size() != errors) return std::nullopt;
    if (model * p.dp != gpus) {
      sink.error(r.where(cell[kDp]->column),
                 fmt::format("tp x pp x dp = {} x {} x {} = {}, but the job has {} gpus", p.tp, p.pp, p.dp,
                             model * p.dp, gpus));
      return std::nullopt;
    }
  } else {
    if (gpus % model != 0) {
      const csv::Field* at = cell[kPp] ? cell[kPp] : cell[kTp] ? cell[kTp] : cell[kEp];
      sink.error(r.where(at->column),
                 fmt::format("tp x pp = {} does not divide the job's {} gpus", model, gpus));
      return std::nullopt;
    }
    p.dp = static_cast<std::uint32_t>(gpus / model);
  }
  if (p.dp % p.ep != 0) {
    sink.error(r.where(cell[kEp]->column), fmt::format("ep {} must divide dp {}", p.ep, p.dp));
    return std::nullopt;
  }
  return p;
}

}  // namespace

Trace read_native_trace(std::string_view text, const std::string& file, const TraceOptions& options) {
  TraceSettingsReader settings(options.settings, "a topoplan CSV trace", {});
  Trace trace;
  trace.format = "csv";
  DiagnosticSink sink(20);
  csv::Reader reader(text, file, ',', true);
  std::vector<csv::Field> fields;
  if (!reader.next(fields)) throw InputError({file, 0, 0}, "empty trace: no header line");

  // The header: which column holds what.
  std::vector<int> role(fields.size(), -1);
  std::array<int, kColumns> index;
  index.fill(-1);
  std::vector<std::string> known(kNames.begin(), kNames.end());
  for (std::size_t c = 0; c < fields.size(); ++c) {
    std::string name = fields[c].text;
    auto it = std::find(kNames.begin(), kNames.end(), name);
    if (it == kNames.end()) {
      std::string hint = did_you_mean(name, known);
      sink.error(reader.where(fields[c].column),
                 fmt::format("unknown column '{}'; columns are {}{}{}", name, fmt::join(kNames, ","),
                             hint.empty() ? "" : "; ", hint));
      continue;
    }
    auto k = static_cast<std::size_t>(it - kNames.begin());
    if (index[k] >= 0) {
      sink.error(reader.where(fields[c].column), fmt::format("column '{}' appears twice", name));
      continue;
    }
    index[k] = static_cast<int>(c);
    role[c] = static_cast<int>(k);
  }
  for (std::size_t k = 0; k < kRequiredColumns; ++k)
    if (index[k] < 0)
      sink.error(reader.where(1), fmt::format("the header needs the column '{}' (a trace has at least "
                                              "id,submit_s,gpus,duration_s)",
                                              kNames[k]));
  sink.throw_if_any();

  std::map<std::string, int> seen;  // id -> line
  while (reader.next(fields)) {
    if (trace.jobs.size() >= TraceLimits::max_jobs)
      throw InputError(reader.where(), fmt::format("more than {} jobs in one trace", TraceLimits::max_jobs));
    if (fields.size() != role.size()) {
      sink.error(reader.where(), fmt::format("{} fields, but the header has {}", fields.size(), role.size()));
      continue;
    }
    std::array<const csv::Field*, kColumns> cell{};
    for (std::size_t c = 0; c < fields.size(); ++c)
      if (role[c] >= 0 && !fields[c].text.empty()) cell[static_cast<std::size_t>(role[c])] = &fields[c];
    TraceJob job;
    job.where = reader.where(1);
    const std::size_t errors = sink.size();
    for (std::size_t k = 0; k < kRequiredColumns; ++k)
      if (!cell[k]) sink.error(reader.where(fields[static_cast<std::size_t>(index[k])].column),
                               fmt::format("'{}' is empty", kNames[k]));
    if (sink.size() != errors) continue;
    job.id = cell[kId]->text;
    auto [it, fresh] = seen.emplace(job.id, reader.line());
    if (!fresh)
      sink.error(reader.where(cell[kId]->column),
                 fmt::format("job '{}' appears twice (first on line {})", job.id, it->second));
    job.submit_s = csv::number(*cell[kSubmit], reader, sink, "submit_s", 0, TraceLimits::max_seconds).value_or(0);
    job.gpus = static_cast<std::uint32_t>(
        csv::integer(*cell[kGpus], reader, sink, "gpus", 1, TraceLimits::max_gpus).value_or(0));
    job.duration_s =
        csv::number(*cell[kDuration], reader, sink, "duration_s", 0, TraceLimits::max_seconds).value_or(0);
    if (cell[kKind]) {
      if (cell[kKind]->text == "training")
        job.kind = JobKind::training;
      else if (cell[kKind]->text == "inference")
        job.kind = JobKind::inference;
      else
        sink.error(reader.where(cell[kKind]->column),
                   fmt::format("kind must be training or inference, not '{}'", cell[kKind]->text));
    }
    job.parallelism = parallelism(job.gpus, cell, reader, sink);
    if (cell[kRequired]) job.required = cell[kRequired]->text;
    if (cell[kPreferred]) job.preferred = cell[kPreferred]->text;
    if (cell[kCommFraction])
      job.comm_fraction = csv::number(*cell[kCommFraction], reader, sink, "comm_fraction", 0, 1);
    if (cell[kPriority])
      job.priority = csv::integer(*cell[kPriority], reader, sink, "priority", -1'000'000'000, 1'000'000'000).value_or(0);
    if (cell[kTenant]) job.tenant = cell[kTenant]->text;
    if (cell[kModel]) job.accelerator_model = cell[kModel]->text;
    if (sink.size() == errors) trace.jobs.push_back(std::move(job));
  }
  sink.throw_if_any();
  return trace;
}

}  // namespace topoplan
