#include "device_perf_option.hpp"

#include <vector>

#include "cli_support.hpp"
#include "topoplan/io/device_perf.hpp"
#include "topoplan/model/device_overrides.hpp"
#include "topoplan/placement/straggler_model.hpp"

namespace topoplan::cli {

void add_device_perf_option(CLI::App& command, DevicePerfOption& option) {
  command.add_option("--device-perf", option.file,
                     "per-device speeds and states (CSV: device,speed[,state][,class]; topoplan-formats(5))")
      ->option_text("FILE");
  command.add_option("--perf-class", option.perf_class, "the default workload class: its rows of --device-perf apply to jobs that name no perf_class")
      ->option_text("CLASS");
}

Topology with_device_perf(const DevicePerfOption& option, Topology topology) {
  if (option.file.empty()) {
    if (!option.perf_class.empty())
      throw InputError({}, "--perf-class chooses rows of --device-perf; give --device-perf FILE");
    return topology;
  }
  DevicePerf perf = read_device_perf_classes(read_input(option.file), option.file, topology, option.perf_class);
  option.classes_without_default.reset();
  if (perf.default_class.empty() && perf.classes.size() > 1)
    option.classes_without_default = SourceLocation{option.file, perf.header_line, perf.class_column};
  return with_speed_classes(with_device_overrides(topology, perf.overrides), std::move(perf.speed_classes));
}

void check_job_perf_classes(const DevicePerfOption& option, const Topology& topology, std::span<const Job> jobs) {
  if (option.file.empty()) return;
  check_perf_classes(topology, jobs, option.file, option.classes_without_default);
}

}  // namespace topoplan::cli
