// A seeded Monte Carlo of component failures under a plan: every component
// with a rate (io/failure_rates.hpp) fails as an independent Poisson
// process; a failure interrupts every job that uses the component (its
// accelerators, the domains holding them, the fabric of footprint.hpp) and
// keeps the replicas it hits down for the component's repair time.
//
// Deterministic for a seed on every platform: std::mt19937_64 (whose output
// the standard fixes) with our own uniform and exponential draws, never
// std::*_distribution (which differ between standard libraries).
#pragma once

#include <cstdint>
#include <vector>

#include "topoplan/io/failure_rates.hpp"
#include "topoplan/placement/planner.hpp"

namespace topoplan {

struct MonteCarloOptions {
  std::uint64_t seed = 1;
  double days = 30;           // length of each trial
  std::uint32_t trials = 1000;
};

struct JobReliability {
  std::size_t job = 0;                  // index into the plan
  double interruptions_per_day = 0;     // failures hitting it (any replica), mean over trials
  double interruptions_stderr = 0;      // standard error of that mean
  /// The same in closed form: the sum of the rates of everything it uses.
  double expected_per_day = 0;
  /// Share of trials in which it never ran with fewer replicas than it
  /// needs (a training job: was never interrupted).
  double guarantee_probability = 0;
};

struct MonteCarloResult {
  MonteCarloOptions options;
  double failures_per_day = 0;               // all components together (the sum of their rates)
  double accelerators_failed_per_day = 0;    // accelerators failures take out, per day
  double accelerator_hours_down_per_day = 0; // of them, hours out of service (repair time), per day
  double accelerators_interrupted_per_day = 0;  // accelerators of the jobs interrupted, per day
  std::vector<JobReliability> jobs;          // placed jobs, in plan order
};

/// Runs the trials for the placed jobs of `plan`.
MonteCarloResult monte_carlo(const Topology& topology, const Plan& plan, const std::vector<ComponentRate>& rates,
                             const MonteCarloOptions& options);

/// A uniform double in [0, 1) from the top 53 bits of one draw.
double uniform01(std::uint64_t bits);

}  // namespace topoplan
