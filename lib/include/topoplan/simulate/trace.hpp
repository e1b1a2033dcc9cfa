// A job trace: the jobs a simulation replays, each with when it arrived, how
// many accelerators it asked for and how long it ran, read from topoplan's
// native CSV or from a public trace (topoplan-formats(5), TRACES). Readers
// turn their format into this; what a format does not say is filled by a
// documented assumption and recorded in Trace::assumptions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/cost/step_cost.hpp"
#include "topoplan/placement/job.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

struct TraceJob {
  std::string id;
  double submit_s = 0;       // arrival, seconds from the trace's origin
  std::uint32_t gpus = 0;    // accelerators
  double duration_s = 0;     // run time as the trace measured it
  JobKind kind = JobKind::training;
  std::optional<Parallelism> parallelism;  // tp x pp x dp (ep within dp) == gpus
  std::optional<std::string> required;     // level: all in one domain
  std::optional<std::string> preferred;    // level: as few domains as possible
  std::optional<double> comm_fraction;     // share of the duration spent communicating
  std::int64_t priority = 0;
  std::string tenant;
  std::string accelerator_model;  // glob; "" = any
  SourceLocation where;
};

struct Trace {
  std::string name;    // as given on the command line
  std::string format;  // "csv", "gavel", "openb", "acme"
  std::vector<TraceJob> jobs;  // file order
  /// What the reader assumed where the format is silent, one line each, and
  /// what it left out ("skipped 1,088 CPU-only pods").
  std::vector<std::string> assumptions;
};

/// Settings of a TRACE argument (`FILE:key=value,...`), which only some
/// formats take (acme: cluster, jobs, load, seed; openb: sharing).
struct TraceSettings {
  std::vector<std::pair<std::string, std::string>> values;
  std::string origin;  // the whole argument, for errors
};

struct TraceOptions {
  TraceSettings settings;
  /// Accelerators of the cluster the trace is replayed on (for a synthetic
  /// trace's arrival rate).
  std::uint64_t accelerators = 0;
  /// The name of that cluster's host level. Formats whose jobs are single
  /// Kubernetes pods (openb), which run on one node, require it; empty:
  /// nothing is required.
  std::string host_level;
};

/// Hard limits against hostile input.
struct TraceLimits {
  static constexpr std::size_t max_jobs = 2'000'000;
  static constexpr std::size_t max_line = 1 << 16;      // bytes
  static constexpr std::uint32_t max_gpus = 1'000'000;  // per job
  static constexpr double max_seconds = 1e10;           // ~300 years
};

/// Splits `FILE:key=value,...`: the settings start at the last ':' whose
/// remainder holds '=' and no '/' (so paths with colons still work).
std::pair<std::string, TraceSettings> parse_trace_argument(std::string_view argument);

/// Reads a trace, telling the format by its content: the native CSV (a header
/// with id,submit_s,gpus,duration_s), a Gavel trace (tab-separated, 7 or 10
/// fields), an Alibaba openb pod list (name,cpu_milli,...,num_gpu,...) or the
/// AcmeTrace cluster summary (synthesised). Throws InputError with every
/// problem found (FILE:LINE:COL), or for settings the format does not take.
Trace read_trace(std::string_view text, const std::string& file, const TraceOptions& options);

/// The trace formats, for --help and errors.
std::vector<std::string> trace_format_names();

}  // namespace topoplan
