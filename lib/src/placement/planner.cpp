#include "topoplan/placement/planner.hpp"

#include "topoplan/model/node_size.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <iterator>
#include <numeric>

#include <fmt/format.h>

#include "topoplan/io/hostlist.hpp"
#include "topoplan/model/fabric.hpp"
#include "topoplan/placement/topo_policy.hpp"

namespace topoplan {

std::vector<double> PlanPricer::shared_step_seconds(const std::vector<const Job*>& jobs,
                                                    const std::vector<std::vector<DeviceId>>& ranks) const {
  std::vector<double> out(jobs.size(), -1);
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i] && !ranks[i].empty()) out[i] = step_seconds(*jobs[i], ranks[i]);
  return out;
}

namespace {

std::optional<LevelIndex> resolve_level(const Topology& t, const std::optional<std::string>& name, const Job& job,
                                        std::string_view key) {
  if (!name) return std::nullopt;
  if (auto level = t.find_level(*name)) return level;
  std::vector<std::string> names;
  for (const Level& l : t.levels()) names.push_back(l.name);
  std::string hint = did_you_mean(*name, names);
  throw InputError(job.where, fmt::format("job '{}': {} level '{}' is not a level of topology '{}' ({}){}{}", job.name,
                                          key, *name, t.name(), fmt::join(names, ", "), hint.empty() ? "" : "; ",
                                          hint));
}


bool model_matches(const Topology& t, const Job& job, DeviceId device) {
  if (job.accelerator_model.empty()) return true;
  NamePattern p;
  std::string error;
  if (!p.parse(job.accelerator_model, error)) return false;
  return p.matches(t.str(t.device(device).model));
}

// The levels a job's placement must honour, with what exclusive_level
// implies: each replica inside one domain of that level (or of a finer
// required level) and, with several replicas, each in a different one.
struct Levels {
  std::optional<LevelIndex> required;
  std::optional<LevelIndex> spread;
  std::optional<LevelIndex> within;     // all replicas in one domain (never the root)
  std::optional<LevelIndex> exclusive;  // domains of this level no other job uses
};

Levels effective_levels(Levels l, std::uint32_t replicas) {
  if (l.exclusive) {
    l.required = std::max(l.required.value_or(*l.exclusive), *l.exclusive);
    if (replicas > 1) l.spread = std::min(l.spread.value_or(*l.exclusive), *l.exclusive);
  }
  if (l.within && *l.within == 0) l.within.reset();  // everything is inside the root
  return l;
}

struct Resolved {
  std::optional<LevelIndex> required;
  std::optional<LevelIndex> preferred;
  std::optional<LevelIndex> spread;
  std::optional<LevelIndex> within;
  std::optional<LevelIndex> exclusive;
  bool whole_nodes = false;
  std::uint32_t units = 0;      // per replica: accelerators, or nodes
  std::uint32_t ranks = 0;      // per replica: accelerators that get ranks
  std::uint32_t granule = 1;
  std::uint32_t group = 1;
};

// A running pod's accelerators: the first free ones of its node (a pod list
// says how many a node's pods hold, not which).
void take_running(const Topology& t, const RunningPods::OnNode& n, std::uint32_t owner, Occupancy& occupancy) {
  const Domain& node = t.domain(n.node);
  std::uint32_t left = n.accelerators;
  for (std::uint32_t a = node.accel_begin; a < node.accel_end && left > 0; ++a)
    if (occupancy.is_free(a)) {
      occupancy.take(a, owner);
      --left;
    }
}

class Planner {
 public:
  Planner(const Topology& t, const PlanOptions& options)
      : t_(t), options_(options), occupancy_(t), usage_(t), node_size_(typical_node_accelerators(t)) {
    policy_ = make_policy(options.policy, t);
  }

  Plan run(std::vector<Job> jobs);

 private:
  Resolved resolve(const Job& job) const;
  std::uint32_t tenant_id(const std::string& tenant);
  CapacityView view_for(const Job& job, const Resolved& r, const std::vector<DomainId>& excluded,
                        DomainId inside = kNone, bool exclusive_domains = true) const;
  PlaceRequest request_for(const Job& job, const Resolved& r) const;
  std::vector<std::uint32_t> place_replica(const Job& job, const Resolved& r, const std::vector<DomainId>& excluded,
                                           const PlacementPolicy& policy, DomainId inside = kNone) const;
  bool place(const Job& job, const Resolved& r, std::uint32_t job_id, JobPlacement& out);
  bool place_pod_groups(const Job& job, const Resolved& r, std::uint32_t job_id, std::uint32_t groups,
                        JobPlacement& out);
  bool place_inside(const Job& job, const Resolved& r, std::uint32_t job_id, DomainId inside, JobPlacement& out);
  void reserve(LevelIndex level, const std::vector<std::vector<DeviceId>>& replicas);
  void explain(const Job& job, const Resolved& r, JobPlacement& out);
  void suggest(const Job& job, const Resolved& r, JobPlacement& out);
  std::string shape_text(const Resolved& r, std::uint32_t replicas) const;
  std::string level_name(LevelIndex l) const { return t_.levels()[l].name; }
  std::string unit_name(const Job& job, const Resolved& r, std::uint32_t n) const {
    if (r.whole_nodes) return fmt::format("{} whole node{}", n, n == 1 ? "" : "s");
    bool lpu = !t_.accelerators().empty() && t_.device(t_.accelerators()[0]).kind == DeviceKind::lpu;
    (void)job;
    return fmt::format("{} {}{}", n, lpu ? "LPU" : "GPU", n == 1 ? "" : "s");
  }

  const Topology& t_;
  const PlanOptions& options_;
  Occupancy occupancy_;
  NodeUsage usage_;  // what placed and running pods use besides accelerators
  std::uint32_t node_size_;
  std::unique_ptr<PlacementPolicy> policy_;
  std::map<std::string, std::uint32_t> tenants_;
  // Domains an exclusive_level job has to itself (planned or occupied): no
  // other job is placed in them.
  std::vector<DomainId> reserved_;
};

Resolved Planner::resolve(const Job& job) const {
  Resolved r;
  r.required = resolve_level(t_, job.required, job, "required");
  r.preferred = resolve_level(t_, job.preferred, job, "preferred");
  r.spread = resolve_level(t_, job.spread, job, "spread");
  Levels levels = effective_levels({r.required, r.spread, resolve_level(t_, job.replicas_within, job, "replicas_within"),
                                    resolve_level(t_, job.exclusive_level, job, "exclusive_level")},
                                   job.replicas);
  r.required = levels.required;
  r.spread = levels.spread;
  r.within = levels.within;
  r.exclusive = levels.exclusive;
  r.whole_nodes = job.exclusive;
  if (job.nodes) {
    r.units = job.nodes;
    r.ranks = job.nodes * node_size_;
    if (job.parallelism.ranks() != job.parallelism.dp || job.parallelism.dp != 1) {
      if (job.parallelism.ranks() != r.ranks && job.parallelism.ranks() != 1)
        throw InputError(job.where, fmt::format("job '{}': {} nodes of {} accelerators are {} ranks, but its "
                                                "parallelism makes {}",
                                                job.name, job.nodes, node_size_, r.ranks, job.parallelism.ranks()));
    }
  } else if (job.exclusive) {
    r.ranks = job.per_replica;
    r.units = node_size_ ? (job.per_replica + node_size_ - 1) / node_size_ : job.per_replica;
  } else {
    r.units = r.ranks = job.per_replica;
  }
  if (job.parallelism.tp > 1 && node_size_ && job.parallelism.tp <= node_size_ && node_size_ % job.parallelism.tp == 0)
    r.granule = job.parallelism.tp;
  r.group = std::max(r.granule, job.parallelism.tp * job.parallelism.pp);
  if (r.group > r.ranks || (r.ranks % r.group) != 0) r.group = r.granule;
  if (r.within && r.spread && job.replicas > 1 && *r.spread <= *r.within)
    throw InputError(job.where, fmt::format("job '{}': its {} replicas cannot be in different {}s{} and all in one {} "
                                            "(replicas_within)",
                                            job.name, job.replicas, level_name(*r.spread),
                                            r.exclusive && *r.exclusive == *r.spread ? " (exclusive_level)" : "",
                                            level_name(*r.within)));
  return r;
}

std::uint32_t Planner::tenant_id(const std::string& tenant) {
  if (tenant.empty()) return kNone;
  return tenants_.try_emplace(tenant, static_cast<std::uint32_t>(tenants_.size())).first->second;
}

CapacityView Planner::view_for(const Job& job, const Resolved& r, const std::vector<DomainId>& excluded,
                               DomainId inside, bool exclusive_domains) const {
  CapacityView view(occupancy_, r.whole_nodes);
  bool tenant_bound = !tenants_.empty();
  std::uint32_t tenant = kNone;
  if (!job.tenant.empty()) {
    auto it = tenants_.find(job.tenant);
    tenant = it == tenants_.end() ? kNone - 2 : it->second;
  }
  // Whole domains out of reach, as accelerator ranges: those given, all but
  // `inside`, those exclusive jobs have to themselves and, for an exclusive
  // job, every domain of its level that something else uses.
  const auto accel_count = static_cast<std::uint32_t>(t_.accelerators().size());
  std::vector<std::uint8_t> blocked;
  auto block = [&](std::uint32_t begin, std::uint32_t end) {
    if (begin >= end) return;
    if (blocked.empty()) blocked.assign(accel_count, 0);
    std::fill(blocked.begin() + begin, blocked.begin() + end, std::uint8_t{1});
  };
  for (DomainId d : excluded) block(t_.domain(d).accel_begin, t_.domain(d).accel_end);
  if (inside != kNone) {
    block(0, t_.domain(inside).accel_begin);
    block(t_.domain(inside).accel_end, accel_count);
  }
  if (exclusive_domains)
    for (DomainId d : reserved_) block(t_.domain(d).accel_begin, t_.domain(d).accel_end);
  if (r.exclusive && exclusive_domains) {
    auto [first, last] = t_.domains_at(*r.exclusive);
    for (DomainId d = first; d < last; ++d)
      if (occupancy_.free_in(d) < occupancy_.usable_in(d)) block(t_.domain(d).accel_begin, t_.domain(d).accel_end);
  }
  bool filter = !job.accelerator_model.empty() || tenant_bound;
  if (filter || !blocked.empty()) {
    auto accels = t_.accelerators();
    view.restrict([&](std::uint32_t a) {
      if (!blocked.empty() && blocked[a]) return false;
      if (!filter) return true;
      if (!model_matches(t_, job, accels[a])) return false;
      std::uint32_t owner_tenant = occupancy_.node_tenant(occupancy_.node_of(a));
      // Nodes of a named tenant take only that tenant's jobs, and a named
      // tenant's job takes no node another tenant uses.
      return owner_tenant == kNone || owner_tenant == tenant;
    });
  }
  return view;
}

PlaceRequest Planner::request_for(const Job& job, const Resolved& r) const {
  PlaceRequest request;
  request.units = r.units;
  request.granule = r.granule;
  request.group = r.group;
  request.required = r.required;
  request.preferred = r.preferred;
  request.job = &job;
  request.pricer = options_.pricer;
  return request;
}

std::vector<std::uint32_t> Planner::place_replica(const Job& job, const Resolved& r,
                                                  const std::vector<DomainId>& excluded,
                                                  const PlacementPolicy& policy, DomainId inside) const {
  CapacityView view = view_for(job, r, excluded, inside);
  return policy.place(view, request_for(job, r));
}

bool Planner::place(const Job& job, const Resolved& r, std::uint32_t job_id, JobPlacement& out) {
  if (std::uint32_t groups = policy_->pod_groups(job)) return place_pod_groups(job, r, job_id, groups, out);
  if (r.within) {
    // All replicas in one domain: the policy says which domains to try.
    WithinRequest within{request_for(job, r), job.replicas, *r.within, r.spread};
    std::optional<std::vector<DomainId>> domains = policy_->within_domains(view_for(job, r, {}), within);
    if (domains) {
      for (DomainId d : *domains)
        if (place_inside(job, r, job_id, d, out)) return true;
      return false;
    }
  }
  return place_inside(job, r, job_id, kNone, out);
}

bool Planner::place_inside(const Job& job, const Resolved& r, std::uint32_t job_id, DomainId inside,
                           JobPlacement& out) {
  std::vector<DomainId> excluded;
  std::vector<std::vector<std::uint32_t>> taken;
  std::uint32_t tenant = tenant_id(job.tenant);
  auto rollback = [&]() {
    for (const auto& group : taken)
      for (std::uint32_t a : group) occupancy_.release(a);
  };
  for (std::uint32_t replica = 0; replica < job.replicas; ++replica) {
    std::vector<std::uint32_t> accels = place_replica(job, r, excluded, *policy_, inside);
    if (accels.empty()) {
      rollback();
      return false;
    }
    for (std::uint32_t a : accels) occupancy_.take(a, job_id, tenant);
    if (r.spread) {
      for (std::uint32_t a : accels) {
        DomainId d = t_.ancestor(occupancy_.node_of(a), *r.spread);
        if (std::find(excluded.begin(), excluded.end(), d) == excluded.end()) excluded.push_back(d);
      }
    }
    taken.push_back(std::move(accels));
  }
  auto all = t_.accelerators();
  for (const auto& group : taken) {
    std::vector<DeviceId> devices;
    for (std::size_t i = 0; i < group.size() && i < r.ranks; ++i) devices.push_back(all[group[i]]);
    out.replicas.push_back(std::move(devices));
  }
  out.placed = true;
  if (r.exclusive) reserve(*r.exclusive, out.replicas);
  return true;
}

// A policy that places pods (kueue) places the job's pod groups one after
// the other, each seeing the others; all or none. Its reason stands when one
// does not fit. Spread and exclusive levels are the planner's constraints,
// which such a policy does not know: check_placement reports what it breaks.
bool Planner::place_pod_groups(const Job& job, const Resolved& r, std::uint32_t job_id, std::uint32_t groups,
                               JobPlacement& out) {
  const std::uint32_t tenant = tenant_id(job.tenant);
  std::vector<std::uint32_t> taken;
  std::vector<std::vector<std::uint32_t>> per_group;
  struct Used {
    DomainId node;
    const ResourceList* per_pod;
    std::int64_t pods;
  };
  std::vector<PodPlacement> results;
  results.reserve(groups);
  std::vector<Used> used;
  auto rollback = [&]() {
    for (std::uint32_t a : taken) occupancy_.release(a);
    for (const Used& u : used) usage_.add(u.node, *u.per_pod, -u.pods);
    out.pods.clear();
  };
  for (std::uint32_t g = 0; g < groups; ++g) {
    PlaceRequest request = request_for(job, r);
    request.usage = &usage_;
    request.pod_group = g;
    // Domains kept to one job (exclusive_level) are topoplan's, not Kueue's.
    results.push_back(policy_->place_pods(view_for(job, r, {}, kNone, false), request));
    const PodPlacement& p = results.back();
    if (p.pods.empty()) {
      rollback();
      out.reason = groups > 1 ? fmt::format("pod group {} of {}: {}", g + 1, groups, p.reason) : p.reason;
      return false;
    }
    for (std::uint32_t a : p.accelerators) occupancy_.take(a, job_id, tenant);
    taken.insert(taken.end(), p.accelerators.begin(), p.accelerators.end());
    per_group.push_back(p.accelerators);
    for (const PodPlacement::Pods& pods : p.pods) {
      usage_.add(pods.node, pods.per_pod, pods.pods);
      used.push_back({pods.node, &pods.per_pod, pods.pods});
      out.pods.push_back({g, p.pod_sets[pods.pod_set], pods.node, pods.pods});
    }
  }
  // Replicas: a group each when they match (LeaderWorkerSet groups), else
  // runs of the job's replica size in rank order (Kueue slices), else one.
  auto all = t_.accelerators();
  std::vector<std::vector<std::uint32_t>> replicas;
  if (groups == job.replicas) {
    replicas = per_group;
  } else if (job.replicas > 1 && r.ranks > 0 && taken.size() == std::size_t{job.replicas} * r.ranks) {
    for (std::size_t i = 0; i < taken.size(); i += r.ranks)
      replicas.emplace_back(taken.begin() + static_cast<std::ptrdiff_t>(i),
                            taken.begin() + static_cast<std::ptrdiff_t>(i + r.ranks));
  } else {
    replicas.push_back(taken);
  }
  for (const auto& group : replicas) {
    std::vector<DeviceId> devices;
    for (std::uint32_t a : group) devices.push_back(all[a]);
    out.replicas.push_back(std::move(devices));
  }
  out.placed = true;
  return true;
}

void Planner::reserve(LevelIndex level, const std::vector<std::vector<DeviceId>>& replicas) {
  for (const auto& replica : replicas)
    for (DeviceId d : replica) {
      if (!is_accelerator(t_.device(d).kind)) continue;
      DomainId domain = t_.ancestor(t_.device(d).domain, level);
      if (std::find(reserved_.begin(), reserved_.end(), domain) == reserved_.end()) reserved_.push_back(domain);
    }
}

// "each in one rack, all in one block", "in a block of its own": how the
// replicas of a job must sit, for reasons.
std::string Planner::shape_text(const Resolved& r, std::uint32_t replicas) const {
  const bool several = replicas > 1;
  std::vector<std::string> parts;
  bool spread_said = false;
  if (r.required) {
    std::string level = level_name(*r.required);
    if (r.exclusive && *r.exclusive == *r.required) {
      parts.push_back(fmt::format("{}in a {} of its own", several ? "each " : "", level));
      spread_said = true;
    } else if (several && r.spread && *r.spread == *r.required) {
      parts.push_back(fmt::format("each in a different {}", level));
      spread_said = true;
    } else {
      parts.push_back(fmt::format("{}in one {}", several ? "each " : "", level));
    }
  }
  if (several && r.spread && !spread_said) {
    if (r.exclusive && *r.exclusive == *r.spread)
      parts.push_back(fmt::format("in {}s of their own", level_name(*r.spread)));
    else
      parts.push_back(fmt::format("in different {}s", level_name(*r.spread)));
  }
  if (several && r.within) parts.push_back(fmt::format("all in one {}", level_name(*r.within)));
  return fmt::format("{}", fmt::join(parts, ", "));
}

void Planner::explain(const Job& job, const Resolved& r, JobPlacement& out) {
  CapacityView view = view_for(job, r, {});
  std::uint32_t total_free = view.count(t_.root());
  std::uint64_t needed = static_cast<std::uint64_t>(r.units) * job.replicas;
  std::string what = unit_name(job, r, static_cast<std::uint32_t>(needed));
  std::string model = job.accelerator_model.empty() ? "" : fmt::format(" of model '{}'", job.accelerator_model);
  std::string outside;
  if (!job.tenant.empty()) outside = " outside other tenants' nodes";
  if (r.exclusive) outside += fmt::format(" in {}s no other job uses", level_name(*r.exclusive));
  auto largest_at = [&](LevelIndex level, bool free_only) {
    std::uint32_t best = 0;
    auto [first, last] = t_.domains_at(level);
    for (DomainId d = first; d < last; ++d) {
      std::uint32_t n = free_only ? view.count(d)
                        : r.whole_nodes ? static_cast<std::uint32_t>(t_.domain(d).accelerator_count() / std::max(1u, node_size_))
                                        : occupancy_.usable_in(d);
      best = std::max(best, n);
    }
    return best;
  };
  const bool several = job.replicas > 1;
  const std::string group = job.kind == JobKind::training ? "slice" : "replica";
  // "3 replicas of 4 GPUs, each in one rack" or "4 GPUs in one rack".
  const std::string shape = shape_text(r, job.replicas);
  const std::string needs = fmt::format(
      "needs {}{}{}{}",
      several ? fmt::format("{} {}s of {}", job.replicas, group, unit_name(job, r, r.units)) : unit_name(job, r, r.units),
      model, shape.empty() ? "" : shape.rfind("each ", 0) == 0 ? ", " : " ", shape);
  // The same counts on an empty cluster: what the topology can hold at all.
  Occupancy empty(t_);
  CapacityView empty_view(empty, r.whole_nodes);
  auto free_phrase = [&](std::uint32_t n) { return fmt::format("{} {}", n, n == 1 ? "is" : "are"); };

  // A replica larger than any domain of its required level.
  if (r.required && largest_at(*r.required, false) < r.units) {
    out.reason = fmt::format("{}; a {} holds at most {}", needs, level_name(*r.required), largest_at(*r.required, false));
    suggest(job, r, out);
    return;
  }
  // Replicas in different domains: fewer domains than replicas can hold one,
  // at all or now. An exclusive job's view leaves out the domains others
  // use, so for it this says more than the free count.
  auto spread_reason = [&](bool structural_only) {
    if (!several || !r.spread) return false;
    const LevelIndex level = *r.spread;
    WithinRequest per{request_for(job, r), 1, level, std::nullopt};
    auto [first, last] = t_.domains_at(level);
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
  WithinRequest within{request_for(job, r), job.replicas, r.within.value_or(0), r.spread};
  const bool within_honoured = several && r.within && policy_->within_domains(view, within);
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
    // Accelerators that jobs with exclusive_level keep to themselves.
    std::uint32_t kept = 0;
    for (DomainId d : reserved_) kept += occupancy_.free_in(d);
    if (kept > 0)
      out.reason += fmt::format("; {} more {} in domains other jobs keep to themselves (exclusive_level)", kept,
                                kept == 1 ? "is" : "are");
    if (r.required) suggest(job, r, out);
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
                               needs, name, job.replicas, options_.policy);
    return;
  }
  // Replicas each in one domain of the required level: too few places.
  if (several && r.required) {
    WithinRequest per{request_for(job, r), 1, *r.required, std::nullopt};
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
    suggest(job, r, out);
    return;
  }
  out.reason = fmt::format("needs {}{}; {} are free but the '{}' policy found no placement for them", what, model,
                           total_free, options_.policy);
}

// What would work: the same job without its required level, and its price.
void Planner::suggest(const Job& job, const Resolved& r, JobPlacement& out) {
  if (!r.required || job.replicas > 1 || r.exclusive || r.within) return;
  std::string level = level_name(*r.required);
  Job relaxed = job;
  relaxed.required.reset();
  relaxed.preferred = level;
  Resolved rr = r;
  rr.required.reset();
  rr.preferred = r.required;
  std::vector<std::uint32_t> accels = place_replica(relaxed, rr, {}, *policy_);
  if (accels.empty()) return;
  std::vector<DomainId> domains;
  std::vector<DeviceId> devices;
  for (std::uint32_t a : accels) {
    domains.push_back(t_.ancestor(occupancy_.node_of(a), *r.required));
    if (devices.size() < r.ranks) devices.push_back(t_.accelerators()[a]);
  }
  std::sort(domains.begin(), domains.end());
  domains.erase(std::unique(domains.begin(), domains.end()), domains.end());
  out.suggestion = fmt::format("fits with `preferred: {}` across {} {}s", level, domains.size(), level);
  if (options_.pricer) {
    // Against the same job in one domain of an empty cluster, if one is big enough.
    Occupancy empty(t_);
    TopoPolicy ideal_policy;
    CapacityView ideal_view(empty, r.whole_nodes);
    PlaceRequest ideal;
    ideal.units = r.units;
    ideal.granule = r.granule;
    ideal.group = r.group;
    ideal.required = r.required;
    std::vector<std::uint32_t> best = ideal_policy.place(ideal_view, ideal);
    if (!best.empty()) {
      std::vector<DeviceId> ideal_devices;
      for (std::size_t i = 0; i < best.size() && i < r.ranks; ++i) ideal_devices.push_back(t_.accelerators()[best[i]]);
      double base = options_.pricer->step_seconds(job, ideal_devices);
      double relaxed_cost = options_.pricer->step_seconds(job, devices);
      if (base > 0) out.suggestion += fmt::format(" at {:+.0f} % step time", (relaxed_cost / base - 1) * 100);
    }
  }
}

Plan Planner::run(std::vector<Job> jobs) {
  Plan plan;
  plan.topology = options_.topology_name.empty() ? t_.name() : options_.topology_name;
  plan.policy = options_.policy;
  plan.placements.resize(jobs.size());
  std::vector<Resolved> resolved;
  for (const Job& job : jobs) resolved.push_back(resolve(job));

  // Accelerators already in use come first; their owners get ids after ours.
  if (options_.occupied) {
    const Plan& old = *options_.occupied;
    for (std::size_t i = 0; i < old.placements.size(); ++i) {
      const JobPlacement& p = old.placements[i];
      if (!p.placed) continue;
      std::uint32_t tenant = i < old.jobs.size() ? tenant_id(old.jobs[i].tenant) : kNone;
      for (const auto& replica : p.replicas)
        for (DeviceId d : replica) {
          std::uint32_t a = t_.accelerator_index(d);
          if (a != kNone) occupancy_.take(a, static_cast<std::uint32_t>(jobs.size() + i), tenant);
        }
      // Domains an occupied exclusive_level job has to itself stay its own.
      if (i < old.jobs.size() && old.jobs[i].exclusive_level)
        if (auto level = t_.find_level(*old.jobs[i].exclusive_level)) reserve(*level, p.replicas);
    }
  }

  // Pods already running: their accelerators are taken, the rest is usage.
  if (options_.running) {
    const auto owner = static_cast<std::uint32_t>(jobs.size() + (options_.occupied ? options_.occupied->placements.size() : 0));
    for (const RunningPods::OnNode& n : options_.running->nodes) {
      take_running(t_, n, owner, occupancy_);
      ResourceList rest = n.requests;
      rest.erase("nvidia.com/gpu");
      rest.erase("amd.com/gpu");
      usage_.add_total(n.node, rest);
    }
  }

  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].priority > jobs[b].priority; });
  for (std::size_t j : order) {
    JobPlacement& out = plan.placements[j];
    if (!place(jobs[j], resolved[j], static_cast<std::uint32_t>(j), out) && out.reason.empty())
      explain(jobs[j], resolved[j], out);
  }
  plan.jobs = std::move(jobs);
  return plan;
}

}  // namespace

Plan plan_jobs(const Topology& topology, std::vector<Job> jobs, const PlanOptions& options) {
  Planner planner(topology, options);
  Plan plan = planner.run(std::move(jobs));
  std::uint64_t occupied = 0;
  if (options.occupied)
    for (const JobPlacement& p : options.occupied->placements)
      if (p.placed) occupied += p.device_count();
  if (options.running)
    for (const RunningPods::OnNode& n : options.running->nodes) occupied += n.accelerators;
  price_plan(topology, plan, options.pricer);
  plan.summary.accelerators_occupied = occupied;
  plan.summary.accelerators_free -= std::min(plan.summary.accelerators_free, occupied);
  // Recompute per-level free islands with the occupied devices taken, and
  // the accelerators of running pods (counts per node: which ones is moot).
  if (options.occupied || options.running) {
    Occupancy occ(topology);
    for (const Plan* p : std::array<const Plan*, 2>{&plan, options.occupied})
      if (p)
        for (const JobPlacement& jp : p->placements)
          if (jp.placed)
            for (const auto& r : jp.replicas)
              for (DeviceId d : r)
                if (topology.accelerator_index(d) != kNone) occ.take(topology.accelerator_index(d), 0);
    if (options.running)
      for (const RunningPods::OnNode& n : options.running->nodes) take_running(topology, n, 0, occ);
    for (LevelIndex l = 0; l <= topology.host_level(); ++l) {
      auto [first, last] = topology.domains_at(l);
      LevelFree& lf = plan.summary.levels[l];
      lf.largest_free = 0;
      lf.free_domains = 0;
      for (DomainId d = first; d < last; ++d) {
        lf.largest_free = std::max(lf.largest_free, occ.free_in(d));
        lf.free_domains += occ.usable_in(d) > 0 && occ.free_in(d) == occ.usable_in(d) ? 1u : 0u;
      }
    }
  }
  return plan;
}

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
    for (std::size_t i = 0; i < owners.size(); ++i) {
      JobPlacement& p = plan.placements[owners[i].first];
      double alone = pricer->step_seconds(*jobs[i], ranks[i]);
      p.step_seconds = std::max(p.step_seconds, alone);
      p.shared_step_seconds = std::max(p.shared_step_seconds, shared[i]);
    }
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
  for (std::size_t j = 0; j < plan.placements.size(); ++j) {
    JobPlacement& p = plan.placements[j];
    p.problems.clear();
    if (p.placed) p.problems = check_placement(topology, plan, j);
  }
}

Span span_of(const Topology& topology, const JobPlacement& placement) {
  if (placement.pods.empty()) return span_of(topology, placement.replicas);
  // Every pod's node, with or without accelerators.
  Span span;
  span.domains.resize(topology.host_level() + 1);
  for (const JobPlacement::NodePods& p : placement.pods)
    for (DomainId d = p.node; d != kNone && topology.domain(d).level >= 1; d = topology.domain(d).parent)
      span.domains[topology.domain(d).level].push_back(d);
  for (auto& level : span.domains) {
    std::sort(level.begin(), level.end());
    level.erase(std::unique(level.begin(), level.end()), level.end());
  }
  span.nodes = span.domains[topology.host_level()];
  return span;
}

Span span_of(const Topology& topology, const std::vector<std::vector<DeviceId>>& replicas) {
  Span span;
  span.domains.resize(topology.host_level() + 1);
  for (const auto& replica : replicas)
    for (DeviceId d : replica) {
      DomainId owner = topology.device(d).domain;
      for (LevelIndex l = topology.domain(owner).level; l >= 1; --l) {
        span.domains[l].push_back(topology.ancestor(owner, l));
        if (l == 1) break;
      }
    }
  for (auto& level : span.domains) {
    std::sort(level.begin(), level.end());
    level.erase(std::unique(level.begin(), level.end()), level.end());
  }
  span.nodes = span.domains[topology.host_level()];
  return span;
}

std::vector<std::string> check_placement(const Topology& topology, const Plan& plan, std::size_t j) {
  std::vector<std::string> problems;
  const Job& job = plan.jobs[j];
  const JobPlacement& p = plan.placements[j];
  if (!p.placed) {
    problems.push_back(fmt::format("not placed: {}", p.reason));
    return problems;
  }
  auto level_of = [&](const std::optional<std::string>& name) -> std::optional<LevelIndex> {
    return name ? topology.find_level(*name) : std::nullopt;
  };
  const Levels levels = effective_levels(
      {level_of(job.required), level_of(job.spread), level_of(job.replicas_within), level_of(job.exclusive_level)},
      static_cast<std::uint32_t>(p.replicas.size()));
  const std::optional<LevelIndex> required = levels.required;
  const std::optional<LevelIndex> spread = levels.spread;
  auto level_name = [&](LevelIndex l) { return topology.levels()[l].name; };
  // Domains of `level` a set of devices touches, in id order.
  auto domains_of = [&](const std::vector<std::vector<DeviceId>>& replicas, LevelIndex level) {
    std::vector<DomainId> ds;
    for (const auto& replica : replicas)
      for (DeviceId d : replica) ds.push_back(topology.ancestor(topology.device(d).domain, level));
    std::sort(ds.begin(), ds.end());
    ds.erase(std::unique(ds.begin(), ds.end()), ds.end());
    return ds;
  };
  std::vector<DomainId> spread_domains;
  for (std::size_t r = 0; r < p.replicas.size(); ++r) {
    const auto& replica = p.replicas[r];
    std::string which = p.replicas.size() > 1 ? fmt::format("replica {} ", r) : "";
    if (replica.empty()) continue;
    if (required) {
      std::vector<DomainId> ds = domains_of({replica}, *required);
      if (ds.size() > 1)
        problems.push_back(fmt::format("{}spans {} {}s but requires one", which, ds.size(), level_name(*required)));
    }
    if (spread) {
      DomainId d = topology.ancestor(topology.device(replica.front()).domain, *spread);
      bool from_exclusive = !job.spread || (levels.exclusive && *levels.exclusive == *spread);
      if (std::find(spread_domains.begin(), spread_domains.end(), d) != spread_domains.end())
        problems.push_back(fmt::format("{}shares {} '{}' with another replica ({}: {})", which, level_name(*spread),
                                       topology.domain_name(d), from_exclusive ? "exclusive_level" : "spread",
                                       level_name(*spread)));
      spread_domains.push_back(d);
    }
    for (DeviceId d : replica) {
      const Device& dev = topology.device(d);
      if (!is_accelerator(dev.kind)) {
        problems.push_back(fmt::format("'{}' is not an accelerator", topology.device_name(d)));
        break;
      }
      if (dev.state != DeviceState::up) {
        problems.push_back(fmt::format("'{}' is {}", topology.device_name(d), state_name(dev.state)));
        break;
      }
      if (!model_matches(topology, job, d)) {
        problems.push_back(fmt::format("'{}' is a {}, not '{}'", topology.device_name(d), topology.str(dev.model),
                                       job.accelerator_model));
        break;
      }
    }
  }
  // Sharing with other jobs: devices, exclusive nodes, tenants.
  std::multimap<DeviceId, std::size_t> device_owner;
  std::map<DomainId, std::vector<std::size_t>> node_jobs;
  for (std::size_t k = 0; k < plan.placements.size(); ++k) {
    if (!plan.placements[k].placed) continue;
    for (const auto& replica : plan.placements[k].replicas)
      for (DeviceId d : replica) {
        device_owner.emplace(d, k);
        auto& on_node = node_jobs[topology.device(d).domain];
        if (on_node.empty() || on_node.back() != k) on_node.push_back(k);
      }
  }
  std::vector<std::string> shared_devices;
  for (const auto& replica : p.replicas)
    for (DeviceId d : replica) {
      auto [first, last] = device_owner.equal_range(d);
      for (auto it = first; it != last; ++it)
        if (it->second != j) {
          shared_devices.push_back(fmt::format("'{}' with '{}'", topology.device_name(d), plan.jobs[it->second].name));
          break;
        }
    }
  if (!shared_devices.empty())
    problems.push_back(fmt::format("shares devices: {}{}", fmt::join(shared_devices.begin(),
                                                                   shared_devices.begin() +
                                                                       static_cast<long>(std::min<std::size_t>(3, shared_devices.size())),
                                                                   ", "),
                                   shared_devices.size() > 3 ? ", ..." : ""));
  for (const DomainId node : span_of(topology, p.replicas).nodes) {
    for (std::size_t k : node_jobs[node]) {
      if (k == j) continue;
      const Job& other = plan.jobs[k];
      if (job.exclusive || other.exclusive) {
        problems.push_back(fmt::format("shares node '{}' with '{}' but {} exclusive", topology.hostname(node), other.name,
                                       job.exclusive ? "is" : "that job is"));
        break;
      }
      if (!job.tenant.empty() && !other.tenant.empty() && job.tenant != other.tenant) {
        problems.push_back(fmt::format("shares node '{}' with tenant '{}' ('{}')", topology.hostname(node), other.tenant,
                                       other.name));
        break;
      }
    }
  }
  // All replicas in one domain.
  if (levels.within) {
    std::vector<DomainId> ds = domains_of(p.replicas, *levels.within);
    if (ds.size() > 1)
      problems.push_back(fmt::format("its replicas span {} {}s but must all be in one (replicas_within: {})", ds.size(),
                                     level_name(*levels.within), level_name(*levels.within)));
  }
  // Domains an exclusive_level job has to itself: this job's, or another's.
  for (std::size_t k = 0; k < plan.placements.size(); ++k) {
    if (k == j || !plan.placements[k].placed) continue;
    const Job& other = plan.jobs[k];
    const std::vector<std::vector<DeviceId>>& theirs = plan.placements[k].replicas;
    std::optional<LevelIndex> own = levels.exclusive;
    std::optional<LevelIndex> their = own ? std::nullopt : level_of(other.exclusive_level);
    if (!own && !their) continue;
    LevelIndex level = own ? *own : *their;
    std::vector<DomainId> mine = domains_of(p.replicas, level);
    std::vector<DomainId> other_domains = domains_of(theirs, level);
    std::vector<DomainId> both;
    std::set_intersection(mine.begin(), mine.end(), other_domains.begin(), other_domains.end(),
                          std::back_inserter(both));
    if (both.empty()) continue;
    if (own)
      problems.push_back(fmt::format("shares {} '{}' with '{}' but must have it to itself (exclusive_level: {})",
                                     level_name(level), topology.domain_name(both.front()), other.name,
                                     level_name(level)));
    else
      problems.push_back(fmt::format("uses {} '{}', which '{}' must have to itself (exclusive_level: {})",
                                     level_name(level), topology.domain_name(both.front()), other.name,
                                     level_name(level)));
  }
  // Pods placed as Kueue places them hold what they request, which for pods
  // without accelerators is none.
  std::uint64_t expected = job.nodes || !p.pods.empty() ? 0 : job.accelerators();
  if (expected && p.device_count() != expected)
    problems.push_back(fmt::format("holds {} accelerators but asks for {}", p.device_count(), expected));
  return problems;
}

}  // namespace topoplan
