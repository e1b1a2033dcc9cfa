// The preemption search (--clear) against trying every subset of the
// running jobs, on plans small enough to enumerate, and on a case checked by
// hand.
#include "topoplan/whatif/preemption.hpp"

#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "topoplan/placement/job_spec.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "whatif_fixtures.hpp"

using namespace topoplan;

namespace {

// Every subset of the placed jobs, every domain: the cheapest by `cheaper`.
PreemptionChoice brute_force(const Topology& t, const Plan& plan, const Job& job, LevelIndex level) {
  PlanState base = occupy_plan(t, plan, {"topo", nullptr, false});
  std::vector<std::size_t> placed;
  for (std::size_t j = 0; j < plan.jobs.size(); ++j)
    if (plan.placements[j].placed) placed.push_back(j);
  PreemptionChoice best;
  for (std::uint32_t subset = 0; subset < (1u << placed.size()); ++subset) {
    PlannerState s(base.state);
    PreemptionChoice c;
    c.found = true;
    for (std::size_t i = 0; i < placed.size(); ++i) {
      if (!(subset & (1u << i))) continue;
      const std::size_t j = placed[i];
      s.release(base.ids[j]);
      c.preempt.push_back(j);
      c.accelerators_preempted += plan.placements[j].device_count();
      c.highest_priority = c.preempt.size() == 1 ? plan.jobs[j].priority : std::max(c.highest_priority, plan.jobs[j].priority);
    }
    auto [first, last] = t.domains_at(level);
    for (DomainId d = first; d < last; ++d) {
      PlannerState::PlaceResult r = s.place_in(job, d);
      if (r.id == kNone) continue;
      c.domain = d;
      if (cheaper(c, best)) best = c;
      break;  // later domains of the same subset only lose the tie
    }
  }
  return best;
}

void check_against_brute_force(const Topology& t, const Plan& plan, const Job& job, LevelIndex level) {
  PlanState ps = occupy_plan(t, plan, {"topo", nullptr, false});
  const std::uint32_t free_before = ps.state.occupancy().free_in(t.root());
  PreemptionChoice got = choose_preemption(ps, job, level, kNone);
  PreemptionChoice want = brute_force(t, plan, job, level);
  INFO("job " << job.name << " level " << t.levels()[level].name);
  REQUIRE(got.found == want.found);
  CHECK(got.exhaustive);
  CHECK(ps.state.occupancy().free_in(t.root()) == free_before);  // the state is left as it was
  if (!want.found) return;
  CHECK(got.accelerators_preempted == want.accelerators_preempted);
  CHECK(got.highest_priority == want.highest_priority);
  CHECK(got.preempt.size() == want.preempt.size());
  CHECK(got.domain == want.domain);
  // The choice is real: preempting it makes the job fit in that domain.
  PlannerState s(ps.state);
  for (std::size_t j : got.preempt) s.release(ps.ids[j]);
  PlannerState::PlaceResult r = s.place_in(job, got.domain);
  CHECK(r.id != kNone);
}

}  // namespace

TEST_CASE("preemption: fewest GPUs first, even over a higher priority") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, R"(jobs:
  - {name: a, gpus: 4, priority: 1, devices: "r0-n[0-1]"}
  - {name: b, gpus: 4, priority: 0, devices: "r1-n[0-1]"}
  - {name: c, gpus: 2, priority: 3, devices: "r2-n0"}
  - {name: d, gpus: 2, priority: 3, devices: "r2-n1"}
  - {name: e, gpus: 1, priority: 9, devices: "r3-n0/gpu0"}
  - {name: f, gpus: 2, priority: -1, devices: "r3-n1"}
)");
  Job big = parse_job_spec("name=big,gpus=4,required=rack", "--for");
  PlanState ps = occupy_plan(t, plan, {});
  PreemptionChoice c = choose_preemption(ps, big, 2, kNone);
  REQUIRE(c.found);
  // r3 has one GPU free: preempting e and f frees 3 more, cheaper than any
  // other rack's 4.
  CHECK(t.domain_name(c.domain) == "su1/r3");
  CHECK(c.preempt == std::vector<std::size_t>{4, 5});
  CHECK(c.accelerators_preempted == 3);
  CHECK(c.highest_priority == 9);
  // Two GPUs in one node: f alone (2 GPUs, priority -1) beats c or d (2 GPUs,
  // priority 3); e alone frees r3-n0 for 1 GPU: cheapest of all.
  PreemptionChoice node = choose_preemption(ps, parse_job_spec("gpus=2,required=node", "--for"), 3, kNone);
  REQUIRE(node.found);
  CHECK(node.preempt == std::vector<std::size_t>{4});
  CHECK(t.domain_name(node.domain) == "r3-n0");
  // The plan after: e preempted, the job in r3-n0.
  Job two = parse_job_spec("name=two,gpus=2,required=node", "--for");
  Plan after = plan_after_preemption(plan, two, kNone, node);
  CHECK_FALSE(after.placements[4].placed);
  CHECK(after.placements[4].reason == "preempted for 'two'");
  REQUIRE(after.jobs.size() == 7);
  CHECK(after.jobs.back().name == "two");
  CHECK(after.placements.back().placed);
  // A whole SU is 8 GPUs: both racks of one SU must go.
  PreemptionChoice su = choose_preemption(ps, parse_job_spec("gpus=8,required=su", "--for"), 1, kNone);
  REQUIRE(su.found);
  CHECK(su.accelerators_preempted == 7);
  CHECK(t.domain_name(su.domain) == "su1");
  // Nothing holds 20 GPUs.
  CHECK_FALSE(choose_preemption(ps, parse_job_spec("gpus=20", "--for"), 0, kNone).found);
}

TEST_CASE("preemption: a placed job moves, its own GPUs are free for it") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, R"(jobs:
  - {name: spread, gpus: 4, priority: 5, devices: "r0-n0,r1-n0"}
  - {name: x, gpus: 2, priority: 0, devices: "r0-n1"}
  - {name: y, gpus: 2, priority: 1, devices: "r1-n1"}
  - {name: z, gpus: 8, priority: 1, devices: "r2-n[0-1],r3-n[0-1]"}
)");
  PlanState ps = occupy_plan(t, plan, {});
  Job job = plan.jobs[0];
  PreemptionChoice c = choose_preemption(ps, job, 2, 0);
  REQUIRE(c.found);
  CHECK(c.preempt == std::vector<std::size_t>{1});  // x: 2 GPUs, priority 0, in r0 with spread's own two
  CHECK(t.domain_name(c.domain) == "su0/r0");
  Plan after = plan_after_preemption(plan, job, 0, c);
  CHECK(after.jobs.size() == 4);
  CHECK(after.placements[0].placed);
}

TEST_CASE("preemption matches trying every subset on random small plans") {
  Topology t = test::tiny_cluster();
  std::mt19937_64 random(20261201);
  auto pick = [&](std::uint64_t n) { return static_cast<std::uint32_t>(random() % n); };
  const char* shapes[] = {"gpus=1", "gpus=2", "gpus=2,tp=2", "gpus=3", "gpus=4,tp=2,dp=2", "gpus=4,required=rack",
                          "kind=inference,replicas=2,gpus_per_replica=1,spread=node",
                          "kind=inference,replicas=2,gpus_per_replica=2,tp=2,spread=rack", "nodes=1"};
  for (int round = 0; round < 40; ++round) {
    std::string yaml = "jobs:\n";
    const std::uint32_t jobs = 4 + pick(6);
    for (std::uint32_t j = 0; j < jobs; ++j) {
      Job job = parse_job_spec(shapes[pick(std::size(shapes))], "x");
      yaml += fmt::format("  - {{name: j{}, priority: {}, kind: {}, ", j, static_cast<int>(pick(5)) - 2,
                          job.kind == JobKind::training ? "training" : "inference");
      if (job.nodes)
        yaml += fmt::format("nodes: {}", job.nodes);
      else if (job.replicas > 1)
        yaml += fmt::format("replicas: {}, gpus_per_replica: {}, spread: {}", job.replicas, job.per_replica, *job.spread);
      else
        yaml += fmt::format("gpus: {}", job.per_replica);
      if (job.required) yaml += fmt::format(", required: {}", *job.required);
      yaml += "}\n";
    }
    PlanOptions o;
    Plan plan = plan_jobs(t, parse_jobs_yaml(yaml, "random.yaml"), o);
    std::size_t placed = 0;
    for (const JobPlacement& p : plan.placements) placed += p.placed ? 1 : 0;
    if (placed > 10) continue;
    Job probe = parse_job_spec(shapes[pick(std::size(shapes))], "--for");
    probe.name = "probe";
    check_against_brute_force(t, plan, probe, 1 + pick(3));
  }
}
