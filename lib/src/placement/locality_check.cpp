#include "topoplan/placement/locality_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "topoplan/cost/cost_model.hpp"
#include "topoplan/placement/job_pricer.hpp"

namespace topoplan {

namespace {

// "1.234 s", "12.3 ms", "45 us": what a step spends.
std::string seconds_text(double s) {
  if (!std::isfinite(s)) return "unreachable";
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.1f} us", s * 1e6);
}

// The islands (by index) a rank list spans, in order of first appearance;
// empty when a rank has no scale-up island.
std::vector<std::uint32_t> islands_of(const FabricProfile& fabric, const Topology& t,
                                      std::span<const DeviceId> ranks) {
  std::vector<std::uint32_t> out;
  for (DeviceId d : ranks) {
    const std::uint32_t a = t.accelerator_index(d);
    if (a == kNone) return {};
    const std::uint32_t island = fabric.accelerator(a).island;
    if (island == kNone) return {};
    if (std::find(out.begin(), out.end(), island) == out.end()) out.push_back(island);
  }
  return out;
}

// `count` accelerators of `island` to price the group inside it: the island's
// accelerators in topology order (occupied or not: a what-if). Once per issue.
std::vector<DeviceId> inside(const FabricProfile& fabric, const Topology& t, std::uint32_t island,
                             std::size_t count) {
  std::vector<DeviceId> out;
  const auto accels = t.accelerators();
  // No island crosses a domain of the islands' level: only the one holding
  // it is searched (a scan of every accelerator per issue took a seventh of
  // planning 10,000 scattered jobs on 131,040 GPUs).
  const LevelIndex level = fabric.islands().level == kNone ? 0 : fabric.islands().level;
  const Domain& within = t.domain(t.ancestor(fabric.island_domain(island), level));
  for (std::uint32_t a = within.accel_begin; a < within.accel_end && out.size() < count; ++a)
    if (fabric.accelerator(a).island == island) out.push_back(accels[a]);
  return out;
}

}  // namespace

std::vector<LocalityIssue> locality_issues(const Topology& t, const Plan& plan, std::size_t j,
                                           const CostModel* model) {
  std::vector<LocalityIssue> out;
  if (!model) return out;
  const Job& job = plan.jobs[j];
  const JobPlacement& placement = plan.placements[j];
  const FabricProfile& fabric = model->fabric();
  const Workload w = JobPricer::workload_of(job);
  for (std::size_t r = 0; r < placement.replicas.size(); ++r) {
    const std::vector<DeviceId>& ranks = placement.replicas[r];
    const Parallelism p = JobPricer::parallelism_of(job, ranks.size());
    auto rank = [&](std::uint32_t tt, std::uint32_t s, std::uint32_t d) { return ranks[tt + p.tp * (s + p.pp * d)]; };
    for (StepKind kind : {StepKind::tp, StepKind::ep}) {
      const bool tp = kind == StepKind::tp;
      const std::uint32_t size = tp ? p.tp : p.ep;
      if (size < 2) continue;
      if (tp ? (w.activation_bytes <= 0 || w.layers == 0) : (w.moe_dispatch_bytes <= 0 || w.moe_layers == 0)) continue;
      // Collectives per step of one group, as CostModel::step counts them.
      const double per_layer = w.training ? 4 : 2;
      const double layers = static_cast<double>(tp ? w.layers : w.moe_layers) / p.pp;
      const double repeat = per_layer * layers * w.micro_batches;
      const Collective op = tp ? Collective::allreduce : Collective::alltoall;
      const auto bytes = static_cast<std::uint64_t>(std::max(1.0, std::ceil(tp ? w.activation_bytes : w.moe_dispatch_bytes)));
      LocalityIssue issue;
      issue.kind = kind;
      issue.replica = r;
      std::vector<DeviceId> group;
      std::uint32_t index = 0;
      std::uint32_t home = kNone;  // the island that would hold the worst group
      auto visit = [&]() {
        ++issue.groups;
        const std::vector<std::uint32_t> islands = islands_of(fabric, t, group);
        // The largest of its islands: the one that would hold it, if any does.
        std::uint32_t largest = kNone;
        for (std::uint32_t island : islands)
          if (largest == kNone || fabric.islands().size[island] > fabric.islands().size[largest]) largest = island;
        if (islands.size() < 2 || fabric.islands().size[largest] < group.size()) {
          ++index;
          return;
        }
        ++issue.spread_groups;
        const CollectiveCost now = model->collective({group, op, bytes});
        const double seconds = (now.reachable ? now.time_us : std::numeric_limits<double>::infinity()) * 1e-6 * repeat;
        if (issue.spread_groups == 1 || seconds > issue.seconds) {
          issue.seconds = seconds;
          issue.worst_group = index;
          issue.worst_ranks = group;
          home = largest;
          issue.islands.clear();
          for (std::uint32_t island : islands) issue.islands.push_back(fabric.island_domain(island));
        }
        ++index;
      };
      if (tp) {
        for (std::uint32_t d = 0; d < p.dp; ++d)
          for (std::uint32_t s = 0; s < p.pp; ++s) {
            group.clear();
            for (std::uint32_t tt = 0; tt < p.tp; ++tt) group.push_back(rank(tt, s, d));
            visit();
          }
      } else {
        for (std::uint32_t s = 0; s < p.pp; ++s)
          for (std::uint32_t tt = 0; tt < p.tp; ++tt)
            for (std::uint32_t block = 0; block < p.dp / p.ep; ++block) {
              group.clear();
              for (std::uint32_t k = 0; k < p.ep; ++k) group.push_back(rank(tt, s, block * p.ep + k));
              visit();
            }
      }
      if (issue.spread_groups == 0) continue;
      // The worst group's collectives on accelerators of one of its islands.
      const std::vector<DeviceId> alternative = inside(fabric, t, home, issue.worst_ranks.size());
      issue.inside_seconds = model->collective({alternative, op, bytes}).time_us * 1e-6 * repeat;
      out.push_back(std::move(issue));
    }
  }
  return out;
}

void add_locality_problems(const Topology& t, const Plan& plan, std::size_t j, const CostModel* model,
                           std::vector<std::string>& problems) {
  for (const LocalityIssue& issue : locality_issues(t, plan, j, model)) {
    const bool nvlink = model->fabric().accelerator(t.accelerator_index(issue.worst_ranks.front())).scale_up_family ==
                        LinkFamily::nvlink;
    const char* domain = nvlink ? "NVLink domain" : "scale-up domain";
    std::vector<std::string> names;
    for (DomainId d : issue.islands) names.push_back(t.domain_name(d));
    const std::string what = issue.kind == StepKind::tp ? "tensor-parallel" : "expert-parallel";
    const std::string replica = plan.placements[j].replicas.size() > 1 ? fmt::format("replica {}: ", issue.replica) : "";
    const char* collectives = issue.kind == StepKind::tp ? "all-reduces" : "all-to-alls";
    const std::string cost = fmt::format("{} per step in {} against {} inside one (+{})", seconds_text(issue.seconds),
                                         collectives, seconds_text(issue.inside_seconds),
                                         seconds_text(issue.seconds - issue.inside_seconds));
    if (issue.spread_groups == 1)
      problems.push_back(fmt::format("{}{} group {} ({} ranks) spans {} {}s ({}) though one would hold it: it spends {}",
                                     replica, what, issue.worst_group, issue.worst_ranks.size(), names.size(), domain,
                                     fmt::join(names, ", "), cost));
    else
      problems.push_back(fmt::format(
          "{}{} of {} {} groups ({} ranks each) span several {}s though one would hold each; the worst, group {} "
          "({}), spends {}",
          replica, issue.spread_groups, issue.groups, what, issue.worst_ranks.size(), domain, issue.worst_group,
          fmt::join(names, ", "), cost));
  }
}

}  // namespace topoplan
