#include "topoplan/whatif/plan_state.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "topoplan/placement/occupancy.hpp"
#include "topoplan/placement/policy.hpp"

namespace topoplan {

PlanState occupy_plan(const Topology& topology, const Plan& plan, PlannerOptions options) {
  PlanState out{PlannerState(topology, std::move(options)), {}};
  out.ids.assign(plan.jobs.size(), kNone);
  for (std::size_t j = 0; j < plan.jobs.size() && j < plan.placements.size(); ++j)
    if (plan.placements[j].placed) out.ids[j] = out.state.occupy(plan.jobs[j], plan.placements[j]);
  return out;
}

std::string replan_policy(const Plan& plan, const std::string& requested) {
  if (!requested.empty()) return requested;
  const std::vector<std::string> known = policy_names();
  return std::find(known.begin(), known.end(), plan.policy) != known.end() ? plan.policy : "topo";
}

std::size_t plan_job_index(const Plan& plan, const std::string& name, const std::string& option) {
  std::vector<std::string> names;
  for (std::size_t j = 0; j < plan.jobs.size(); ++j) {
    if (plan.jobs[j].name == name) return j;
    names.push_back(plan.jobs[j].name);
  }
  std::string hint = did_you_mean(name, names);
  throw InputError({option, 0, 0}, fmt::format("no job '{}' in the plan{}{}", name, hint.empty() ? "" : "; ", hint));
}

std::vector<std::size_t> queue_order(const Plan& plan) {
  std::vector<std::size_t> order(plan.jobs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return plan.jobs[a].priority > plan.jobs[b].priority; });
  return order;
}

void count_free(const Topology& t, const ScenarioMask& mask, Plan& plan) {
  Occupancy occ(t);
  for (std::size_t j = 0; j < plan.placements.size(); ++j)
    if (plan.placements[j].placed)
      for (const auto& replica : plan.placements[j].replicas)
        for (DeviceId d : replica)
          if (std::uint32_t a = t.accelerator_index(d); a != kNone) occ.take(a, static_cast<std::uint32_t>(j));
  for (std::uint32_t a = 0; a < t.accelerators().size(); ++a)
    if (mask.accelerator(a) != DeviceState::up) occ.set_available(a, false);
  PlanSummary& s = plan.summary;
  s.accelerators_free = occ.free_in(t.root());
  s.accelerators_unavailable = s.accelerators - occ.usable_in(t.root());
  s.levels.resize(t.levels().size());
  for (LevelIndex l = 0; l <= t.host_level(); ++l) {
    LevelFree& lf = s.levels[l];
    lf.level = t.levels()[l].name;
    lf.largest_free = 0;
    lf.free_domains = 0;
    auto [first, last] = t.domains_at(l);
    for (DomainId d = first; d < last; ++d) {
      lf.largest_free = std::max(lf.largest_free, occ.free_in(d));
      lf.free_domains += occ.usable_in(d) > 0 && occ.free_in(d) == occ.usable_in(d) ? 1u : 0u;
    }
  }
}

}  // namespace topoplan
