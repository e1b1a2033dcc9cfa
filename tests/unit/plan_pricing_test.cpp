// price_plan: the summary of a plan (placed, used, free, unavailable, free
// islands per level) and its prices alone and with links shared.
#include <catch2/catch.hpp>

#include "test_presets.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/plan_io.hpp"
#include "topoplan/placement/planner.hpp"

using namespace topoplan;
using topoplan::test::preset;

TEST_CASE("price_plan: the summary counts what the plan holds and leaves") {
  Topology t = preset("gb200-nvl72:racks=2");
  Plan p = parse_plan_yaml(R"(jobs:
  - {name: a, hosts: "r0000-n[00-17]"}
  - {name: b, devices: "r0001-n00/gpu[0-1]"}
  - {name: c, gpus: 8, placed: false, reason: "no room"}
)",
                           "p.yaml", t);
  price_plan(t, p, nullptr);
  const PlanSummary& s = p.summary;
  CHECK(s.jobs == 3);
  CHECK(s.placed == 2);
  CHECK(s.unplaced == 1);
  CHECK(s.accelerators == 144);
  CHECK(s.accelerators_used == 74);
  CHECK(s.accelerators_free == 70);
  CHECK(s.accelerators_unavailable == 0);
  REQUIRE(s.levels.size() == 4);
  CHECK(s.levels[2].level == "rack");
  CHECK(s.levels[2].largest_free == 70);
  CHECK(s.levels[2].free_domains == 0);
  CHECK(s.levels[3].largest_free == 4);
  CHECK(s.levels[3].free_domains == 17);
  CHECK(p.placements[0].step_seconds < 0);  // no pricer: unpriced
}

TEST_CASE("price_plan: sharing links never makes a job faster") {
  Topology t = preset("gb200-nvl72:racks=4");
  JobPricer pricer(t);
  Plan p = parse_plan_yaml(R"(jobs:
  - {name: a, devices: "r0000-n[00-08]/gpu[0-3],r0001-n[00-08]/gpu[0-3]", parallelism: {tp: 4, dp: 18}}
  - {name: b, devices: "r0000-n[09-17]/gpu[0-3],r0001-n[09-17]/gpu[0-3]", parallelism: {tp: 4, dp: 18}}
  - {name: c, devices: "r0002-n00/gpu[0-3]", parallelism: {tp: 4}}
)",
                           "p.yaml", t);
  price_plan(t, p, &pricer);
  double total = 0;
  for (const JobPlacement& jp : p.placements) {
    REQUIRE(jp.step_seconds > 0);
    CHECK(jp.shared_step_seconds >= jp.step_seconds * (1 - 1e-12));
    total += jp.shared_step_seconds;
  }
  CHECK(p.summary.step_seconds_total == Approx(total));
  // c is alone in its rack and shares nothing.
  CHECK(p.placements[2].shared_step_seconds == Approx(p.placements[2].step_seconds));
}
