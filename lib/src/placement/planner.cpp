#include "topoplan/placement/planner.hpp"

#include "topoplan/model/node_size.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
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

struct Resolved {
  std::optional<LevelIndex> required;
  std::optional<LevelIndex> preferred;
  std::optional<LevelIndex> spread;
  bool whole_nodes = false;
  std::uint32_t units = 0;      // per replica: accelerators, or nodes
  std::uint32_t ranks = 0;      // per replica: accelerators that get ranks
  std::uint32_t granule = 1;
  std::uint32_t group = 1;
};

class Planner {
 public:
  Planner(const Topology& t, const PlanOptions& options)
      : t_(t), options_(options), occupancy_(t), node_size_(typical_node_accelerators(t)) {
    policy_ = make_policy(options.policy, t);
  }

  Plan run(std::vector<Job> jobs);

 private:
  Resolved resolve(const Job& job) const;
  std::uint32_t tenant_id(const std::string& tenant);
  CapacityView view_for(const Job& job, const Resolved& r, const std::vector<DomainId>& excluded) const;
  std::vector<std::uint32_t> place_replica(const Job& job, const Resolved& r, const std::vector<DomainId>& excluded,
                                           const PlacementPolicy& policy, const Occupancy& occupancy) const;
  bool place(const Job& job, const Resolved& r, std::uint32_t job_id, JobPlacement& out);
  void explain(const Job& job, const Resolved& r, JobPlacement& out);
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
  std::uint32_t node_size_;
  std::unique_ptr<PlacementPolicy> policy_;
  std::map<std::string, std::uint32_t> tenants_;
};

Resolved Planner::resolve(const Job& job) const {
  Resolved r;
  r.required = resolve_level(t_, job.required, job, "required");
  r.preferred = resolve_level(t_, job.preferred, job, "preferred");
  r.spread = resolve_level(t_, job.spread, job, "spread");
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
  if (r.required && r.spread && *r.spread < *r.required)
    throw InputError(job.where, fmt::format("job '{}': replicas cannot be spread over {}s inside one {}", job.name,
                                            level_name(*r.spread), level_name(*r.required)));
  return r;
}

std::uint32_t Planner::tenant_id(const std::string& tenant) {
  if (tenant.empty()) return kNone;
  return tenants_.try_emplace(tenant, static_cast<std::uint32_t>(tenants_.size())).first->second;
}

CapacityView Planner::view_for(const Job& job, const Resolved& r, const std::vector<DomainId>& excluded) const {
  CapacityView view(occupancy_, r.whole_nodes);
  bool tenant_bound = !tenants_.empty();
  std::uint32_t tenant = kNone;
  if (!job.tenant.empty()) {
    auto it = tenants_.find(job.tenant);
    tenant = it == tenants_.end() ? kNone - 2 : it->second;
  }
  if (!job.accelerator_model.empty() || tenant_bound) {
    auto accels = t_.accelerators();
    view.restrict([&](std::uint32_t a) {
      if (!model_matches(t_, job, accels[a])) return false;
      std::uint32_t owner_tenant = occupancy_.node_tenant(occupancy_.node_of(a));
      // Nodes of a named tenant take only that tenant's jobs, and a named
      // tenant's job takes no node another tenant uses.
      return owner_tenant == kNone || owner_tenant == tenant;
    });
  }
  for (DomainId d : excluded) view.exclude(d);
  return view;
}

std::vector<std::uint32_t> Planner::place_replica(const Job& job, const Resolved& r,
                                                  const std::vector<DomainId>& excluded,
                                                  const PlacementPolicy& policy, const Occupancy& occupancy) const {
  (void)occupancy;
  CapacityView view = view_for(job, r, excluded);
  PlaceRequest request;
  request.units = r.units;
  request.granule = r.granule;
  request.group = r.group;
  request.required = r.required;
  request.preferred = r.preferred;
  request.job = &job;
  request.pricer = options_.pricer;
  std::vector<std::uint32_t> accels = policy.place(view, request);
  return accels;
}

bool Planner::place(const Job& job, const Resolved& r, std::uint32_t job_id, JobPlacement& out) {
  std::vector<DomainId> excluded;
  std::vector<std::vector<std::uint32_t>> taken;
  std::uint32_t tenant = tenant_id(job.tenant);
  auto rollback = [&]() {
    for (const auto& group : taken)
      for (std::uint32_t a : group) occupancy_.release(a);
  };
  for (std::uint32_t replica = 0; replica < job.replicas; ++replica) {
    std::vector<std::uint32_t> accels = place_replica(job, r, excluded, *policy_, occupancy_);
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
  return true;
}

void Planner::explain(const Job& job, const Resolved& r, JobPlacement& out) {
  CapacityView view = view_for(job, r, {});
  std::uint32_t total_free = view.count(t_.root());
  std::uint64_t needed = static_cast<std::uint64_t>(r.units) * job.replicas;
  std::string what = unit_name(job, r, static_cast<std::uint32_t>(needed));
  std::string model = job.accelerator_model.empty() ? "" : fmt::format(" of model '{}'", job.accelerator_model);
  std::string tenant = job.tenant.empty() ? "" : fmt::format(" outside other tenants' nodes");
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
  if (r.required) {
    std::string level = level_name(*r.required);
    std::string per = job.replicas > 1 ? " per replica" : "";
    std::uint32_t capacity = largest_at(*r.required, false);
    if (capacity < r.units)
      out.reason = fmt::format("needs {}{} in one {}{}; a {} holds at most {}", unit_name(job, r, r.units), model,
                               level, per, level, capacity);
    else if (total_free < needed)
      out.reason = fmt::format("needs {}{}; only {} {} free{}", what, model, total_free,
                               total_free == 1 ? "is" : "are", tenant);
    else
      out.reason = fmt::format("needs {}{} in one {}{}; the largest free {} island has {}", unit_name(job, r, r.units),
                               model, level, per, level, largest_at(*r.required, true));
    // What would work: the same job without the requirement, and its price.
    Job relaxed = job;
    relaxed.required.reset();
    relaxed.preferred = level;
    Resolved rr = r;
    rr.required.reset();
    rr.preferred = r.required;
    std::vector<std::uint32_t> accels = place_replica(relaxed, rr, {}, *policy_, occupancy_);
    if (accels.empty() || job.replicas > 1) return;
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
    return;
  }
  if (total_free < needed) {
    out.reason = fmt::format("needs {}{}; only {} {} free{}", what, model, total_free,
                             total_free == 1 ? "is" : "are", tenant);
    return;
  }
  if (r.spread) {
    auto [first, last] = t_.domains_at(*r.spread);
    std::uint32_t holders = 0;
    for (DomainId d = first; d < last; ++d) holders += view.count(d) >= r.units ? 1u : 0u;
    out.reason = fmt::format("needs {} replicas of {} in different {}s; {} {}{} {} room for one", job.replicas,
                             unit_name(job, r, r.units), level_name(*r.spread), holders, level_name(*r.spread),
                             holders == 1 ? "" : "s", holders == 1 ? "has" : "have");
    return;
  }
  out.reason = fmt::format("needs {}{}; {} are free but the '{}' policy found no placement for them", what, model,
                           total_free, options_.policy);
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
    }
  }

  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].priority > jobs[b].priority; });
  for (std::size_t j : order) {
    JobPlacement& out = plan.placements[j];
    if (!place(jobs[j], resolved[j], static_cast<std::uint32_t>(j), out)) explain(jobs[j], resolved[j], out);
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
  price_plan(topology, plan, options.pricer);
  plan.summary.accelerators_occupied = occupied;
  plan.summary.accelerators_free -= std::min(plan.summary.accelerators_free, occupied);
  // Recompute per-level free islands with the occupied devices taken.
  if (options.occupied) {
    Occupancy occ(topology);
    for (const Plan* p : std::array<const Plan*, 2>{&plan, options.occupied})
      for (const JobPlacement& jp : p->placements)
        if (jp.placed)
          for (const auto& r : jp.replicas)
            for (DeviceId d : r)
              if (topology.accelerator_index(d) != kNone) occ.take(topology.accelerator_index(d), 0);
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
  std::optional<LevelIndex> required = level_of(job.required);
  std::optional<LevelIndex> spread = level_of(job.spread);
  std::vector<DomainId> spread_domains;
  for (std::size_t r = 0; r < p.replicas.size(); ++r) {
    const auto& replica = p.replicas[r];
    std::string which = p.replicas.size() > 1 ? fmt::format("replica {} ", r) : "";
    if (replica.empty()) continue;
    if (required) {
      std::vector<DomainId> ds;
      for (DeviceId d : replica) ds.push_back(topology.ancestor(topology.device(d).domain, *required));
      std::sort(ds.begin(), ds.end());
      ds.erase(std::unique(ds.begin(), ds.end()), ds.end());
      if (ds.size() > 1)
        problems.push_back(fmt::format("{}spans {} {}s but requires one", which, ds.size(), *job.required));
    }
    if (spread) {
      DomainId d = topology.ancestor(topology.device(replica.front()).domain, *spread);
      if (std::find(spread_domains.begin(), spread_domains.end(), d) != spread_domains.end())
        problems.push_back(fmt::format("{}shares {} '{}' with another replica (spread: {})", which, *job.spread,
                                       topology.domain_name(d), *job.spread));
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
  std::uint64_t expected = job.nodes ? 0 : job.accelerators();
  if (expected && p.device_count() != expected)
    problems.push_back(fmt::format("holds {} accelerators but asks for {}", p.device_count(), expected));
  return problems;
}

}  // namespace topoplan
