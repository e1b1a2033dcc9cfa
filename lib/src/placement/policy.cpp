#include "topoplan/placement/policy.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topoplan/placement/kueue_policy.hpp"
#include "topoplan/placement/slurm_policy.hpp"
#include "topoplan/placement/topo_policy.hpp"

namespace topoplan {

std::vector<std::uint32_t> replica_capacity(const CapacityView& view, const WithinRequest& request) {
  const Topology& t = view.topology();
  const LevelIndex level = request.level;
  const std::uint32_t units = std::max(1u, request.replica.units);
  // Replicas fit whole into domains of `inner`; with spread, each domain of
  // that level counts once.
  const LevelIndex inner = std::max(request.replica.required.value_or(level), level);
  auto [first, last] = t.domains_at(level);
  std::vector<std::uint32_t> out(last - first, 0);
  std::vector<std::uint32_t> per(t.domain_count(), 0);
  auto [inner_first, inner_last] = t.domains_at(inner);
  for (DomainId d = inner_first; d < inner_last; ++d) per[d] = view.count(d) / units;
  if (request.spread && *request.spread > level) {
    const LevelIndex spread = *request.spread;
    auto [spread_first, spread_last] = t.domains_at(spread);
    if (inner > spread) {
      for (DomainId d = inner_first; d < inner_last; ++d) per[t.ancestor(d, spread)] += per[d];
    } else if (inner < spread) {
      // A replica may span domains of the spread level; count those that hold one alone.
      for (DomainId d = spread_first; d < spread_last; ++d) per[d] = view.count(d) / units;
    }
    for (DomainId d = spread_first; d < spread_last; ++d)
      out[t.ancestor(d, level) - first] += std::min<std::uint32_t>(1, per[d]);
    return out;
  }
  for (DomainId d = inner_first; d < inner_last; ++d) out[t.ancestor(d, level) - first] += per[d];
  if (request.spread)  // at or above `level`: one replica per domain at most
    for (std::uint32_t& n : out) n = std::min<std::uint32_t>(1, n);
  return out;
}

std::string PlacementPolicy::why_not(const CapacityView&, const PlaceRequest&) const { return {}; }

std::optional<std::vector<DomainId>> PlacementPolicy::within_domains(const CapacityView& view,
                                                                     const WithinRequest& request) const {
  auto [first, last] = view.topology().domains_at(request.level);
  std::vector<std::uint32_t> capacity = replica_capacity(view, request);
  std::vector<DomainId> out;
  for (DomainId d = first; d < last; ++d)
    if (capacity[d - first] >= request.replicas) out.push_back(d);
  std::stable_sort(out.begin(), out.end(), [&, first = first](DomainId a, DomainId b) {
    if (capacity[a - first] != capacity[b - first]) return capacity[a - first] < capacity[b - first];
    return view.count(a) < view.count(b);
  });
  return out;
}

std::uint32_t PlacementPolicy::pod_groups(const Job&) const { return 0; }

void PlacementPolicy::nodes_changed(const std::vector<DomainId>&) const {}

PodPlacement PlacementPolicy::place_pods(const CapacityView&, const PlaceRequest&) const {
  PodPlacement p;
  p.reason = fmt::format("the '{}' policy places accelerators, not pods", name());
  return p;
}

std::vector<std::string> policy_names() { return {"topo", "kueue", "slurm", "slurm-22.05", "naive"}; }

std::unique_ptr<PlacementPolicy> make_policy(std::string_view name, const Topology& topology) {
  if (name == "topo") return std::make_unique<TopoPolicy>();
  if (name == "kueue" || name.starts_with("kueue:"))
    return std::make_unique<KueuePolicy>(topology, parse_kueue_policy(name));
  if (name == "slurm") return std::make_unique<SlurmPolicy>(SlurmTreeRules::current);
  if (name == "slurm-22.05") return std::make_unique<SlurmPolicy>(SlurmTreeRules::v22_05);
  if (name == "naive") return std::make_unique<NaivePolicy>();
  std::vector<std::string> names = policy_names();
  std::string hint = did_you_mean(std::string(name), names);
  throw InputError({}, fmt::format("unknown policy '{}'; policies are {}{}{}", name, fmt::join(names, ", "),
                                   hint.empty() ? "" : "; ", hint));
}

}  // namespace topoplan
