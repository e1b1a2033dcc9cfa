// Metrics of a policy's run, from outcomes written by hand.
#include "topoplan/simulate/simulation_metrics.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("simulation metrics: nearest-rank percentiles") {
  Distribution d = distribution({5, 1, 4, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20});
  CHECK(d.count == 20);
  CHECK(d.mean == Approx(10.5));
  CHECK(d.p50 == 10);  // rank ceil(0.5 x 20) = 10
  CHECK(d.p95 == 19);  // rank ceil(0.95 x 20) = 19
  CHECK(d.max == 20);
  Distribution one = distribution({7});
  CHECK(one.p50 == 7);
  CHECK(one.p95 == 7);
  CHECK(distribution({}).count == 0);
}

TEST_CASE("simulation metrics: completion, waiting, never started and utilisation") {
  PolicyRun run;
  run.policy = "topo";
  run.accelerators = 10;
  run.start_s = 0;
  run.end_s = 100;
  run.busy_accelerator_s = 250;
  JobOutcome a;  // waited 10, ran 40
  a.submit_s = 0;
  a.start_s = 10;
  a.end_s = 50;
  a.slowdown = 1.25;
  JobOutcome b;  // waited 0, ran 100, restarted once
  b.submit_s = 0;
  b.start_s = 0;
  b.end_s = 100;
  b.restarts = 1;
  JobOutcome never;
  never.submit_s = 5;
  run.jobs = {a, b, never};
  TimelinePoint p1, p2;
  p1.largest_free = {8, 4};
  p2.largest_free = {2, 2};
  run.timeline = {p1, p2};
  PolicyMetrics m = summarize(run);
  CHECK(m.jobs == 3);
  CHECK(m.completed == 2);
  CHECK(m.never_started == 1);
  CHECK(m.jct.mean == 75);
  CHECK(m.jct.p95 == 100);
  CHECK(m.wait.mean == 5);
  CHECK(m.slowdown.mean == Approx(1.125));
  CHECK(m.slowed_share == 0.5);
  CHECK(m.restarts == 1);
  CHECK(m.utilisation == Approx(0.25));
  CHECK(m.makespan_s == 100);
  REQUIRE(m.mean_largest_free.size() == 2);
  CHECK(m.mean_largest_free[0] == 5);
  CHECK(m.mean_largest_free[1] == 3);
}
