#include "topoplan/whatif/resilience.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>

namespace topoplan {

namespace {

// Whether some `k` of the domains (sorted by hits, largest first) stop at
// least `stop` replicas; gives up (returns nullopt) past `budget` steps.
class Cover {
 public:
  Cover(const std::vector<std::vector<std::uint32_t>>& hits, std::uint32_t replicas, std::uint64_t budget)
      : hits_(hits), stopped_(replicas, 0), budget_(budget) {}

  std::optional<bool> exists(std::uint32_t k, std::uint32_t stop) {
    k_ = k;
    stop_ = stop;
    std::fill(stopped_.begin(), stopped_.end(), 0);
    covered_ = 0;
    bool found = search(0, 0);
    if (steps_ > budget_) return std::nullopt;
    return found;
  }

 private:
  bool search(std::size_t next, std::uint32_t chosen) {
    if (covered_ >= stop_) return true;
    if (chosen == k_ || ++steps_ > budget_) return false;
    // Even the largest domains left cannot stop enough.
    std::uint64_t reach = covered_;
    for (std::size_t i = next; i < hits_.size() && i < next + (k_ - chosen); ++i) reach += hits_[i].size();
    if (reach < stop_) return false;
    for (std::size_t i = next; i < hits_.size(); ++i) {
      for (std::uint32_t r : hits_[i]) covered_ += stopped_[r]++ == 0 ? 1u : 0u;
      bool found = search(i + 1, chosen + 1);
      for (std::uint32_t r : hits_[i]) covered_ -= --stopped_[r] == 0 ? 1u : 0u;
      if (found) return true;
      if (steps_ > budget_) return false;
    }
    return false;
  }

  const std::vector<std::vector<std::uint32_t>>& hits_;
  std::vector<std::uint32_t> stopped_;  // per replica: chosen domains stopping it
  std::uint64_t budget_;
  std::uint64_t steps_ = 0;
  std::uint32_t k_ = 0;
  std::uint32_t stop_ = 0;
  std::uint32_t covered_ = 0;
};

}  // namespace

std::uint32_t fewest_failures(const std::vector<std::vector<std::uint32_t>>& hits_in, std::uint32_t replicas,
                              std::uint32_t stop) {
  if (stop == 0) return 0;
  std::vector<std::vector<std::uint32_t>> hits = hits_in;
  std::stable_sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  const auto none = static_cast<std::uint32_t>(hits.size() + 1);
  // A bound: the fewest domains whose hits add up to `stop`.
  std::uint32_t lower = none;
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < hits.size(); ++i) {
    sum += hits[i].size();
    if (sum >= stop) {
      lower = static_cast<std::uint32_t>(i + 1);
      break;
    }
  }
  if (lower == none) return none;
  // Replicas each inside one domain: the bound is exact.
  std::vector<std::uint32_t> seen(replicas, 0);
  bool disjoint = true;
  for (const auto& h : hits)
    for (std::uint32_t r : h) disjoint = disjoint && seen[r]++ == 0;
  if (disjoint) return lower;
  Cover cover(hits, replicas, 2'000'000);
  for (std::uint32_t k = lower; k <= hits.size(); ++k) {
    std::optional<bool> found = cover.exists(k, stop);
    if (!found) return lower;  // out of budget: the bound, which never overstates survival
    if (*found) return k;
  }
  return none;
}

std::vector<JobResilience> resilience(const Topology& t, const Plan& plan) {
  std::vector<JobResilience> out;
  for (std::size_t j = 0; j < plan.placements.size(); ++j) {
    const JobPlacement& p = plan.placements[j];
    if (!p.placed || p.replicas.empty()) continue;
    JobResilience jr;
    jr.job = j;
    jr.replicas = static_cast<std::uint32_t>(p.replicas.size());
    jr.replicas_needed = std::min(plan.jobs[j].needed_replicas(), jr.replicas);
    const std::uint32_t stop = jr.replicas - jr.replicas_needed + 1;
    for (LevelIndex level = 1; level <= t.host_level(); ++level) {
      std::map<DomainId, std::vector<std::uint32_t>> by_domain;
      for (std::uint32_t r = 0; r < p.replicas.size(); ++r)
        for (DeviceId d : p.replicas[r]) {
          if (t.accelerator_index(d) == kNone) continue;
          std::vector<std::uint32_t>& hit = by_domain[t.ancestor(t.device(d).domain, level)];
          if (hit.empty() || hit.back() != r) hit.push_back(r);
        }
      std::vector<std::vector<std::uint32_t>> hits;
      for (auto& [domain, replicas] : by_domain) hits.push_back(std::move(replicas));
      LevelResilience lr;
      lr.level = level;
      lr.domains = static_cast<std::uint32_t>(hits.size());
      const std::uint32_t fewest = fewest_failures(hits, jr.replicas, stop);
      lr.survives = fewest == 0 ? 0 : fewest - 1;
      // The worst single failure.
      std::size_t worst = 0;
      for (std::size_t i = 1; i < hits.size(); ++i)
        if (hits[i].size() > hits[worst].size()) worst = i;
      std::vector<std::uint8_t> stops(jr.replicas, 0);
      if (!hits.empty())
        for (std::uint32_t r : hits[worst]) stops[r] = 1;
      for (std::uint32_t r = 0; r < jr.replicas; ++r)
        if (!stops[r]) {
          ++lr.replicas_after_one;
          lr.accelerators_after_one += p.replicas[r].size();
        }
      jr.levels.push_back(lr);
    }
    out.push_back(std::move(jr));
  }
  return out;
}

}  // namespace topoplan
