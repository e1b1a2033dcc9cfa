// Prices jobs' placements with the cost model: the planner's PlanPricer over
// CostModel::step and CostModel::steps, with the workload defaults of
// topoplan-jobs(5) filled in from the job's parameter count.
#pragma once

#include "topoplan/cost/cost_model.hpp"
#include "topoplan/placement/planner.hpp"

namespace topoplan {

class JobPricer final : public PlanPricer {
 public:
  /// The topology must outlive the pricer.
  explicit JobPricer(const Topology& topology);

  double step_seconds(const Job& job, std::span<const DeviceId> ranks) const override;
  std::vector<double> shared_step_seconds(const std::vector<const Job*>& jobs,
                                          const std::vector<std::vector<DeviceId>>& ranks) const override;
  std::optional<StepCost> step_breakdown(const Job& job, std::span<const DeviceId> ranks) const override;
  const CostModel* cost_model() const override { return &model_; }

  /// The cost model's workload for a job: what the manifest gives, the rest
  /// from the parameter count by Llama 2/3 proportions (7B when absent).
  static Workload workload_of(const Job& job);
  /// The job's parallelism when it covers `ranks` accelerators, else pure
  /// data parallelism over them (whole-node jobs without a parallelism).
  static Parallelism parallelism_of(const Job& job, std::size_t ranks);

 private:
  CostModel model_;
};

}  // namespace topoplan
