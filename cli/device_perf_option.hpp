// `--device-perf FILE` and `--perf-class CLASS`: the devices' measured speeds
// and states (topoplan-formats(5), DEVICE PERFORMANCE), one option pair for
// every command that places or replays jobs (plan, evaluate, compare, check,
// whatif, simulate).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "topoplan/model/topology.hpp"

namespace topoplan::cli {

struct DevicePerfOption {
  std::string file;        // "" : none
  std::string perf_class;  // "" : the file's only class
};

/// Adds --device-perf and --perf-class to a command.
void add_device_perf_option(CLI::App& command, DevicePerfOption& option);

/// `topology` with the file's speeds and states applied; unchanged without
/// --device-perf. Throws InputError for --perf-class alone and for the
/// file's problems.
Topology with_device_perf(const DevicePerfOption& option, Topology topology);

}  // namespace topoplan::cli
