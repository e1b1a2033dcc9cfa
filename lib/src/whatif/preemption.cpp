#include "topoplan/whatif/preemption.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

namespace topoplan {

bool cheaper(const PreemptionChoice& a, const PreemptionChoice& b) {
  if (a.found != b.found) return a.found;
  if (a.accelerators_preempted != b.accelerators_preempted) return a.accelerators_preempted < b.accelerators_preempted;
  if (a.highest_priority != b.highest_priority) return a.highest_priority < b.highest_priority;
  if (a.preempt.size() != b.preempt.size()) return a.preempt.size() < b.preempt.size();
  return a.domain < b.domain;
}

namespace {

struct Candidate {
  std::size_t job;                  // plan index
  PlannerState::JobId id;
  std::uint64_t accelerators;       // all of the job's: what preempting it costs
  std::uint64_t inside;             // of them (and what it keeps) inside the domain
  std::int64_t priority;
};

class Search {
 public:
  Search(PlanState& ps, const Job& job, const PreemptionOptions& options, PreemptionChoice& best)
      : ps_(ps), job_(job), options_(options), best_(best), plan_index_(ps.state.job_count(), kNone) {
    for (std::size_t j = 0; j < ps.ids.size(); ++j)
      if (ps.ids[j] != kNone) plan_index_[ps.ids[j]] = j;
  }

  void domain(DomainId d, std::uint64_t need) {
    const Topology& t = ps_.state.topology();
    const Occupancy& occ = ps_.state.occupancy();
    const Domain& dom = t.domain(d);
    if (occ.usable_in(d) < need) return;
    // Jobs with accelerators in the domain, cheapest first.
    std::map<PlannerState::JobId, std::uint64_t> inside;
    for (std::uint32_t a = dom.accel_begin; a < dom.accel_end; ++a) {
      PlannerState::JobId owner = ps_.state.owner(a);
      if (owner != kNone) ++inside[owner];
    }
    candidates_.clear();
    for (auto [id, count] : inside) {
      std::size_t j = id < plan_index_.size() ? plan_index_[id] : kNone;
      if (j == kNone) continue;  // not one of the plan's
      candidates_.push_back({j, id, ps_.state.placement(id).device_count(), count, ps_.state.job(id).priority});
    }
    std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
      if (a.accelerators != b.accelerators) return a.accelerators < b.accelerators;
      if (a.priority != b.priority) return a.priority < b.priority;
      return a.job < b.job;
    });
    suffix_.assign(candidates_.size() + 1, 0);
    for (std::size_t i = candidates_.size(); i-- > 0;) suffix_[i] = suffix_[i + 1] + candidates_[i].inside;
    domain_ = d;
    need_ = need;
    free_ = occ.free_in(d);
    chosen_.clear();
    branch(0, 0, 0, std::numeric_limits<std::int64_t>::min());
  }

  bool stopped() const { return stopped_; }

 private:
  // Lower bound of a set's key once it has `cost`, `top` and `count` and
  // frees `freed` inside the domain: can it still beat the best?
  bool promising(std::uint64_t cost, std::int64_t top, std::size_t count, std::uint64_t freed) const {
    if (!best_.found) return true;
    const std::uint64_t have = free_ + freed;
    const std::uint64_t deficit = have >= need_ ? 0 : need_ - have;
    const std::uint64_t bound = cost + deficit;  // each accelerator freed costs one preempted
    if (bound != best_.accelerators_preempted) return bound < best_.accelerators_preempted;
    const std::int64_t top_bound = count ? top : std::numeric_limits<std::int64_t>::min();
    const std::int64_t best_top = best_.preempt.empty() ? std::numeric_limits<std::int64_t>::min() : best_.highest_priority;
    if (top_bound != best_top) return top_bound < best_top;
    return count + (deficit > 0 ? 1 : 0) < best_.preempt.size();
  }

  void branch(std::size_t next, std::uint64_t cost, std::uint64_t freed, std::int64_t top) {
    if (stopped_) return;
    if (free_ + freed + suffix_[next] < need_) return;
    if (!promising(cost, top, chosen_.size(), freed)) return;
    if (free_ + freed >= need_) {
      if (++best_.attempts > options_.budget) {
        stopped_ = true;
        return;
      }
      PlannerState::PlaceResult r = ps_.state.place_in(job_, domain_);
      if (r.id != kNone) {
        ps_.state.release(r.id);
        record(cost, top, r.placement);
        return;  // a larger set only costs more
      }
    }
    for (std::size_t i = next; i < candidates_.size(); ++i) {
      const Candidate& c = candidates_[i];
      ps_.state.release(c.id);
      chosen_.push_back(i);
      branch(i + 1, cost + c.accelerators, freed + c.inside, std::max(top, c.priority));
      chosen_.pop_back();
      ps_.state.restore(c.id);
      if (stopped_) return;
    }
  }

  void record(std::uint64_t cost, std::int64_t top, const JobPlacement& placement) {
    PreemptionChoice c;
    c.found = true;
    c.domain = domain_;
    for (std::size_t i : chosen_) c.preempt.push_back(candidates_[i].job);
    std::sort(c.preempt.begin(), c.preempt.end());
    c.accelerators_preempted = cost;
    c.highest_priority = chosen_.empty() ? 0 : top;
    if (!cheaper(c, best_)) return;
    c.placement = placement;
    c.attempts = best_.attempts;
    c.exhaustive = best_.exhaustive;
    best_ = std::move(c);
  }

  PlanState& ps_;
  const Job& job_;
  const PreemptionOptions& options_;
  PreemptionChoice& best_;
  std::vector<Candidate> candidates_;
  std::vector<std::uint64_t> suffix_;  // accelerators candidates [i, end) free inside the domain
  std::vector<std::size_t> chosen_;
  DomainId domain_ = kNone;
  std::uint64_t need_ = 0;
  std::uint64_t free_ = 0;
  bool stopped_ = false;
  std::vector<std::size_t> plan_index_;  // per state job id: its plan index, or kNone
};

}  // namespace

PreemptionChoice choose_preemption(PlanState& ps, const Job& job, LevelIndex level, std::size_t self,
                                   const PreemptionOptions& options) {
  const Topology& t = ps.state.topology();
  PreemptionChoice best;
  // A placed job that moves frees its own accelerators for itself.
  const PlannerState::JobId self_id = self != kNone && self < ps.ids.size() ? ps.ids[self] : kNone;
  if (self_id != kNone) ps.state.release(self_id);
  // Accelerators the job needs at least (whole-node jobs: one per node).
  const std::uint64_t need = job.nodes ? job.nodes : job.accelerators();
  Search search(ps, job, options, best);
  auto [first, last] = t.domains_at(level);
  for (DomainId d = first; d < last && !search.stopped(); ++d) search.domain(d, need);
  if (self_id != kNone) ps.state.restore(self_id);
  best.exhaustive = !search.stopped();
  if (!best.found) {
    best.reason = search.stopped()
                      ? fmt::format("no set found within {} placement attempts", options.budget)
                      : fmt::format("no {} can hold it even with every job in it preempted", t.levels()[level].name);
  }
  return best;
}

Plan plan_after_preemption(const Plan& plan, const Job& job, std::size_t self, const PreemptionChoice& choice) {
  Plan out = plan;
  if (!choice.found) return out;
  for (std::size_t j : choice.preempt) {
    out.placements[j] = JobPlacement();
    out.placements[j].reason = fmt::format("preempted for '{}'", job.name);
  }
  JobPlacement p = choice.placement;
  p.placed = true;
  if (self != kNone && self < out.jobs.size()) {
    out.placements[self] = p;
  } else {
    out.jobs.push_back(job);
    out.placements.push_back(p);
  }
  return out;
}

}  // namespace topoplan
