// The per-device performance file of `--device-perf` (format in
// topoplan-formats(5), DEVICE PERFORMANCE): CSV with a header naming its
// columns, one row per device or glob of devices.
//
//   device,speed,state,class
//   r0000-n00/gpu3,0.93,up,sgemm
//   r0000-n01/*,,drain,
//
// `device` is an accelerator name or a glob on names. The speed is one of:
// `speed` (relative, 1.0 = nominal, larger is faster); a column whose name
// holds `tflops` (measured throughput, larger is faster); or `duration`,
// `perf` or a column whose name holds `seconds` (a measured run time, larger
// is slower, as PAL's `perf`). Measurements are made relative to their
// median over the rows that apply, so the median device has speed 1.0.
// `state` (up, drain, down) and `class` (a workload class, as PAL measures
// per application class) are optional; other columns are ignored, so
// measurements can carry their context. A class sees the class-less rows and
// its own, which win where both name a device; later rows win among equals.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/device_overrides.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan {

/// What a performance file says: the default speeds and states (rows of
/// the default class and class-less rows), and each class's speeds.
struct DevicePerf {
  std::vector<DeviceOverride> overrides;  // the default, in device order
  std::vector<SpeedClass> speed_classes;  // one per class of the file, by name
  std::vector<std::string> classes;       // the classes' names, sorted
  std::string default_class;              // "--perf-class", or the file's only class; "" : class-less rows
  int header_line = 1;
  int class_column = 1;                   // of the header's 'class'
};

/// The default and per-class speeds `text` (the file `file`) gives
/// `topology`'s accelerators, `workload_class` (or a file's only class) the
/// default. Throws InputError with every problem, as read_device_perf, but
/// not for several classes without a default: jobs may each name theirs.
DevicePerf read_device_perf_classes(std::string_view text, const std::string& file, const Topology& topology,
                                    const std::string& workload_class = "");

/// The overrides `text` (the file `file`) makes on `topology`'s
/// accelerators: rows whose class is `workload_class` and rows without a
/// class. Throws InputError with every problem (FILE:LINE:COL): no header,
/// no device or speed column, two speed columns, a value that is not a
/// positive number, an unknown state, a device that matches nothing, a file
/// with several classes and none chosen, a class no row has.
std::vector<DeviceOverride> read_device_perf(std::string_view text, const std::string& file, const Topology& topology,
                                             const std::string& workload_class = "");

}  // namespace topoplan
