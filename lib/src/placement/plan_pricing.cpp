// price_plan: what a plan costs (each job alone and with the others sharing
// links), what it leaves free per level, and which constraints it breaks.
#include <algorithm>

#include "price_cache.hpp"
#include "topoplan/placement/locality_check.hpp"
#include "topoplan/placement/occupancy.hpp"
#include "topoplan/placement/placement_check.hpp"
#include "topoplan/placement/planner.hpp"
#include "topoplan/placement/service_latency.hpp"
#include "topoplan/placement/service_report.hpp"

namespace topoplan {

std::vector<double> PlanPricer::shared_step_seconds(const std::vector<const Job*>& jobs,
                                                    const std::vector<std::vector<DeviceId>>& ranks) const {
  std::vector<double> out(jobs.size(), -1);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i] && !ranks[i].empty()) out[i] = step_seconds(*jobs[i], ranks[i]);
  return out;
}

std::optional<StepCost> PlanPricer::step_breakdown(const Job&, std::span<const DeviceId>) const {
  return std::nullopt;
}

const CostModel* PlanPricer::cost_model() const { return nullptr; }

void price_plan(const Topology& topology, Plan& plan, const PlanPricer* pricer) {
  PlanSummary& s = plan.summary;
  s = PlanSummary();
  s.jobs = plan.jobs.size();
  s.accelerators = topology.accelerators().size();
  Occupancy occ(topology);
  std::vector<const Job*> jobs;
  std::vector<std::vector<DeviceId>> ranks;
  std::vector<std::pair<std::size_t, std::size_t>> owners;  // (job, replica) per priced entry
  for (std::size_t j = 0; j < plan.placements.size(); ++j) {
    JobPlacement& p = plan.placements[j];
    if (!p.placed) {
      ++s.unplaced;
      continue;
    }
    ++s.placed;
    std::uint64_t down = 0;
    for (const auto& replica : p.replicas)
      for (DeviceId d : replica) down += is_accelerator(topology.device(d).kind) && topology.device(d).state == DeviceState::down;
    s.accelerators_down_used += down;
    s.jobs_on_down += down > 0 ? 1 : 0;
    for (std::size_t r = 0; r < p.replicas.size(); ++r) {
      for (DeviceId d : p.replicas[r]) {
        std::uint32_t a = topology.accelerator_index(d);
        if (a != kNone && occ.is_free(a)) {
          occ.take(a, static_cast<std::uint32_t>(j));
          ++s.accelerators_used;
        }
      }
      jobs.push_back(&plan.jobs[j]);
      ranks.push_back(p.replicas[r]);
      owners.emplace_back(j, r);
    }
  }
  if (pricer) {
    std::vector<double> shared = pricer->shared_step_seconds(jobs, ranks);
    // Alone, equal shapes cost the same: price (and break down) each shape once.
    PriceCache alone_prices(topology, *pricer);
    // A service whose workload prices its requests costs what a slice adds
    // to one request's first and next token (service_latency.hpp), alone
    // and shared alike; it has no training step to break down.
    const std::vector<double> request = service_request_prices(topology, jobs, ranks, pricer->cost_model());
    // The breakdown shown is the dearest replica's, priced once per job.
    std::vector<std::size_t> dearest(plan.placements.size(), owners.size());
    for (std::size_t i = 0; i < owners.size(); ++i) {
      JobPlacement& p = plan.placements[owners[i].first];
      if (request[i] >= 0) shared[i] = request[i];
      double alone = request[i] >= 0 ? request[i] : alone_prices.step_seconds(*jobs[i], ranks[i]);
      std::size_t& d = dearest[owners[i].first];
      if (d == owners.size() || alone > p.step_seconds) d = i;
      p.step_seconds = std::max(p.step_seconds, alone);
      p.shared_step_seconds = std::max(p.shared_step_seconds, shared[i]);
    }
    for (std::size_t j = 0; j < plan.placements.size(); ++j)
      if (dearest[j] < owners.size() && request[dearest[j]] < 0)
        plan.placements[j].breakdown = alone_prices.step_breakdown(*pricer, *jobs[dearest[j]], ranks[dearest[j]]);
    for (const JobPlacement& p : plan.placements)
      if (p.placed && p.shared_step_seconds > 0) s.step_seconds_total += p.shared_step_seconds;
  }
  for (LevelIndex l = 0; l <= topology.host_level(); ++l) {
    LevelFree lf;
    lf.level = topology.levels()[l].name;
    auto [first, last] = topology.domains_at(l);
    for (DomainId d = first; d < last; ++d) {
      lf.largest_free = std::max(lf.largest_free, occ.free_in(d));
      lf.free_domains += occ.usable_in(d) > 0 && occ.free_in(d) == occ.usable_in(d) ? 1u : 0u;
    }
    s.levels.push_back(lf);
  }
  s.accelerators_free = occ.free_in(topology.root());
  s.accelerators_unavailable = s.accelerators - occ.usable_in(topology.root());
  std::vector<std::vector<std::string>> problems = check_plan(topology, plan);
  for (std::size_t j = 0; j < plan.placements.size(); ++j) {
    JobPlacement& p = plan.placements[j];
    p.problems.clear();
    if (p.placed) p.problems = std::move(problems[j]);
    if (p.placed && pricer) add_locality_problems(topology, plan, j, pricer->cost_model(), p.problems);
    if (p.placed && plan.jobs[j].service)
      add_service_problems(topology, plan, j, pricer ? pricer->cost_model() : nullptr, p.problems);
  }
}

}  // namespace topoplan
