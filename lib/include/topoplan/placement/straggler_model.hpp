// The straggler model: a synchronous job (data-parallel training) waits at
// every step for its slowest member, so its step takes the compute time at
// the slowest member's speed plus the communication time,
//
//   step = compute / slowest_speed + communication,
//
// as in PAL (SC'24; its simulator charges a job the largest per-GPU slowdown
// among its GPUs). Speeds are relative (1.0 = nominal) and come from the
// topology's devices (`speed`, set by a topology file's overrides or by
// `--device-perf`, io/device_perf.hpp); a job that names a workload class
// (`perf_class`) sees that class's speeds where the topology has them
// (Topology::speed_classes), the devices' own otherwise. A job that gives no compute time is
// taken as compute-bound: its step scales with 1 / slowest_speed.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/planner.hpp"

namespace topoplan {

/// Whether any two accelerators of `topology` differ in speed, for jobs of
/// the default class or of any class.
bool has_speed_variation(const Topology& topology);

/// The speeds `job` sees: its class's, or null for the devices' own.
const SpeedClass* speed_class_of(const Topology& topology, const Job& job);

/// Checks jobs' classes against a performance file's (the topology's speed
/// classes, read from `file`): InputError with every job that names a class
/// the file lacks (when it has classes), and, when `no_default` is set (the
/// file's 'class' column, several classes and no default), every job that
/// names none, located there.
void check_perf_classes(const Topology& topology, std::span<const Job> jobs, const std::string& file,
                        const std::optional<SourceLocation>& no_default);

/// The lowest speed among the accelerators in `devices` (1.0 for none), as
/// jobs of `workload` see them (null: the devices' own speeds).
double slowest_speed(const Topology& topology, std::span<const DeviceId> devices,
                     const SpeedClass* workload = nullptr);

/// compute / slowest + communication; with compute == 0, 1 / slowest
/// (compute-bound, in units of the nominal step).
double estimated_step(double compute_seconds, double communication_seconds, double slowest);

/// The step at `slowest` against the same placement at nominal speed, less
/// one: 0.08 means 8 % slower than on nominal devices (negative when the
/// slowest member is faster than nominal).
double straggler_loss(double compute_seconds, double communication_seconds, double slowest);

/// A placed job under the model: its slowest replica's slowest member and
/// that replica's loss (communication: the placement's step_seconds, alone).
struct JobSpeed {
  double slowest_speed = 1.0;
  double straggler_loss = 0;
};
JobSpeed job_speed(const Topology& topology, const Job& job, const JobPlacement& placement);

}  // namespace topoplan
