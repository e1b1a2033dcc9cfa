// A plan's jobs as the paths `render --plan` draws.
#include "topoplan/placement/plan_paths.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"
#include "topoplan/placement/jobs_yaml.hpp"

using namespace topoplan;
using topoplan::test::preset;

TEST_CASE("plan paths: chains and rings in pipeline order, other jobs as sets, one per replica") {
  Topology t = preset("groq:racks=1");
  PlanOptions options;
  Plan plan = plan_jobs(t,
                        parse_jobs_yaml(R"(jobs:
  - {name: pipe, lpus: 16, shape: chain}
  - {name: loop, lpus: 8, shape: ring}
  - {name: cells, lpus: 4, shape: group}
  - {name: serve, kind: inference, replicas: 2, lpus_per_replica: 4}
  - {name: huge, lpus: 100, shape: chain}
)",
                                        "jobs.yaml"),
                        options);
  REQUIRE(plan.placements[0].placed);
  REQUIRE_FALSE(plan.placements[4].placed);
  std::vector<DevicePath> paths = plan_paths(plan);
  REQUIRE(paths.size() == 5);  // huge is not placed
  CHECK(paths[0].name == "pipe");
  CHECK(paths[0].shape == PathShape::chain);
  CHECK(paths[0].devices == plan.placements[0].replicas[0]);  // the planner's pipeline order, kept
  CHECK(paths[1].shape == PathShape::ring);
  CHECK(paths[2].shape == PathShape::set);  // a group has no order
  CHECK(paths[3].name == "serve[0]");
  CHECK(paths[4].name == "serve[1]");
  CHECK(paths[4].shape == PathShape::set);
  CHECK(paths[4].devices == plan.placements[3].replicas[1]);
}
