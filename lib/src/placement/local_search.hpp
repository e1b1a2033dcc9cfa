// The queue-level improvement pass after the greedy placement (plan_jobs):
// placing in priority and file order, an early job can take the spot that
// forces a later, heavier communicator across racks. The pass tries, on the
// planner state's own verbs (release, place, restore), in this order:
//   1. the whole queue again, the heaviest communicators first (by their
//      shared step time in the greedy plan), then the largest first;
//   2. a job the greedy pass left out placed first, then a job it displaces;
//   3. each job re-placed with the others where they are, dearest first;
//   4. pairs: a dear job placed first, then the other job of the pair, so it
//      gets the spot the other took (and the other way round).
// 2 to 4 repeat, up to 3 rounds, while they improve. A move is kept only
// when it places more of the queue, or as many with less summed shared step
// seconds (what price_plan totals: contention between the queue's jobs
// included), every job placed before is still placed and check_plan finds
// no more problems than before. The order is fixed, so the result is
// deterministic.
//
// The pass is bounded by work, not by the clock: each candidate costs one
// pricing of the whole queue and some placements, and the budget of job
// pricings and placements is fixed (LocalSearchOptions::work), so the number
// of candidates falls as the queue grows, and a queue too long to buy 8
// candidates (about 400 jobs) keeps the greedy plan: the pass adds nothing to
// planning 10,000 jobs.
#pragma once

#include <cstddef>
#include <vector>

#include "topoplan/placement/planner.hpp"
#include "topoplan/placement/planner_state.hpp"

namespace topoplan {

struct LocalSearchOptions {
  /// Job pricings and placements the pass may spend in all; a candidate
  /// costs (queue length) pricings plus the placements it makes.
  std::size_t work = 1 << 12;
};

struct LocalSearchResult {
  std::size_t candidates = 0;  // candidate plans priced
  std::size_t moves = 0;       // candidates kept
  double before = 0;           // summed shared step seconds of the greedy plan
  double after = 0;            // and after the pass
  std::size_t placed_before = 0;  // queue jobs placed by the greedy plan
  std::size_t placed_after = 0;   // and after the pass (never fewer)
};

/// Improves the placements of the queue's `jobs` in `state`: ids[j] is the
/// state's id of jobs[j], or kNone when it is not placed (entries change as
/// jobs are placed anew; a job the greedy pass left out may be placed when
/// others move, never the other way). `queue` is the greedy order the jobs
/// were placed in (indices into jobs); only its jobs move. A job outside it
/// stays where it is, and its step time (contention with the queue's
/// included) counts in the objective: what-if re-places only the jobs a
/// scenario displaced, beside the ones still running.
LocalSearchResult improve_placements(PlannerState& state, const std::vector<Job>& jobs,
                                     std::vector<PlannerState::JobId>& ids, const std::vector<std::size_t>& queue,
                                     const PlanPricer& pricer, const LocalSearchOptions& options = {});

}  // namespace topoplan
