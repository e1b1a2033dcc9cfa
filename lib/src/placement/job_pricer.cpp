#include "topoplan/placement/job_pricer.hpp"

#include <algorithm>
#include <cmath>

#include "topoplan/placement/service.hpp"
#include "topoplan/placement/service_latency.hpp"

namespace topoplan {

namespace {

// A 7B-class model when the manifest says nothing about size.
constexpr double kDefaultParameters = 7e9;
// Llama 2/3 proportions (model cards: 7B 32 layers x 4096 hidden, 70B 80 x
// 8192, 405B 126 x 16384): layers grow with the cube root of the parameter
// count, and parameters ~= 12 x layers x hidden^2 for a transformer block.
constexpr double kReferenceLayers = 32;
constexpr double kReferenceParameters = 7e9;
// One micro-batch of one 4096-token sequence in bf16 at a layer boundary.
constexpr double kDefaultTokens = 4096;
constexpr double kActivationBytesPerValue = 2;

}  // namespace

JobPricer::JobPricer(const Topology& topology) : model_(topology) {}

Workload JobPricer::workload_of(const Job& job) {
  const JobWorkload& w = job.workload;
  double parameters = w.parameters > 0 ? w.parameters : kDefaultParameters;
  std::uint32_t layers = w.layers;
  if (layers == 0)
    layers = std::max<std::uint32_t>(
        1, static_cast<std::uint32_t>(std::lround(kReferenceLayers * std::cbrt(parameters / kReferenceParameters))));
  double hidden = std::sqrt(parameters / (12.0 * layers));

  Workload out;
  out.training = job.kind == JobKind::training;
  out.gradient_bytes = w.gradient_bytes > 0 ? w.gradient_bytes : parameters * w.bytes_per_parameter;
  out.sharded_data_parallel = w.sharded;
  out.activation_bytes = w.activation_bytes > 0 ? w.activation_bytes : kDefaultTokens * hidden * kActivationBytesPerValue;
  out.layers = layers;
  out.micro_batches = w.micro_batches > 0 ? w.micro_batches : (job.parallelism.pp > 1 ? 4 * job.parallelism.pp : 1);
  out.moe_dispatch_bytes = w.expert_bytes;
  out.moe_combine_bytes = w.expert_combine_bytes;
  out.moe_layers = w.moe_layers > 0 ? w.moe_layers : (w.expert_bytes > 0 ? layers : 0);
  out.ep_kernel = w.ep_kernel;
  out.ep_message_bytes = w.ep_message_bytes;
  return out;
}

Parallelism JobPricer::parallelism_of(const Job& job, std::size_t ranks) {
  if (job.parallelism.ranks() == ranks) return job.parallelism;
  Parallelism p;
  p.dp = static_cast<std::uint32_t>(ranks);
  return p;
}

double JobPricer::step_seconds(const Job& job, std::span<const DeviceId> ranks) const {
  if (ranks.empty()) return 0;
  // A service whose workload prices its requests costs what the slice adds
  // to one request, as in price_plan, so the policies' candidates are
  // weighed by the plan's own objective.
  if (job.service) {
    const std::vector<DeviceId> slice(ranks.begin(), ranks.end());
    const double request = request_communication_seconds(
        model_.topology(), *job.service, assign_roles(model_.topology(), *job.service, slice), model_, &job.workload);
    if (request >= 0) return request;
  }
  return model_.step(ranks, parallelism_of(job, ranks.size()), workload_of(job)).seconds();
}

std::optional<StepCost> JobPricer::step_breakdown(const Job& job, std::span<const DeviceId> ranks) const {
  if (ranks.empty()) return std::nullopt;
  return model_.step(ranks, parallelism_of(job, ranks.size()), workload_of(job));
}

std::vector<double> JobPricer::shared_step_seconds(const std::vector<const Job*>& jobs,
                                                   const std::vector<std::vector<DeviceId>>& ranks) const {
  std::vector<StepQuery> queries;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!jobs[i] || ranks[i].empty()) continue;
    StepQuery q;
    q.ranks = ranks[i];
    q.parallelism = parallelism_of(*jobs[i], ranks[i].size());
    q.workload = workload_of(*jobs[i]);
    queries.push_back(q);
    index.push_back(i);
  }
  std::vector<double> out(jobs.size(), -1);
  std::vector<StepCost> costs = model_.steps(queries);
  for (std::size_t k = 0; k < costs.size(); ++k) out[index[k]] = costs[k].seconds();
  return out;
}

}  // namespace topoplan
