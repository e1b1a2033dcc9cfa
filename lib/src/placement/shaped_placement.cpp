#include "shaped_placement.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topoplan/placement/chain_finder.hpp"
#include "topoplan/placement/chain_path.hpp"

namespace topoplan {

namespace {

ChainRequest request_of(const Job& job, const JobShape& shape) {
  ChainRequest r;
  r.size = shape.ranks;
  r.shape = job.shape;
  r.deterministic = job.deterministic;
  r.spare = shape.spare;
  return r;
}

std::vector<std::uint8_t> usable_in(const CapacityView& view, std::size_t accelerators) {
  std::vector<std::uint8_t> usable(accelerators, 0);
  for (std::uint32_t a = 0; a < accelerators; ++a) usable[a] = view.usable(a) ? 1 : 0;
  return usable;
}

}  // namespace

std::vector<std::uint32_t> place_shaped(const PlannerCore& core, const CapacityView& view, const Job& job,
                                        const JobShape& shape) {
  const std::vector<std::uint8_t> usable = usable_in(view, core.t.accelerators().size());
  return find_chain(core.t, usable, request_of(job, shape), &core.mask).accelerators;
}

std::vector<DomainId> spare_nodes(const PlannerCore& core, const JobShape& shape, const JobPlacement& placement) {
  std::vector<DomainId> out;
  if (!shape.spare || *shape.spare >= core.t.host_level()) return out;
  const Topology& t = core.t;
  std::vector<DomainId> domains;
  for (const auto& replica : placement.replicas)
    for (DeviceId d : replica) domains.push_back(t.ancestor(t.device(d).domain, *shape.spare));
  std::sort(domains.begin(), domains.end());
  domains.erase(std::unique(domains.begin(), domains.end()), domains.end());
  for (DomainId d : domains) {
    auto [first, last] = t.descendants_at(d, t.host_level());
    for (DomainId n = last; n > first; --n) {
      const Domain& node = t.domain(n - 1);
      if (node.accelerator_count() > 0 && core.occupancy.free_in(n - 1) == node.accelerator_count()) {
        out.push_back(n - 1);
        break;
      }
    }
  }
  return out;
}

void explain_shaped(const PlannerCore& core, const Job& job, const JobShape& shape, JobPlacement& out) {
  const Topology& t = core.t;
  const std::size_t n = t.accelerators().size();
  const CapacityView view = core.view_for(job, shape, {});
  const ChainRequest request = request_of(job, shape);
  const ChainFound now = find_chain(t, usable_in(view, n), request, &core.mask);
  const std::string_view what = chain_shape_name(job.shape == ChainShape::none ? ChainShape::chain : job.shape);
  auto chips = [&](std::uint64_t k) { return unit_text(t, JobShape{}, k); };
  const std::string ask = fmt::format("needs a {} of {}{}{}", what, chips(shape.ranks),
                                      job.deterministic ? " with uniform hops" : "",
                                      shape.spare ? fmt::format(" and a spare node per {}", t.levels()[*shape.spare].name)
                                                  : "");
  const bool lpus = !t.accelerators().empty() && t.device(t.accelerators()[0]).kind == DeviceKind::lpu;
  if (now.usable < shape.ranks) {
    out.reason = fmt::format("{}; {} free", ask, chips(now.usable));
  } else if (!now.searched) {
    // Refused before the search: the free chips fall apart into sets
    // joined by links, none large enough.
    out.reason = fmt::format("{}; {} free, but at most {} of them are joined by direct links{}", ask, chips(now.usable),
                             now.joined, job.deterministic ? " of one latency" : "");
  } else {
    const std::string longest =
        job.shape == ChainShape::group
            ? "largest fully connected group"
            : fmt::format("{} chain", now.exhausted || now.pruned ? "longest found" : "longest");
    out.reason = fmt::format("{}; {} free, but the {} of directly linked free {}s is {}", ask, chips(now.usable),
                             longest, lpus ? "LPU" : "GPU", now.longest);
  }
  // Which jobs stand in the way: the shape over every available chip, the
  // fewest taken ones first.
  const Occupancy& empty = core.empty();
  std::vector<std::uint8_t> available(n, 0), taken(n, 0);
  for (std::uint32_t a = 0; a < n; ++a) {
    available[a] = empty.is_free(a) ? 1 : 0;
    taken[a] = available[a] && !core.occupancy.is_free(a) ? 1 : 0;
  }
  // Any shape on the empty cluster names jobs whose moving makes room; the
  // search for the one taking the fewest gets a tenth of the budget, so
  // that a refusal costs a fraction of a full search (topoplan_chain_bench).
  ChainRequest suggestion = request;
  suggestion.budget = request.budget / 10;
  const ChainFound ideal = find_chain(t, available, suggestion, &core.mask, taken);
  if (ideal.accelerators.empty()) {
    out.suggestion = fmt::format("no {} of {} exists even on an empty {}: the chips lack the direct links", what,
                                 chips(shape.ranks), t.name());
    return;
  }
  std::vector<std::uint32_t> owners;
  for (std::uint32_t a : ideal.accelerators)
    if (taken[a] && core.occupancy.owner(a) != kNone) owners.push_back(core.occupancy.owner(a));
  std::sort(owners.begin(), owners.end());
  owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
  std::vector<std::string> names;
  for (std::uint32_t id : owners) names.push_back(id < core.jobs.size() ? core.jobs[id].job.name : "running pods");
  if (!names.empty())
    out.suggestion = fmt::format("moving job{} {} would make room", names.size() == 1 ? "" : "s", fmt::join(names, ", "));
}

}  // namespace topoplan
