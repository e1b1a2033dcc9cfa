#include "kv_apart.hpp"

#include <algorithm>

#include "topoplan/placement/service.hpp"

namespace topoplan {

namespace {

// Whether the slice on `accels` deals a prefill and a decode replica to one node.
bool shares_node(const PlannerCore& core, const Service& service, const JobShape& shape,
                 const std::vector<std::uint32_t>& accels) {
  auto all = core.t.accelerators();
  std::vector<DeviceId> devices;
  for (std::size_t i = 0; i < accels.size() && i < shape.ranks; ++i) devices.push_back(all[accels[i]]);
  return prefill_decode_shared_node(core.t, service, assign_roles(core.t, service, devices)).has_value();
}

// The smallest domain holding every accelerator of `accels`.
DomainId common_domain(const PlannerCore& core, const std::vector<std::uint32_t>& accels) {
  const Topology& t = core.t;
  for (LevelIndex level = t.host_level();; --level) {
    const DomainId first = t.ancestor(core.occupancy.node_of(accels.front()), level);
    const bool all = std::all_of(accels.begin(), accels.end(), [&](std::uint32_t a) {
      return t.ancestor(core.occupancy.node_of(a), level) == first;
    });
    if (all || level == 0) return first;
  }
}

// `preferred` when it divides `units`, else `fallback` when it does, else 1.
std::uint32_t dividing(std::uint32_t units, std::uint32_t preferred, std::uint32_t fallback) {
  if (preferred > 0 && units % preferred == 0) return preferred;
  if (fallback > 0 && units % fallback == 0) return fallback;
  return 1;
}

}  // namespace

bool keeps_kv_apart(const PlannerCore& core, const Job& job, const JobShape& shape) {
  return core.options.policy == "topo" && job.service && !job.service->kv_same_host && job.service->disaggregated() &&
         !shape.whole_nodes;
}

std::vector<std::uint32_t> place_kv_apart(const PlannerCore& core, const CapacityView& view, const Job& job,
                                          const JobShape& shape, std::vector<std::uint32_t> chosen) {
  const Service& service = *job.service;
  if (chosen.empty() || !shares_node(core, service, shape, chosen)) return chosen;
  const Topology& t = core.t;
  std::uint32_t prefill = 0;
  for (const ServiceRole& role : service.roles)
    if (role.is_prefill()) prefill += role.accelerators();
  if (prefill == 0 || prefill >= shape.units) return chosen;
  const std::uint32_t rest = shape.units - prefill;
  // Each step is priced by nobody: the job's pricer prices whole slices.
  PlaceRequest first;
  first.units = prefill;
  first.granule = dividing(prefill, shape.granule, 1);
  first.group = dividing(prefill, shape.group, first.granule);
  first.required = shape.required;
  first.preferred = shape.preferred;
  PlaceRequest second = first;
  second.units = rest;
  second.granule = dividing(rest, shape.granule, 1);
  second.group = dividing(rest, shape.group, second.granule);
  const LevelIndex top = shape.required ? *shape.required : LevelIndex{0};
  for (DomainId around = common_domain(core, chosen); around != kNone; around = t.domain(around).parent) {
    if (t.domain(around).level < top) break;
    CapacityView in = view;
    in.inside(around);
    std::vector<std::uint32_t> pre = core.policy->place(in, first);
    if (pre.empty()) continue;
    std::vector<DomainId> nodes;
    for (std::uint32_t a : pre) nodes.push_back(core.occupancy.node_of(a));
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (DomainId node : nodes) in.exclude(node);
    std::vector<std::uint32_t> dec = core.policy->place(in, second);
    if (dec.empty()) continue;
    pre.insert(pre.end(), dec.begin(), dec.end());
    if (!shares_node(core, service, shape, pre)) return pre;
  }
  return chosen;
}

}  // namespace topoplan
