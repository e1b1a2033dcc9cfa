#include "topoplan/placement/placement_check.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "job_shape.hpp"
#include "topoplan/placement/chain_path.hpp"
#include "topoplan/io/hostlist.hpp"

namespace topoplan {

namespace {

std::optional<LevelIndex> level_of(const Topology& t, const std::optional<std::string>& name) {
  return name ? t.find_level(*name) : std::nullopt;
}

bool model_matches(const Topology& t, const Job& job, DeviceId device) {
  if (job.accelerator_model.empty()) return true;
  NamePattern p;
  std::string error;
  if (!p.parse(job.accelerator_model, error)) return false;
  return p.matches(t.str(t.device(device).model));
}

// "48 of its 144 GPUs are down (su000/r0003)": the job's accelerators in
// `state`, named by the largest domains wholly in that state (at most 3).
std::string lost_text(const Topology& t, const std::vector<std::vector<DeviceId>>& replicas, DeviceState state) {
  std::uint64_t total = 0;
  std::vector<DomainId> where;  // a node or coarser domain, or kNone + device for a single device
  std::vector<DeviceId> single;
  auto all_in_state = [&](DomainId domain) {
    const Domain& d = t.domain(domain);
    for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a)
      if (t.device(t.accelerators()[a]).state != state) return false;
    return d.accel_begin < d.accel_end;
  };
  std::uint64_t hit = 0;
  bool lpu = false;
  for (const auto& replica : replicas)
    for (DeviceId id : replica) {
      const Device& dev = t.device(id);
      if (!is_accelerator(dev.kind)) continue;
      ++total;
      lpu = dev.kind == DeviceKind::lpu;
      if (dev.state != state) continue;
      ++hit;
      if (!all_in_state(dev.domain)) {
        if (std::find(single.begin(), single.end(), id) == single.end()) single.push_back(id);
        continue;
      }
      DomainId d = dev.domain;
      while (t.domain(d).parent != kNone && t.domain(d).parent != t.root() && all_in_state(t.domain(d).parent))
        d = t.domain(d).parent;
      if (std::find(where.begin(), where.end(), d) == where.end()) where.push_back(d);
    }
  if (hit == 0) return "";
  std::vector<std::string> names;
  for (DomainId d : where) names.push_back(t.domain_name(d));
  for (DeviceId d : single) names.push_back(t.device_name(d));
  std::string listed = fmt::format("{}", fmt::join(names.begin(), names.begin() + static_cast<long>(std::min<std::size_t>(3, names.size())), ", "));
  if (names.size() > 3) listed += ", ...";
  const char* unit = lpu ? "LPU" : "GPU";
  return fmt::format("{} of its {} {}s {} {} ({})", hit, total, unit, hit == 1 ? "is" : "are",
                     state == DeviceState::down ? "down" : "draining", listed);
}

// Who uses what, built once per plan so that checking every job is linear in
// the plan's devices.
struct PlanIndex {
  std::vector<std::uint32_t> first_owner;                  // per device: first job using it, or kNone
  std::map<DeviceId, std::vector<std::uint32_t>> owners;   // devices several jobs use: all of them
  std::vector<std::vector<std::uint32_t>> domain_jobs;     // per device's domain: jobs using it
  std::vector<std::optional<LevelIndex>> exclusive;        // per job: its exclusive_level
  // Per level some job keeps to itself: jobs touching each domain of it.
  std::map<LevelIndex, std::map<DomainId, std::vector<std::uint32_t>>> level_jobs;

  PlanIndex(const Topology& t, const Plan& plan) : first_owner(t.device_count(), kNone), domain_jobs(t.domain_count()) {
    const std::size_t n = plan.placements.size();
    exclusive.resize(n);
    for (std::size_t k = 0; k < n && k < plan.jobs.size(); ++k) exclusive[k] = level_of(t, plan.jobs[k].exclusive_level);
    std::vector<LevelIndex> levels;
    for (std::size_t k = 0; k < n; ++k)
      if (exclusive[k]) levels.push_back(*exclusive[k]);
    std::sort(levels.begin(), levels.end());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
    for (std::size_t k = 0; k < n; ++k) {
      const JobPlacement& p = plan.placements[k];
      if (!p.placed) continue;
      const auto job = static_cast<std::uint32_t>(k);
      for (const auto& replica : p.replicas)
        for (DeviceId d : replica) {
          if (first_owner[d] == kNone) {
            first_owner[d] = job;
          } else if (first_owner[d] != job) {
            auto& all = owners[d];
            if (all.empty()) all.push_back(first_owner[d]);
            if (all.back() != job) all.push_back(job);
          }
          auto& on_domain = domain_jobs[t.device(d).domain];
          if (on_domain.empty() || on_domain.back() != job) on_domain.push_back(job);
          for (LevelIndex l : levels) {
            if (l > t.domain(t.device(d).domain).level) continue;
            auto& there = level_jobs[l][t.ancestor(t.device(d).domain, l)];
            if (there.empty() || there.back() != job) there.push_back(job);
          }
        }
    }
  }
};

std::vector<std::string> check_one(const Topology& topology, const Plan& plan, const PlanIndex& index, std::size_t j) {
  std::vector<std::string> problems;
  const Job& job = plan.jobs[j];
  const JobPlacement& p = plan.placements[j];
  if (!p.placed) {
    problems.push_back(fmt::format("not placed: {}", p.reason));
    return problems;
  }
  const JobLevels levels = effective_levels(
      {level_of(topology, job.required), level_of(topology, job.spread), level_of(topology, job.replicas_within),
       level_of(topology, job.exclusive_level)},
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
      if (dev.state != DeviceState::up) continue;  // counted for the whole job below
      if (!model_matches(topology, job, d)) {
        problems.push_back(fmt::format("'{}' is a {}, not '{}'", topology.device_name(d), topology.str(dev.model),
                                       job.accelerator_model));
        break;
      }
    }
  }
  for (DeviceState state : {DeviceState::down, DeviceState::drain})
    if (std::string lost = lost_text(topology, p.replicas, state); !lost.empty()) problems.push_back(lost);
  std::vector<std::string> shared_devices;
  for (const auto& replica : p.replicas)
    for (DeviceId d : replica) {
      auto it = index.owners.find(d);
      if (it == index.owners.end()) {
        if (index.first_owner[d] != kNone && index.first_owner[d] != j)
          shared_devices.push_back(fmt::format("'{}' with '{}'", topology.device_name(d),
                                               plan.jobs[index.first_owner[d]].name));
        continue;
      }
      for (std::uint32_t k : it->second)
        if (k != j) {
          shared_devices.push_back(fmt::format("'{}' with '{}'", topology.device_name(d), plan.jobs[k].name));
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
    for (std::size_t k : index.domain_jobs[node]) {
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
  // For each other job, the first domain both use.
  std::map<std::size_t, std::pair<DomainId, LevelIndex>> conflicts;
  auto collect = [&](LevelIndex level, bool any_job) {
    auto at = index.level_jobs.find(level);
    if (at == index.level_jobs.end()) return;
    for (DomainId d : domains_of(p.replicas, level)) {
      auto there = at->second.find(d);
      if (there == at->second.end()) continue;
      for (std::uint32_t k : there->second) {
        if (k == j) continue;
        if (!any_job && index.exclusive[k] != level) continue;
        conflicts.try_emplace(k, d, level);
      }
    }
  };
  if (levels.exclusive) {
    collect(*levels.exclusive, true);
  } else {
    std::vector<LevelIndex> theirs;
    for (const auto& [level, domains] : index.level_jobs) theirs.push_back(level);
    for (LevelIndex level : theirs) collect(level, false);
  }
  for (const auto& [k, where] : conflicts) {
    const auto [domain, level] = where;
    const Job& other = plan.jobs[k];
    if (levels.exclusive)
      problems.push_back(fmt::format("shares {} '{}' with '{}' but must have it to itself (exclusive_level: {})",
                                     level_name(level), topology.domain_name(domain), other.name, level_name(level)));
    else
      problems.push_back(fmt::format("uses {} '{}', which '{}' must have to itself (exclusive_level: {})",
                                     level_name(level), topology.domain_name(domain), other.name, level_name(level)));
  }
  // Pods placed as Kueue places them hold what they request, which for pods
  // without accelerators is none.
  std::uint64_t expected = job.nodes || !p.pods.empty() ? 0 : job.accelerators();
  if (expected && p.device_count() != expected)
    problems.push_back(fmt::format("holds {} accelerators but asks for {}", p.device_count(), expected));
  // A shaped job's compiled schedule needs its shape link by link.
  if (job.shape != ChainShape::none)
    for (std::size_t r = 0; r < p.replicas.size(); ++r)
      if (std::string problem =
              chain_problem(topology, measure_chain(topology, p.replicas[r], job.shape), job.shape, job.deterministic);
          !problem.empty())
        problems.push_back(p.replicas.size() > 1 ? fmt::format("replica {}: {}", r + 1, problem) : problem);
  return problems;
}

}  // namespace

Span span_of(const Topology& topology, const std::vector<std::vector<DeviceId>>& replicas) {
  Span span;
  span.domains.resize(topology.host_level() + 1);
  for (const auto& replica : replicas)
    for (DeviceId d : replica) {
      DomainId owner = topology.device(d).domain;
      // Ranks come grouped by node: a domain the previous rank already
      // added is not pushed again (nor, then, its ancestors).
      for (LevelIndex l = topology.domain(owner).level; l >= 1; --l) {
        const DomainId at = topology.ancestor(owner, l);
        std::vector<DomainId>& level = span.domains[l];
        if (!level.empty() && level.back() == at) break;
        level.push_back(at);
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

std::vector<std::vector<std::string>> check_plan(const Topology& topology, const Plan& plan) {
  PlanIndex index(topology, plan);
  std::vector<std::vector<std::string>> out(plan.placements.size());
  for (std::size_t j = 0; j < plan.placements.size(); ++j) out[j] = check_one(topology, plan, index, j);
  return out;
}

std::vector<std::string> check_placement(const Topology& topology, const Plan& plan, std::size_t job) {
  PlanIndex index(topology, plan);
  return check_one(topology, plan, index, job);
}

}  // namespace topoplan
