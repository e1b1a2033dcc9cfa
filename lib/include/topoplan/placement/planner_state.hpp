// The planner as an engine: a long-lived placement state over one topology,
// with small verbs. place() puts one job (all its replicas or none) where the
// policy chooses, release() frees it, occupy() accounts a placement made
// elsewhere, and the scenario mask says what is down or drained. Counts are
// kept incrementally, so each verb costs about the size of the job, not of
// the cluster.
//
// Batch planning (plan_jobs) is a loop over place(); what-if re-plans the
// jobs a mask change hits; the simulator places and releases jobs as they
// arrive and end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/placement/job.hpp"
#include "topoplan/placement/occupancy.hpp"
#include "topoplan/placement/planner.hpp"
#include "topoplan/placement/scenario_mask.hpp"

namespace topoplan {

class PlannerCore;

struct PlannerOptions {
  std::string policy = "topo";       // make_policy's names
  const PlanPricer* pricer = nullptr;  // prices candidates; may be null
  /// Work out why a job does not fit and what would (JobPlacement::reason
  /// and ::suggestion). A simulator retrying waiting jobs turns it off.
  bool explain = true;
};

class PlannerState {
 public:
  using JobId = std::uint32_t;

  struct PlaceResult {
    JobId id = kNone;         // kNone when the job was not placed
    JobPlacement placement;   // where it went, or why it did not
  };

  /// The topology (and the pricer) must outlive the state. Throws InputError
  /// for an unknown policy.
  PlannerState(const Topology& topology, PlannerOptions options = {});
  ~PlannerState();
  PlannerState(PlannerState&&) noexcept;
  PlannerState& operator=(PlannerState&&) noexcept;

  const Topology& topology() const;
  const Occupancy& occupancy() const;
  const PlannerOptions& options() const;

  /// Places `job`: every replica, or none. Throws InputError for a job the
  /// topology cannot interpret (a level it does not have, a whole-node job
  /// whose parallelism does not match the node size).
  PlaceResult place(const Job& job);
  /// Accounts a placement made elsewhere (an --occupied plan, a running
  /// job): its accelerators are taken as given. Accelerators already taken,
  /// unknown or unavailable are skipped. Domains an exclusive_level job keeps
  /// to itself stay its own.
  JobId occupy(const Job& job, const JobPlacement& placement);
  /// Frees a job's accelerators and the domains it kept to itself.
  void release(JobId id);

  /// Ids given out so far (released ones included); ids are dense from 0.
  std::size_t job_count() const;
  bool active(JobId id) const;
  const Job& job(JobId id) const;
  const JobPlacement& placement(JobId id) const;
  /// The job holding an accelerator (index into Topology::accelerators()),
  /// or kNone.
  JobId owner(std::uint32_t accel) const;

  /// What is down or drained. Setting a mask changes availability only where
  /// it differs from the current one; running jobs keep their accelerators
  /// (what-if decides what happens to them).
  const ScenarioMask& mask() const;
  void set_mask(const ScenarioMask& mask);

 private:
  std::unique_ptr<PlannerCore> core_;
};

}  // namespace topoplan
