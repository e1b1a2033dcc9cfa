#include "topoplan/whatif/growth.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topoplan/io/topology_source.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/whatif/plan_state.hpp"

namespace topoplan {

std::string grown_topology_argument(const std::string& argument, const Topology& topology, const std::string& spec) {
  const SourceLocation where{"--add", 0, 0};
  TopologyArgument base = parse_topology_argument(argument);
  // `racks=4` alone is a tail of settings without a name.
  TopologyArgument add = spec.find(':') == std::string::npos ? parse_topology_argument(":" + spec)
                                                              : parse_topology_argument(spec);
  if (add.settings.values.empty())
    throw InputError(where, fmt::format("'{}' adds nothing; write [NAME:]KEY=N, e.g. {}:{}=1", spec, base.target,
                                        topology.parameters().empty() ? "racks" : topology.parameters().front().name));
  if (!add.target.empty() && add.target != base.target && add.target != topology.name())
    throw InputError(where, fmt::format("'{}' grows '{}', but the plan's cluster is '{}'", spec, add.target,
                                        base.target));
  std::vector<std::pair<std::string, long long>> values;
  for (const TopologyParameter& p : topology.parameters()) values.emplace_back(p.name, p.value);
  for (const auto& [key, text] : add.settings.values) {
    auto it = std::find_if(values.begin(), values.end(), [&key = key](const auto& v) { return v.first == key; });
    if (it == values.end()) {
      std::vector<std::string> names;
      for (const auto& v : values) names.push_back(v.first);
      if (names.empty())
        throw InputError(where, fmt::format("'{}' has no parameters to grow; write the larger cluster as a "
                                            "topology file and run whatif on it",
                                            topology.name()));
      std::string hint = did_you_mean(key, names);
      throw InputError(where, fmt::format("'{}' has no parameter '{}'; it has {}{}{}", topology.name(), key,
                                          fmt::join(names, ", "), hint.empty() ? "" : "; ", hint));
    }
    long long n = 0;
    std::size_t used = 0;
    try {
      n = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || n < 1 || n > 1'000'000)
      throw InputError(where, fmt::format("'{}={}': add a whole number of units, at least 1", key, text));
    it->second += n;
  }
  std::string out = base.target;
  for (std::size_t i = 0; i < values.size(); ++i)
    out += fmt::format("{}{}={}", i == 0 ? ":" : ",", values[i].first, values[i].second);
  return out;
}

GrowthResult grow(const Topology& before, const Topology& grown, const std::string& grown_argument, const Plan& plan,
                  const std::string& policy) {
  GrowthResult out;
  out.topology = grown_argument;
  out.policy = replan_policy(plan, policy);
  out.accelerators_before = before.accelerators().size();
  out.accelerators_after = grown.accelerators().size();
  for (LevelIndex l = 0; l < before.levels().size(); ++l) out.domains_before.push_back(before.domain_count_at(l));
  for (LevelIndex l = 0; l < grown.levels().size(); ++l) out.domains_after.push_back(grown.domain_count_at(l));

  JobPricer pricer(grown);
  PlannerOptions po;
  po.policy = out.policy;
  po.pricer = &pricer;
  PlanState ps = occupy_plan(grown, plan, po);
  out.after = plan;
  out.after.topology = grown_argument;
  for (std::size_t j : queue_order(plan)) {
    if (plan.placements[j].placed) continue;
    PlannerState::PlaceResult r = ps.state.place(plan.jobs[j]);
    out.after.placements[j] = r.placement;
    (r.id != kNone ? out.now_fit : out.still_unplaced).push_back(j);
  }
  std::sort(out.now_fit.begin(), out.now_fit.end());
  std::sort(out.still_unplaced.begin(), out.still_unplaced.end());
  price_plan(grown, out.after, &pricer);
  return out;
}

}  // namespace topoplan
