// The simulator: replays a trace on a topology under one placement policy,
// as an event loop over the planner engine's verbs (PlannerState): an
// arrival queues a job, a pass places waiting jobs that fit, a completion
// releases one, a failure masks a component and sends the jobs it hits back
// to the queue, a repair unmasks it.
//
// The queue and the backfill rule are the same for every policy (documented
// in topoplan(1), SIMULATION):
//   - waiting jobs are tried by priority (higher first), then arrival, then
//     trace order;
//   - EASY backfilling (Lifka, 1995): the first waiting job that cannot
//     start gets a reservation at the earliest time enough accelerators will
//     be free by the running jobs' end times (counted, not placed); a later
//     job may start before it only if it fits now and either ends by then
//     (by its trace duration) or uses only accelerators the reservation does
//     not need;
//   - a job that did not fit is not tried again until something was
//     released, unless a job of another shape was;
//   - a job the policy cannot place even on the empty cluster never starts.
// A job's run time is its trace duration stretched by the slowdown model
// (slowdown.hpp) for the placement it got.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/io/failure_rates.hpp"
#include "topoplan/model/topology.hpp"
#include "topoplan/simulate/slowdown.hpp"
#include "topoplan/simulate/trace.hpp"

namespace topoplan {

struct SimulationOptions {
  SlowdownModel slowdown;
  const FailureRates* failures = nullptr;  // null: nothing fails
  std::uint64_t seed = 1;                  // of the failure stream
  /// How often running jobs checkpoint (wall clock); a failed job restarts
  /// from its last checkpoint. 0: never, a failed job starts over.
  double checkpoint_interval_s = 1800;
  /// Points of the timeline (between this and twice this many).
  std::size_t samples = 100;
  /// Called now and then with the fraction of jobs done, in [0, 1].
  std::function<void(double)> progress;
};

/// What became of one job of the trace.
struct JobOutcome {
  double submit_s = 0;
  double start_s = -1;      // first start; < 0: never started
  double end_s = -1;        // completion; < 0: did not complete
  double slowdown = 1;      // run-time factor of the attempt that completed it
  double step_s = -1;       // its communication seconds per step there (< 0: unpriced)
  double ideal_step_s = -1; // the same on the ideal placement
  double comm_fraction = 0;
  std::uint32_t restarts = 0;  // times a failure sent it back to the queue
  /// Waited although enough accelerators were free in total: the policy
  /// found no placement among them (fragmentation, constraints).
  bool blocked_by_placement = false;
  std::string reason;       // why it never started
};

/// The cluster at one instant of the timeline.
struct TimelinePoint {
  double time_s = 0;
  double utilisation = 0;  // busy accelerators over all, averaged since the previous point
  std::uint32_t running = 0;
  std::uint32_t waiting = 0;
  /// Per level (coarsest first): the most free accelerators in one domain.
  std::vector<std::uint32_t> largest_free;
};

/// One policy's run over the whole trace.
struct PolicyRun {
  std::string policy;
  std::vector<JobOutcome> jobs;  // trace order
  std::vector<TimelinePoint> timeline;
  double start_s = 0;              // first arrival
  double end_s = 0;                // last completion (or the last event)
  double busy_accelerator_s = 0;   // integral of busy accelerators over time
  std::uint64_t accelerators = 0;  // of the topology
  std::uint64_t failures = 0;      // component failures drawn
  std::uint64_t jobs_hit = 0;      // restarts caused by them
  double lost_accelerator_s = 0;   // work since the last checkpoint, lost
};

class Simulator {
 public:
  /// Checks every job against the topology (levels, models, parallelism)
  /// and reports all problems at once (InputError). The topology and trace
  /// must outlive the simulator.
  Simulator(const Topology& topology, const Trace& trace, SimulationOptions options);
  ~Simulator();

  /// Runs the trace under one policy (make_policy's names).
  PolicyRun run(std::string_view policy) const;

  struct Impl;  // opaque: the jobs, their shapes and ideal placements

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace topoplan
