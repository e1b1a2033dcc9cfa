#include "topoplan/placement/job_levels.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace topoplan {

void check_job_levels(const Topology& topology, const Job& job, DiagnosticSink& sink) {
  const std::pair<const std::optional<std::string>*, const SourceLocation*> keys[] = {
      {&job.required, &job.level_where.required},
      {&job.preferred, &job.level_where.preferred},
      {&job.spread, &job.level_where.spread},
      {&job.replicas_within, &job.level_where.replicas_within},
      {&job.exclusive_level, &job.level_where.exclusive_level},
      {&job.spare, &job.level_where.spare}};
  constexpr const char* kNames[] = {"required", "preferred", "spread", "replicas_within", "exclusive_level", "spare"};
  std::vector<std::string> levels;
  for (const Level& l : topology.levels()) levels.push_back(l.name);
  for (std::size_t k = 0; k < std::size(keys); ++k) {
    const std::optional<std::string>& name = *keys[k].first;
    if (!name || topology.find_level(*name)) continue;
    const SourceLocation& at = keys[k].second->file.empty() ? job.where : *keys[k].second;
    std::string hint = did_you_mean(*name, levels);
    sink.error(at, fmt::format("job '{}': {} level '{}' is not a level of topology '{}' ({}){}{}", job.name, kNames[k],
                               *name, topology.name(), fmt::join(levels, ", "), hint.empty() ? "" : "; ", hint));
  }
}

}  // namespace topoplan
