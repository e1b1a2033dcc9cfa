#include "local_search.hpp"

#include <algorithm>
#include <cstdint>

#include "topoplan/model/node_size.hpp"
#include "topoplan/placement/placement_check.hpp"
#include "topoplan/placement/service_latency.hpp"

namespace topoplan {

namespace {

using JobId = PlannerState::JobId;

// Moves relative to a plan's total below this are noise, not gains.
constexpr double kGain = 1e-9;
// Rounds of single and pair moves; each round stops early when nothing improves.
constexpr int kRounds = 3;
// Dear jobs tried first in pair moves, per round.
constexpr std::size_t kPairLeaders = 8;

class Search {
 public:
  Search(PlannerState& state, const std::vector<Job>& jobs, std::vector<JobId>& ids,
         const std::vector<std::size_t>& queue, const PlanPricer& pricer, std::size_t work)
      : s_(state), jobs_(jobs), ids_(ids), in_queue_(ids.size(), 0), pricer_(pricer), work_(work) {
    for (std::size_t j : queue) in_queue_[j] = 1;
  }

  bool affordable(std::size_t work) const { return spent_ + work <= work_; }

  // Prices the queue's placed jobs as price_plan does: per job the dearest
  // replica with every job's traffic sharing links; the sum over jobs.
  double objective(std::vector<double>& per_job) {
    std::vector<const Job*> jobs;
    std::vector<std::vector<DeviceId>> ranks;
    std::vector<std::size_t> owner;
    for (std::size_t j = 0; j < ids_.size(); ++j) {
      if (ids_[j] == kNone) continue;
      for (const auto& replica : s_.placement(ids_[j]).replicas) {
        jobs.push_back(&s_.job(ids_[j]));
        ranks.push_back(replica);
        owner.push_back(j);
      }
    }
    spend(owner.size());
    std::vector<double> shared = pricer_.shared_step_seconds(jobs, ranks);
    const std::vector<double> request = service_request_prices(s_.topology(), jobs, ranks, pricer_.cost_model());
    for (std::size_t i = 0; i < shared.size(); ++i)
      if (request[i] >= 0) shared[i] = request[i];
    per_job.assign(ids_.size(), 0);
    for (std::size_t i = 0; i < owner.size(); ++i) per_job[owner[i]] = std::max(per_job[owner[i]], shared[i]);
    double total = 0;
    for (double v : per_job) total += std::max(0.0, v);
    return total;
  }

  // Constraint problems of the queue's placements (check_plan).
  std::size_t problems() {
    Plan plan;
    for (JobId id : ids_)
      if (id != kNone) {
        plan.jobs.push_back(s_.job(id));
        plan.placements.push_back(s_.placement(id));
      }
    spend(plan.jobs.size());
    std::size_t n = 0;
    for (const auto& p : check_plan(s_.topology(), plan)) n += p.size();
    return n;
  }

  void start() {
    total_ = objective(per_job_);
    problems_ = problems();
    placed_ = placed_count();
  }

  // Releases the queue's jobs `moving`, places them again in `order` (the
  // same jobs; unplaced ones may stay so) with everything else where it is,
  // and keeps the result when it is better: more jobs placed, or as many
  // for less time. Else puts everything back.
  bool attempt(const std::vector<std::size_t>& moving, const std::vector<std::size_t>& order) {
    if (!affordable(placed_count() + moving.size())) return false;
    ++candidates;
    std::vector<JobId> old(ids_.size(), kNone);
    for (std::size_t j : moving) {
      old[j] = ids_[j];
      if (old[j] != kNone) s_.release(old[j]);
      ids_[j] = kNone;
    }
    bool ok = true;
    std::vector<std::size_t> done;
    for (std::size_t j : order) {
      spend(1);
      PlannerState::PlaceResult r = s_.place(jobs_[j]);
      if (r.id == kNone) {
        // A job placed before must be placed again.
        if (old[j] == kNone) continue;
        ok = false;
        break;
      }
      ids_[j] = r.id;
      done.push_back(j);
    }
    if (ok) {
      std::vector<double> per_job;
      double total = objective(per_job);
      const std::size_t placed = placed_count();
      if (placed > placed_ || (placed == placed_ && total < total_ * (1 - kGain))) {
        std::size_t n = problems();
        if (n <= problems_) {
          total_ = total;
          per_job_ = std::move(per_job);
          problems_ = n;
          placed_ = placed;
          ++moves;
          return true;
        }
      }
    }
    for (std::size_t j : done) s_.release(ids_[j]);
    for (std::size_t j : moving) {
      ids_[j] = old[j];
      if (old[j] != kNone) s_.restore(old[j]);
    }
    return false;
  }

  // The queue's placed jobs, dearest first (ties: index). Jobs outside the
  // queue are priced but never moved.
  std::vector<std::size_t> dearest_first() const {
    std::vector<std::size_t> out;
    for (std::size_t j = 0; j < ids_.size(); ++j)
      if (ids_[j] != kNone && in_queue_[j]) out.push_back(j);
    std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) { return per_job_[a] > per_job_[b]; });
    return out;
  }

  double total() const { return total_; }
  std::size_t placed_count() const {
    return static_cast<std::size_t>(std::count_if(ids_.begin(), ids_.end(), [](JobId id) { return id != kNone; }));
  }

  std::size_t candidates = 0;
  std::size_t moves = 0;

 private:
  void spend(std::size_t n) { spent_ += n; }

  PlannerState& s_;
  const std::vector<Job>& jobs_;
  std::vector<JobId>& ids_;
  std::vector<std::uint8_t> in_queue_;  // per job: in the queue, so it may move
  const PlanPricer& pricer_;
  std::size_t work_;
  std::size_t spent_ = 0;
  double total_ = 0;
  std::size_t problems_ = 0;
  std::size_t placed_ = 0;
  std::vector<double> per_job_;  // shared step seconds per queue job (0 when unplaced)
};

}  // namespace

LocalSearchResult improve_placements(PlannerState& state, const std::vector<Job>& jobs,
                                     std::vector<PlannerState::JobId>& ids, const std::vector<std::size_t>& queue,
                                     const PlanPricer& pricer, const LocalSearchOptions& options) {
  LocalSearchResult result;
  Search search(state, jobs, ids, queue, pricer, options.work);
  const std::size_t placed = search.placed_count();
  // Worth starting only when the work buys a few candidates: the first
  // pricing and check of the queue, and at least 8 candidates of a single
  // move (a pricing of the queue and one placement each).
  if (ids.size() < 2 || !search.affordable(2 * placed + 8 * (placed + 1))) return result;
  search.start();
  result.before = search.total();
  result.placed_before = placed;

  // 1. The whole queue again, the heaviest communicators first (jobs not
  // placed last, in queue order), then the largest first.
  const std::vector<std::size_t>& all = queue;
  std::vector<std::size_t> heaviest = search.dearest_first();
  for (std::size_t j : queue)
    if (ids[j] == kNone) heaviest.push_back(j);
  if (heaviest != queue) search.attempt(all, heaviest);
  std::vector<std::size_t> largest = queue;
  const std::uint64_t node_size = typical_node_accelerators(state.topology());
  auto size = [&](std::size_t j) { return jobs[j].nodes ? jobs[j].nodes * node_size : jobs[j].accelerators(); };
  std::stable_sort(largest.begin(), largest.end(), [&](std::size_t a, std::size_t b) { return size(a) > size(b); });
  if (largest != queue) search.attempt(all, largest);

  // 2 and 3, in rounds until nothing improves or the work is spent.
  for (int round = 0; round < kRounds; ++round) {
    const std::size_t before = search.moves;
    // A job left out goes first, the job it displaces after it.
    for (std::size_t u : queue) {
      if (ids[u] != kNone) continue;
      for (std::size_t o : search.dearest_first())
        if (search.attempt({u, o}, {u, o})) break;
    }
    std::vector<std::size_t> dear = search.dearest_first();
    for (std::size_t j : dear) search.attempt({j}, {j});
    dear = search.dearest_first();
    for (std::size_t l = 0; l < dear.size() && l < kPairLeaders; ++l) {
      const std::size_t h = dear[l];
      for (std::size_t o : dear) {
        if (o == h) continue;
        if (!search.attempt({h, o}, {h, o})) search.attempt({h, o}, {o, h});
      }
    }
    if (search.moves == before) break;
  }
  result.candidates = search.candidates;
  result.moves = search.moves;
  result.after = search.total();
  result.placed_after = search.placed_count();
  return result;
}

}  // namespace topoplan
