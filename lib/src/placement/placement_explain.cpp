#include "placement_explain.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "shaped_placement.hpp"
#include "topoplan/placement/topo_policy.hpp"

namespace topoplan {

namespace {

// What would work: the same job without its required level, and its price.
void suggest(const PlannerCore& core, const Job& job, const JobShape& r, JobPlacement& out) {
  const Topology& t = core.t;
  auto level_name = [&](LevelIndex l) { return t.levels()[l].name; };
  if (!r.required || job.replicas > 1 || r.exclusive || r.within) return;
  std::string level = level_name(*r.required);
  Job relaxed = job;
  relaxed.required.reset();
  relaxed.preferred = level;
  JobShape rr = r;
  rr.required.reset();
  rr.preferred = r.required;
  std::vector<std::uint32_t> accels = core.place_replica(relaxed, rr, {});
  if (accels.empty()) return;
  std::vector<DomainId> domains;
  std::vector<DeviceId> devices;
  for (std::uint32_t a : accels) {
    domains.push_back(t.ancestor(core.occupancy.node_of(a), *r.required));
    if (devices.size() < r.ranks) devices.push_back(t.accelerators()[a]);
  }
  std::sort(domains.begin(), domains.end());
  domains.erase(std::unique(domains.begin(), domains.end()), domains.end());
  out.suggestion = fmt::format("fits with `preferred: {}` across {} {}s", level, domains.size(), level);
  if (core.options.pricer) {
    // Against the same job in one domain of an empty cluster, if one is big enough.
    TopoPolicy ideal_policy;
    CapacityView ideal_view(core.empty(), r.whole_nodes);
    PlaceRequest ideal;
    ideal.units = r.units;
    ideal.granule = r.granule;
    ideal.group = r.group;
    ideal.required = r.required;
    std::vector<std::uint32_t> best = ideal_policy.place(ideal_view, ideal);
    if (!best.empty()) {
      std::vector<DeviceId> ideal_devices;
      for (std::size_t i = 0; i < best.size() && i < r.ranks; ++i) ideal_devices.push_back(t.accelerators()[best[i]]);
      double base = core.options.pricer->step_seconds(job, ideal_devices);
      double relaxed_cost = core.options.pricer->step_seconds(job, devices);
      if (base > 0) out.suggestion += fmt::format(" at {:+.0f} % step time", (relaxed_cost / base - 1) * 100);
    }
  }
}

}  // namespace

void explain_unplaced(const PlannerCore& core, const Job& job, const JobShape& r, JobPlacement& out) {
  if (job.shape != ChainShape::none) return explain_shaped(core, job, r, out);
  const Topology& t = core.t;
  const Occupancy& occ = core.occupancy;
  const std::uint32_t node_size = core.node_size;
  auto level_name = [&](LevelIndex l) { return t.levels()[l].name; };
  auto unit_name = [&](const Job&, const JobShape& s, std::uint64_t n) { return unit_text(t, s, n); };
  CapacityView view = core.view_for(job, r, {});
  std::uint32_t total_free = view.count(t.root());
  std::uint64_t needed = static_cast<std::uint64_t>(r.units) * job.replicas;
  std::string what = unit_name(job, r, static_cast<std::uint32_t>(needed));
  std::string model = job.accelerator_model.empty() ? "" : fmt::format(" of model '{}'", job.accelerator_model);
  std::string outside;
  if (!job.tenant.empty()) outside = " outside other tenants' nodes";
  if (r.exclusive) outside += fmt::format(" in {}s no other job uses", level_name(*r.exclusive));
  auto largest_at = [&](LevelIndex level, bool free_only) {
    std::uint32_t best = 0;
    auto [first, last] = t.domains_at(level);
    for (DomainId d = first; d < last; ++d) {
      std::uint32_t n = free_only ? view.count(d)
                        : r.whole_nodes ? static_cast<std::uint32_t>(t.domain(d).accelerator_count() / std::max(1u, node_size))
                                        : occ.usable_in(d);
      best = std::max(best, n);
    }
    return best;
  };
  const bool several = job.replicas > 1;
  const std::string group = job.kind == JobKind::training ? "slice" : "replica";
  // "3 replicas of 4 GPUs, each in one rack" or "4 GPUs in one rack".
  const std::string shape = shape_text(t, r, job.replicas);
  const std::string needs = fmt::format(
      "needs {}{}{}{}",
      several ? fmt::format("{} {}s of {}", job.replicas, group, unit_name(job, r, r.units)) : unit_name(job, r, r.units),
      model, shape.empty() ? "" : shape.rfind("each ", 0) == 0 ? ", " : " ", shape);
  // The same counts on an empty cluster: what the topology can hold at all.
  CapacityView empty_view = core.view_over(core.empty(), job, r);
  auto free_phrase = [&](std::uint32_t n) { return fmt::format("{} {}", n, n == 1 ? "is" : "are"); };

  // Requests that no state of the cluster could satisfy say so, rather than
  // reading like a momentary shortage.
  const std::uint32_t at_all = empty_view.count(t.root());
  if (!job.accelerator_model.empty() && empty_view.accelerators(t.root()) == 0 && !t.accelerators().empty()) {
    std::vector<std::string> models;
    for (StringId m : occ.models()) models.emplace_back(t.str(m));
    out.reason = fmt::format("needs {}{}; no accelerator of topology '{}' is one (its model{} {}), so it can never fit",
                             what, model, t.name(), models.size() == 1 ? " is" : "s are", fmt::join(models, ", "));
    return;
  }
  // A replica larger than any domain of its required level.
  if (r.required && largest_at(*r.required, false) < r.units) {
    out.reason = fmt::format("{}; a {} holds at most {}", needs, level_name(*r.required), largest_at(*r.required, false));
    suggest(core, job, r, out);
    return;
  }
  if (at_all < needed) {
    const std::uint64_t all = r.whole_nodes ? occ.max_nodes_at(0) : t.accelerators().size();
    std::string held = job.accelerator_model.empty() ? "" : " of that model";
    std::string usable = at_all == all || !job.accelerator_model.empty()
                             ? fmt::format("{}{} in all", at_all, held)
                             : fmt::format("{} usable in all ({} down or draining)", at_all, all - at_all);
    out.reason = fmt::format("needs {}{}; topology '{}' has {}, so it can never fit", what, model, t.name(), usable);
    return;
  }

  // A peer policy's own rule (Slurm's --switches=1) can refuse what the free
  // counts allow; it says so in its own words.
  if (job.replicas == 1)
    if (std::string why = core.policy->why_not(view, core.request_for(job, r)); !why.empty()) {
      out.reason = fmt::format("{}; {}", needs, why);
      return;
    }

  // Replicas in different domains: fewer domains than replicas can hold one,
  // at all or now. An exclusive job's view leaves out the domains others
  // use, so for it this says more than the free count.
  auto spread_reason = [&](bool structural_only) {
    if (!several || !r.spread) return false;
    const LevelIndex level = *r.spread;
    WithinRequest per{core.request_for(job, r), 1, level, std::nullopt};
    auto [first, last] = t.domains_at(level);
    std::uint32_t domains = last - first;
    std::uint32_t able = 0;
    std::uint32_t holders = 0;
    for (std::uint32_t n : replica_capacity(empty_view, per)) able += n > 0 ? 1u : 0u;
    for (std::uint32_t n : replica_capacity(view, per)) holders += n > 0 ? 1u : 0u;
    std::string name = level_name(level);
    if (able < job.replicas) {
      out.reason = able == domains
                       ? fmt::format("{}; the topology has {} {}{}", needs, domains, name, domains == 1 ? "" : "s")
                       : fmt::format("{}; only {} of its {} {}s can hold one", needs, able, domains, name);
      return true;
    }
    if (structural_only) return false;
    if (holders < job.replicas) {
      bool exclusive = r.exclusive && *r.exclusive == level;
      out.reason = fmt::format("{}; only {} of {} {}s {} room for one", needs, holders, domains, name,
                               exclusive ? (holders == 1 ? "is free of other jobs with" : "are free of other jobs with")
                                         : (holders == 1 ? "has" : "have"));
      return true;
    }
    return false;
  };
  // All replicas in one domain, when the policy honours that: no domain of
  // the level can hold them all, or none has room for them now.
  WithinRequest within{core.request_for(job, r), job.replicas, r.within.value_or(0), r.spread};
  const bool within_honoured = several && r.within && core.policy->within_domains(view, within);
  if (within_honoured) {
    std::vector<std::uint32_t> at_most = replica_capacity(empty_view, within);
    std::uint32_t most = at_most.empty() ? 0 : *std::max_element(at_most.begin(), at_most.end());
    if (most < job.replicas) {
      out.reason = fmt::format("{}; a {} holds at most {}", needs, level_name(*r.within), most);
      return;
    }
  }
  if (spread_reason(!r.exclusive)) return;
  if (total_free < needed) {
    out.reason = fmt::format("needs {}{}; only {} free{}", what, model, free_phrase(total_free), outside);
    // Accelerators that jobs with exclusive_level keep to themselves, or
    // shaped jobs as spare nodes.
    const std::uint64_t kept = core.kept_free();
    bool spares = false;
    for (const PlannerCore::Entry& e : core.jobs) spares = spares || (e.active && !e.placement.spares.empty());
    if (kept > 0)
      out.reason += fmt::format("; {} more {} in domains other jobs keep to themselves ({})", kept,
                                kept == 1 ? "is" : "are", spares ? "exclusive_level, spare nodes" : "exclusive_level");
    if (r.required) suggest(core, job, r, out);
    return;
  }
  if (!r.exclusive && spread_reason(false)) return;
  if (within_honoured) {
    std::vector<std::uint32_t> room = replica_capacity(view, within);
    std::uint32_t best = room.empty() ? 0 : *std::max_element(room.begin(), room.end());
    std::string name = level_name(*r.within);
    if (best < job.replicas)
      out.reason = best == 0 ? fmt::format("{}; no {} has room for one", needs, name)
                             : fmt::format("{}; the best {} has room for {}", needs, name, best);
    else
      out.reason = fmt::format("{}; a {} has room for all {} by count, but the '{}' policy found no placement in it",
                               needs, name, job.replicas, core.options.policy);
    return;
  }
  // Replicas each in one domain of the required level: too few places.
  if (several && r.required) {
    WithinRequest per{core.request_for(job, r), 1, *r.required, std::nullopt};
    std::uint32_t slots = 0;
    for (std::uint32_t n : replica_capacity(view, per)) slots += n;
    if (slots < job.replicas) {
      out.reason = fmt::format("{}; the free {}s have room for {}", needs, level_name(*r.required), slots);
      return;
    }
  }
  if (r.required && !several) {
    out.reason = fmt::format("{}; the largest free {} island has {}", needs, level_name(*r.required),
                             largest_at(*r.required, true));
    suggest(core, job, r, out);
    return;
  }
  out.reason = fmt::format("needs {}{}; {} are free but the '{}' policy found no placement for them", what, model,
                           total_free, core.options.policy);
}

}  // namespace topoplan
