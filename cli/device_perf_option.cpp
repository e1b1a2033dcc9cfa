#include "device_perf_option.hpp"

#include <vector>

#include "cli_support.hpp"
#include "topoplan/io/device_perf.hpp"
#include "topoplan/model/device_overrides.hpp"

namespace topoplan::cli {

void add_device_perf_option(CLI::App& command, DevicePerfOption& option) {
  command.add_option("--device-perf", option.file,
                     "per-device speeds and states (CSV: device,speed[,state][,class]; topoplan-formats(5))")
      ->option_text("FILE");
  command.add_option("--perf-class", option.perf_class, "the workload class whose rows of --device-perf apply")
      ->option_text("CLASS");
}

Topology with_device_perf(const DevicePerfOption& option, Topology topology) {
  if (option.file.empty()) {
    if (!option.perf_class.empty())
      throw InputError({}, "--perf-class chooses rows of --device-perf; give --device-perf FILE");
    return topology;
  }
  std::vector<DeviceOverride> overrides =
      read_device_perf(read_input(option.file), option.file, topology, option.perf_class);
  return with_device_overrides(topology, overrides);
}

}  // namespace topoplan::cli
