// How much longer a job runs on the placement it got than on an ideal one.
// This model is ours (topoplan-formats(5), TRACES, and topoplan(1),
// SIMULATION): a trace's duration was measured on a good placement; the share
// `f` of it that is communication stretches by the cost model's step time on
// the job's placement over its step time on an ideal placement (all ranks in
// the fewest NVLink domains, on an empty cluster); the rest is unchanged:
//
//   factor = 1 + scale * f * (step(placement) / step(ideal) - 1),  never < 1
//
// `scale` lets users weigh the model down or up, since published figures for
// placement effects differ widely (CASSINI, NSDI'24: up to 1.6x mean and 2.5x
// tail JCT from network-aware placement; Crux, SIGCOMM'24: contention
// lengthened a GPT iteration by 11.0 %, 1.53 s to 1.70 s).
#pragma once

#include <cstdint>
#include <optional>

namespace topoplan {

struct SlowdownModel {
  double scale = 1.0;  // 0 switches the model off
  /// The communication share of jobs whose trace gives none; nullopt: by
  /// size (default_comm_fraction).
  std::optional<double> comm_fraction;

  /// Our default communication share of a job's duration by its size: none
  /// for one accelerator, 0.10 inside a typical node (2-8), 0.20 up to 64,
  /// 0.30 beyond. An assumption, not a measurement: exposed (not overlapped)
  /// communication grows with the number of ranks.
  static double default_comm_fraction(std::uint32_t accelerators);

  /// The share used for a job: its own, else the flag's, else by size.
  double comm_fraction_for(std::optional<double> own, std::uint32_t accelerators) const;

  /// The run-time factor for a communication share `f` and the step times on
  /// the placement and on the ideal one (1 when the ideal costs nothing).
  double factor(double f, double step_s, double ideal_step_s) const;
};

}  // namespace topoplan
