// `--device-perf FILE` and `--perf-class CLASS`: the devices' measured speeds
// and states (topoplan-formats(5), DEVICE PERFORMANCE), one option pair for
// every command that places or replays jobs (plan, evaluate, compare, check,
// whatif, simulate).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/job.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan::cli {

struct DevicePerfOption {
  std::string file;        // "" : none
  std::string perf_class;  // "" : the file's only class
  // Set by with_device_perf when the file has several classes and none is
  // the default: where its 'class' column is, for check_job_perf_classes.
  mutable std::optional<SourceLocation> classes_without_default;
};

/// Adds --device-perf and --perf-class to a command.
void add_device_perf_option(CLI::App& command, DevicePerfOption& option);

/// `topology` with the file's speeds and states applied; unchanged without
/// --device-perf. Throws InputError for --perf-class alone and for the
/// file's problems.
Topology with_device_perf(const DevicePerfOption& option, Topology topology);

/// Throws InputError for jobs naming a class the file lacks, and for jobs
/// naming none when the file has several classes and --perf-class is not
/// given (the error then located at the file's 'class' column).
void check_job_perf_classes(const DevicePerfOption& option, const Topology& topology, std::span<const Job> jobs);

}  // namespace topoplan::cli
