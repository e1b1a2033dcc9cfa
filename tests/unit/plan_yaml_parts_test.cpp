// write_plan_yaml in parts (header, then entries of consecutive job ranges)
// is what `plan -o FILE.yaml` renders on two cores for large plans: joined in
// order, the parts must be the whole file, byte for byte.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "test_presets.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/plan_io.hpp"
#include "topoplan/placement/planner.hpp"

using namespace topoplan;

TEST_CASE("a plan's YAML joined from parts is the whole plan's YAML") {
  const Topology t = test::preset("gb200-nvl72:racks=2");
  PlanOptions o;
  o.policy = "topo";
  // Placed and unplaced entries, several replicas, a hostlist per replica.
  const Plan plan = plan_jobs(t, parse_jobs_yaml(R"(jobs:
  - {name: a, gpus: 64, parallelism: {tp: 4, dp: 16}}
  - {name: b, gpus: 24, replicas: 3}
  - {name: c, gpus: 200}
  - {name: too-big, gpus: 1000}
  - {name: d, gpus: 4}
)",
                                                     "jobs.yaml"),
                              o);
  std::ostringstream whole;
  write_plan_yaml(whole, t, plan);
  REQUIRE(whole.str().find("too-big") != std::string::npos);
  for (std::size_t split = 0; split <= plan.jobs.size(); ++split) {
    std::ostringstream parts;
    write_plan_yaml_header(parts, plan);
    write_plan_yaml_entries(parts, t, plan, 0, split);
    write_plan_yaml_entries(parts, t, plan, split, plan.jobs.size());
    INFO("split at " << split);
    CHECK(parts.str() == whole.str());
  }
  // A range past the end is cut at the last job.
  std::ostringstream past;
  write_plan_yaml_header(past, plan);
  write_plan_yaml_entries(past, t, plan, 0, plan.jobs.size() + 5);
  CHECK(past.str() == whole.str());
}
