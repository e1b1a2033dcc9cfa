#include "../../lib/src/placement/local_search.hpp"

#include <catch2/catch.hpp>

#include <set>

#include "test_presets.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/placement_check.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

// Two empty NVL72 racks (36 trays) and 36 trays of jobs: a small job first in
// the queue, then two 16-tray pipeline jobs. In queue order the small job
// takes 4 trays of the first rack, the first big job the other rack, and the
// second big job is split 14 + 2 across the racks; the optimum splits the
// small job instead (2 + 2) and keeps each big job inside one rack.
const char* kJobs = R"(jobs:
  - {name: small, nodes: 4, workload: {parameters: 1B}}
  - {name: big-a, nodes: 16, parallelism: {tp: 4, pp: 4, dp: 4}, workload: {parameters: 70B, activation_bytes: 128MiB}}
  - {name: big-b, nodes: 16, parallelism: {tp: 4, pp: 4, dp: 4}, workload: {parameters: 70B, activation_bytes: 128MiB}}
)";

struct Greedy {
  std::vector<Job> jobs;
  PlannerState state;
  std::vector<PlannerState::JobId> ids;
  std::vector<std::size_t> queue;
};

Greedy greedy(const Topology& t, const PlanPricer& pricer) {
  Greedy g{parse_jobs_yaml(kJobs, "jobs.yaml"), PlannerState(t, {"topo", &pricer, true}), {}, {}};
  for (std::size_t j = 0; j < g.jobs.size(); ++j) {
    g.ids.push_back(g.state.place(g.jobs[j]).id);
    g.queue.push_back(j);
  }
  return g;
}

std::set<DomainId> racks(const Topology& t, const JobPlacement& p) {
  std::set<DomainId> out;
  for (const auto& replica : p.replicas)
    for (DeviceId d : replica) out.insert(t.ancestor(t.device(d).domain, *t.find_level("rack")));
  return out;
}

Plan plan_of(const Topology& t, const Greedy& g, const PlanPricer& pricer) {
  Plan plan;
  for (std::size_t j = 0; j < g.jobs.size(); ++j) {
    plan.jobs.push_back(g.jobs[j]);
    plan.placements.push_back(g.state.placement(g.ids[j]));
  }
  price_plan(t, plan, &pricer);
  return plan;
}

}  // namespace

TEST_CASE("local search: the dear job split by the queue order gets a rack of its own") {
  Topology t = preset("gb200-nvl72:racks=2");
  JobPricer pricer(t);
  Greedy g = greedy(t, pricer);
  REQUIRE(g.ids[2] != kNone);
  REQUIRE(racks(t, g.state.placement(g.ids[2])).size() == 2);  // the greedy split
  const double greedy_total = plan_of(t, g, pricer).summary.step_seconds_total;

  LocalSearchResult r = improve_placements(g.state, g.jobs, g.ids, g.queue, pricer);
  CHECK(r.moves > 0);
  CHECK(r.before == Approx(greedy_total).epsilon(1e-12));
  CHECK(r.after < r.before);
  // Each big job inside one rack, the small one split; nothing unplaced,
  // nothing broken, and the pass's figure is what the plan totals.
  CHECK(racks(t, g.state.placement(g.ids[1])).size() == 1);
  CHECK(racks(t, g.state.placement(g.ids[2])).size() == 1);
  Plan plan = plan_of(t, g, pricer);
  CHECK(plan.summary.placed == 3);
  CHECK(plan.summary.step_seconds_total == Approx(r.after).epsilon(1e-12));
  for (const auto& problems : check_plan(t, plan)) CHECK(problems.empty());
}

TEST_CASE("local search: the same queue gives the same plan, and no work budget leaves the greedy one") {
  Topology t = preset("gb200-nvl72:racks=2");
  JobPricer pricer(t);
  Greedy a = greedy(t, pricer);
  Greedy b = greedy(t, pricer);
  improve_placements(a.state, a.jobs, a.ids, a.queue, pricer);
  improve_placements(b.state, b.jobs, b.ids, b.queue, pricer);
  for (std::size_t j = 0; j < a.jobs.size(); ++j)
    CHECK(a.state.placement(a.ids[j]).replicas == b.state.placement(b.ids[j]).replicas);

  Greedy c = greedy(t, pricer);
  const std::vector<PlannerState::JobId> before = c.ids;
  LocalSearchResult r = improve_placements(c.state, c.jobs, c.ids, c.queue, pricer, {0});
  CHECK(r.candidates == 0);
  CHECK(c.ids == before);
}

TEST_CASE("local search: plan_jobs improves topo's plans only") {
  Topology t = preset("gb200-nvl72:racks=2");
  JobPricer pricer(t);
  PlanOptions o;
  o.pricer = &pricer;
  Plan topo = plan_jobs(t, parse_jobs_yaml(kJobs, "jobs.yaml"), o);
  CHECK(racks(t, topo.placements[2]).size() == 1);
  o.policy = "naive";
  Plan naive = plan_jobs(t, parse_jobs_yaml(kJobs, "jobs.yaml"), o);
  // First fit in device order: small, then big-a across the racks' boundary.
  CHECK(racks(t, naive.placements[1]).size() == 2);
}

TEST_CASE("local search: only the queue's jobs move, the others are priced where they are") {
  Topology t = preset("gb200-nvl72:racks=2");
  JobPricer pricer(t);
  Greedy g = greedy(t, pricer);
  const std::vector<PlannerState::JobId> greedy_ids = g.ids;
  const JobPlacement small = g.state.placement(g.ids[0]);
  // Without `small` in the queue the big jobs cannot both have a rack (it
  // holds 4 trays of one); the pass may not move it to make room.
  LocalSearchResult r = improve_placements(g.state, g.jobs, g.ids, {1, 2}, pricer);
  CHECK(r.candidates > 0);
  CHECK(g.ids[0] == greedy_ids[0]);
  CHECK(g.state.active(g.ids[0]));
  CHECK(g.state.placement(g.ids[0]).replicas == small.replicas);
  // The objective is the whole plan's, `small` included.
  CHECK(r.after == Approx(plan_of(t, g, pricer).summary.step_seconds_total).epsilon(1e-12));
  CHECK(r.placed_after == 3);
}
