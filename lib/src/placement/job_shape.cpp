#include "job_shape.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace topoplan {

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

}  // namespace

JobLevels effective_levels(JobLevels l, std::uint32_t replicas) {
  if (l.exclusive) {
    l.required = std::max(l.required.value_or(*l.exclusive), *l.exclusive);
    if (replicas > 1) l.spread = std::min(l.spread.value_or(*l.exclusive), *l.exclusive);
  }
  if (l.within && *l.within == 0) l.within.reset();  // everything is inside the root
  return l;
}

JobShape resolve_job(const Topology& t, const Job& job, std::uint32_t node_size) {
  JobShape r;
  r.required = resolve_level(t, job.required, job, "required");
  r.preferred = resolve_level(t, job.preferred, job, "preferred");
  r.spread = resolve_level(t, job.spread, job, "spread");
  JobLevels levels = effective_levels({r.required, r.spread, resolve_level(t, job.replicas_within, job, "replicas_within"),
                                       resolve_level(t, job.exclusive_level, job, "exclusive_level")},
                                      job.replicas);
  r.required = levels.required;
  r.spread = levels.spread;
  r.within = levels.within;
  r.exclusive = levels.exclusive;
  r.spare = resolve_level(t, job.spare, job, "spare");
  r.whole_nodes = job.exclusive;
  if (job.nodes) {
    r.units = job.nodes;
    r.ranks = job.nodes * node_size;
    if (job.parallelism.ranks() != job.parallelism.dp || job.parallelism.dp != 1) {
      if (job.parallelism.ranks() != r.ranks && job.parallelism.ranks() != 1)
        throw InputError(job.where, fmt::format("job '{}': {} nodes of {} accelerators are {} ranks, but its "
                                                "parallelism makes {}",
                                                job.name, job.nodes, node_size, r.ranks, job.parallelism.ranks()));
    }
  } else if (job.exclusive) {
    r.ranks = job.per_replica;
    r.units = node_size ? (job.per_replica + node_size - 1) / node_size : job.per_replica;
  } else {
    r.units = r.ranks = job.per_replica;
  }
  if (job.parallelism.tp > 1 && node_size && job.parallelism.tp <= node_size && node_size % job.parallelism.tp == 0)
    r.granule = job.parallelism.tp;
  r.group = std::max(r.granule, job.parallelism.tp * job.parallelism.pp);
  if (r.group > r.ranks || (r.ranks % r.group) != 0) r.group = r.granule;
  if (r.within && r.spread && job.replicas > 1 && *r.spread <= *r.within)
    throw InputError(job.where, fmt::format("job '{}': its {} replicas cannot be in different {}s{} and all in one {} "
                                            "(replicas_within)",
                                            job.name, job.replicas, t.levels()[*r.spread].name,
                                            r.exclusive && *r.exclusive == *r.spread ? " (exclusive_level)" : "",
                                            t.levels()[*r.within].name));
  return r;
}

std::string shape_text(const Topology& t, const JobShape& r, std::uint32_t replicas) {
  auto level_name = [&](LevelIndex l) { return t.levels()[l].name; };
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

std::string unit_text(const Topology& t, const JobShape& r, std::uint64_t n) {
  if (r.whole_nodes) return fmt::format("{} whole node{}", n, n == 1 ? "" : "s");
  bool lpu = !t.accelerators().empty() && t.device(t.accelerators()[0]).kind == DeviceKind::lpu;
  return fmt::format("{} {}{}", n, lpu ? "LPU" : "GPU", n == 1 ? "" : "s");
}

}  // namespace topoplan
