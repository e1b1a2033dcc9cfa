// The planner: places a queue of jobs (priority, then file order) onto a
// topology with one policy, on top of an optional existing occupancy, with gang
// semantics (all replicas or none), spreading, replicas kept in one domain,
// domains kept to one job, tenant isolation and pricing.
// Jobs that do not fit get a reason and, where one exists, what would work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topoplan/cost/step_cost.hpp"
#include "topoplan/placement/job.hpp"
#include "topoplan/placement/policy.hpp"

namespace topoplan {

class CostModel;

struct JobPlacement {
  bool placed = false;
  bool occupied = false;   // came from --occupied: not planned, only accounted
  /// Devices of each replica in rank order (one entry for training jobs).
  std::vector<std::vector<DeviceId>> replicas;
  std::string reason;      // why it was not placed
  std::string suggestion;  // what would work instead, or ""
  /// Communication seconds per step (training) or per request (inference) on
  /// this placement with the links to itself; the slowest replica. < 0 when
  /// no pricer was given.
  double step_seconds = -1;
  /// The same with the plan's other jobs sharing links. < 0 when unpriced.
  double shared_step_seconds = -1;
  /// step_seconds by parallelism (TP, PP, DP, EP: time and where each runs),
  /// of the slowest replica alone; empty when the pricer gives none.
  std::optional<StepCost> breakdown;
  /// Constraints a placed job violates (check_placement), e.g. in a plan
  /// from another scheduler or from the naive policy.
  std::vector<std::string> problems;
  /// Pods per node, for policies that place pods (kueue): what Kueue's
  /// topology assignment says, pod group by pod group, nodes in its order.
  struct NodePods {
    std::uint32_t group = 0;  // pod group (Kueue workload) of the job
    std::string pod_set;
    DomainId node = kNone;
    std::uint32_t pods = 0;
    ResourceList per_pod;  // each pod's requests other than accelerators (what release gives back)
  };
  std::vector<NodePods> pods;
  /// Whole nodes a shaped job keeps free beside it (its `spare` level).
  std::vector<DomainId> spares;

  std::size_t device_count() const {
    std::size_t n = 0;
    for (const auto& r : replicas) n += r.size();
    return n;
  }
};

struct LevelFree {
  std::string level;
  std::uint32_t largest_free = 0;  // most free accelerators in one domain of the level
  std::uint32_t free_domains = 0;  // domains of the level with every usable accelerator free
};

struct PlanSummary {
  std::size_t jobs = 0;
  std::size_t placed = 0;
  std::size_t unplaced = 0;
  std::uint64_t accelerators = 0;       // in the topology
  std::uint64_t accelerators_used = 0;  // by this plan's jobs
  std::uint64_t accelerators_occupied = 0;  // by --occupied
  std::uint64_t accelerators_free = 0;
  std::uint64_t accelerators_unavailable = 0;  // down or draining
  std::uint64_t accelerators_down_used = 0;    // held by placed jobs although down
  std::size_t jobs_on_down = 0;                // placed jobs holding a down accelerator
  double step_seconds_total = 0;        // sum over placed, priced jobs (shared)
  std::vector<LevelFree> levels;        // coarsest first
};

/// A plan: jobs in file order and where each went.
struct Plan {
  std::string topology;  // as given on the command line
  std::string policy;
  std::vector<Job> jobs;
  std::vector<JobPlacement> placements;  // placements[i] is jobs[i]'s
  PlanSummary summary;
};

/// Prices several placed jobs at once, with their traffic sharing links.
class PlanPricer : public PlacementPricer {
 public:
  /// Seconds per step of each job, given all of them; entries of unplaced
  /// jobs are ignored. Default: each job alone.
  virtual std::vector<double> shared_step_seconds(const std::vector<const Job*>& jobs,
                                                  const std::vector<std::vector<DeviceId>>& ranks) const;
  /// The step of `job` on `ranks` by parallelism; nullopt (the default) when
  /// the pricer cannot break it down. Its seconds() is step_seconds().
  virtual std::optional<StepCost> step_breakdown(const Job& job, std::span<const DeviceId> ranks) const;
  /// The cost model behind the pricer, for checks that price alternatives
  /// (locality_check.hpp); nullptr (the default) when there is none.
  virtual const CostModel* cost_model() const;
};

struct PlanOptions {
  std::string policy = "topo";
  std::string topology_name;         // recorded in the plan
  const PlanPricer* pricer = nullptr;
  const Plan* occupied = nullptr;    // accelerators already taken
  const RunningPods* running = nullptr;  // pods already on the nodes (their accelerators are taken too)
};

/// Places `jobs` and returns the plan. Throws InputError for inputs that
/// cannot be planned at all (a level the topology does not have, a whole-node
/// job whose parallelism does not match the node size).
Plan plan_jobs(const Topology& topology, std::vector<Job> jobs, const PlanOptions& options);

/// Fills in summary, costs (alone and shared) and constraint problems; also
/// for a plan whose placements were set by hand or by another tool (`evaluate`).
void price_plan(const Topology& topology, Plan& plan, const PlanPricer* pricer);

}  // namespace topoplan
