// A failure or a drain, played out on a plan: the blast radius, then the
// jobs that must move re-placed on what is left (in the planner's queue
// order, through PlannerState::move_replicas; under the topo policy, then
// the improvement pass plan runs, over the jobs moved whole; everything else
// stays where it is), and both plans priced, the second on the fabric the
// scenario leaves (without_links), so degraded jobs show their new step time.
//
// A failure frees the replicas it hits before they are re-placed (their
// healthy accelerators may be reused). A drain is planned maintenance: a
// service's replica moves before the old one stops (make before break), so
// the service keeps its replicas; a training job stops and restarts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topoplan/placement/planner.hpp"
#include "topoplan/whatif/blast_radius.hpp"
#include "topoplan/whatif/scenario.hpp"

namespace topoplan {

enum class ScenarioKind : std::uint8_t { fail, drain };

struct ReplanOptions {
  ScenarioKind kind = ScenarioKind::fail;
  std::string policy;  // "" = the plan's (replan_policy)
};

/// What happened to one job the scenario hit.
struct JobChange {
  std::size_t job = 0;                 // index into the plan
  std::vector<std::uint32_t> moved;    // replicas given new places
  std::vector<std::vector<DeviceId>> moved_to;  // where each went (parallel to `moved`)
  std::vector<std::uint32_t> stopped;  // replicas that stop: no room elsewhere
  std::vector<std::uint32_t> waiting;  // drain: replicas that cannot move yet, so the drain waits
  std::string reason;                  // why some could not move
  std::uint64_t accelerators_moved = 0;
};

struct ScenarioResult {
  ScenarioKind kind = ScenarioKind::fail;
  std::vector<Target> targets;
  std::string policy;                // the re-plan's
  BlastRadius radius;
  Plan before;                       // the plan as given, priced
  /// Unaffected jobs where they were, moved ones where they went, priced
  /// on what the scenario leaves of the fabric; a service that lost
  /// replicas it could not re-place keeps the ones it has.
  Plan after;
  std::vector<JobChange> changes;    // per job of radius.jobs, in the same order
  bool fabric_changed = false;       // links are out: `after` is priced without them
};

/// Plays `targets` failing or draining on `plan`.
ScenarioResult run_scenario(const Topology& topology, const Plan& plan, const std::vector<Target>& targets,
                            const ReplanOptions& options);

}  // namespace topoplan
