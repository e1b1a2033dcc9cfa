#include "topoplan/whatif/blast_radius.hpp"

#include <algorithm>

#include "support/disjoint_sets.hpp"
#include "topoplan/model/fabric.hpp"
#include "topoplan/placement/chain_path.hpp"
#include "topoplan/placement/occupancy.hpp"
#include "topoplan/whatif/footprint.hpp"
#include "topoplan/whatif/scenario.hpp"

namespace topoplan {

bool JobImpact::must_move() const {
  return std::any_of(replicas.begin(), replicas.end(), [](const ReplicaImpact& r) { return r.must_move(); });
}

std::uint64_t JobImpact::accelerators_lost() const {
  std::uint64_t n = 0;
  for (const ReplicaImpact& r : replicas) n += r.lost.size();
  return n;
}

namespace {

// Accelerators lost, and whole-domain capacity lost per level.
void capacity(const Topology& t, const ScenarioMask& mask, BlastRadius& out) {
  const ScenarioMask base(t);
  std::vector<std::uint32_t> out_before(t.domain_count(), 0), out_after(t.domain_count(), 0);
  const auto accels = t.accelerators();
  for (std::uint32_t a = 0; a < accels.size(); ++a) {
    const bool before = base.accelerator(a) != DeviceState::up;
    const bool after = mask.accelerator(a) != DeviceState::up;
    if (!before && after) ++out.accelerators_lost;
    if (!before && !after) continue;
    for (DomainId d = t.device(accels[a]).domain; d != kNone; d = t.domain(d).parent) {
      out_before[d] += before ? 1u : 0u;
      out_after[d] += after ? 1u : 0u;
    }
  }
  out.capacity_lost.assign(t.levels().size(), 0);
  for (DomainId d = 0; d < t.domain_count(); ++d) {
    const Domain& dom = t.domain(d);
    if (dom.accelerator_count() > 0 && out_before[d] == 0 && out_after[d] > 0)
      out.capacity_lost[dom.level] += dom.accelerator_count();
  }
}

}  // namespace

BlastRadius blast_radius(const Topology& t, const Plan& plan, const ScenarioMask& mask) {
  BlastRadius out;
  capacity(t, mask, out);

  const std::vector<LinkId> gone = masked_links(mask);
  std::vector<std::uint8_t> link_out(t.link_count(), 0);
  for (LinkId l : gone) link_out[l] = 1;
  // What is left of the fabric, as connected parts.
  DisjointSets<std::uint32_t> parts(t.device_count());
  if (!gone.empty())
    for (LinkId l = 0; l < t.link_count(); ++l)
      if (!link_out[l]) parts.join(t.link(l).a, t.link(l).b);
  const ScaleUpIslands islands = gone.empty() ? ScaleUpIslands{} : find_scale_up_islands(t);

  for (std::size_t j = 0; j < plan.placements.size(); ++j) {
    const JobPlacement& p = plan.placements[j];
    if (!p.placed) continue;
    JobImpact impact;
    impact.job = j;
    std::uint32_t moving = 0;
    for (std::size_t r = 0; r < p.replicas.size(); ++r) {
      const std::vector<DeviceId>& replica = p.replicas[r];
      ReplicaImpact hit;
      hit.replica = static_cast<std::uint32_t>(r);
      for (DeviceId d : replica) {
        std::uint32_t a = t.accelerator_index(d);
        if (a != kNone && mask.accelerator(a) != DeviceState::up) hit.lost.push_back(d);
      }
      if (!gone.empty()) {
        Footprint f = replica_footprint(t, islands, replica);
        for (DeviceId d : f.devices)
          if (effective_state(mask, d) != DeviceState::up) hit.devices.push_back(d);
        for (LinkId l : f.links)
          if (link_out[l]) hit.links.push_back(l);
        if (hit.lost.empty() && replica.size() > 1) {
          const std::uint32_t first = parts.find(replica.front());
          hit.broken = std::any_of(replica.begin(), replica.end(), [&](DeviceId d) { return parts.find(d) != first; });
        }
      }
      // A shaped job's schedule is compiled for its chips and links: a chip
      // or link of the shape out means recompile and re-place, never degrade.
      if (plan.jobs[j].shape != ChainShape::none && replica.size() > 1 &&
          !measure_chain(t, replica, plan.jobs[j].shape, &mask).connected)
        hit.broken = true;
      if (hit.must_move()) ++moving;
      if (!hit.lost.empty() || !hit.devices.empty() || !hit.links.empty() || hit.broken)
        impact.replicas.push_back(std::move(hit));
    }
    if (impact.replicas.empty()) continue;
    impact.replicas_left = static_cast<std::uint32_t>(p.replicas.size()) - moving;
    impact.replicas_needed = std::min<std::uint32_t>(plan.jobs[j].needed_replicas(),
                                                     static_cast<std::uint32_t>(p.replicas.size()));
    out.jobs.push_back(std::move(impact));
  }

  // The free islands left once the replicas that must move have stopped.
  Occupancy occ(t);
  std::size_t next = 0;
  for (std::size_t j = 0; j < plan.placements.size(); ++j) {
    const JobPlacement& p = plan.placements[j];
    if (!p.placed) continue;
    const JobImpact* impact = next < out.jobs.size() && out.jobs[next].job == j ? &out.jobs[next++] : nullptr;
    for (std::size_t r = 0; r < p.replicas.size(); ++r) {
      bool stops = impact && std::any_of(impact->replicas.begin(), impact->replicas.end(), [&](const ReplicaImpact& h) {
                     return h.replica == r && h.must_move();
                   });
      if (stops) continue;
      for (DeviceId d : p.replicas[r])
        if (std::uint32_t a = t.accelerator_index(d); a != kNone) occ.take(a, static_cast<std::uint32_t>(j));
    }
  }
  for (std::uint32_t a = 0; a < t.accelerators().size(); ++a)
    if (mask.accelerator(a) != DeviceState::up) occ.set_available(a, false);
  out.largest_free.assign(t.levels().size(), 0);
  for (LevelIndex l = 0; l <= t.host_level(); ++l) {
    auto [first, last] = t.domains_at(l);
    for (DomainId d = first; d < last; ++d) out.largest_free[l] = std::max(out.largest_free[l], occ.free_in(d));
  }
  return out;
}

}  // namespace topoplan
