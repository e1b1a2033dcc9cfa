// Growth: the grown TOPO argument, and which unplaced jobs fit on it.
#include "topoplan/whatif/growth.hpp"

#include <sstream>

#include <catch2/catch.hpp>

#include "test_presets.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/plan_io.hpp"

using namespace topoplan;
using topoplan::test::preset;

TEST_CASE("growth: more of a topology's units, by parameter") {
  Topology t = preset("gb200-nvl72:racks=2");
  CHECK(grown_topology_argument("gb200-nvl72:racks=2", t, "gb200-nvl72:racks=3") == "gb200-nvl72:racks=5");
  CHECK(grown_topology_argument("gb200-nvl72:racks=2", t, "racks=1") == "gb200-nvl72:racks=3");
  // A bare name is one node (topoplan-topology(5)): 32 more make 33.
  Topology d = preset("dgx-h100");
  CHECK(grown_topology_argument("dgx-h100", d, "nodes=32") == "dgx-h100:nodes=33");
  CHECK_THROWS_WITH(grown_topology_argument("gb200-nvl72:racks=2", t, "dgx-h100:nodes=2"),
                    "--add: 'dgx-h100:nodes=2' grows 'dgx-h100', but the plan's cluster is 'gb200-nvl72'");
  CHECK_THROWS_WITH(grown_topology_argument("gb200-nvl72:racks=2", t, "rack=2"),
                    "--add: 'gb200-nvl72' has no parameter 'rack'; it has racks; did you mean 'racks'?");
  CHECK_THROWS_WITH(grown_topology_argument("gb200-nvl72:racks=2", t, "racks=0"),
                    "--add: 'racks=0': add a whole number of units, at least 1");
  CHECK_THROWS_WITH(grown_topology_argument("gb200-nvl72:racks=2", t, "racks=two"),
                    "--add: 'racks=two': add a whole number of units, at least 1");
}

TEST_CASE("growth: the placed jobs stay, the unplaced ones that now fit are placed") {
  Topology small = preset("gb200-nvl72:racks=1");
  PlanOptions o;
  o.topology_name = "gb200-nvl72:racks=1";
  Plan plan = plan_jobs(small, parse_jobs_yaml(R"(jobs:
  - {name: a, gpus: 64, required: rack}
  - {name: b, gpus: 72, required: rack}
  - {name: c, gpus: 144, required: su}
  - {name: d, gpus: 600, required: su}
)", "jobs.yaml"), o);
  REQUIRE(plan.placements[0].placed);
  REQUIRE_FALSE(plan.placements[1].placed);
  REQUIRE_FALSE(plan.placements[2].placed);
  std::ostringstream text;
  write_plan_yaml(text, small, plan);
  const std::string argument = grown_topology_argument(o.topology_name, small, "racks=3");
  Topology grown = preset(argument);
  Plan on_grown = parse_plan_yaml(text.str(), "plan.yaml", grown);
  GrowthResult r = grow(small, grown, argument, on_grown, "");
  CHECK(r.accelerators_before == 72);
  CHECK(r.accelerators_after == 288);
  CHECK(r.domains_after[2] == 4);
  // b takes a new rack; c then has two empty racks and r0000's 8 GPUs in the SU.
  CHECK(r.now_fit == std::vector<std::size_t>{1, 2});
  CHECK(r.still_unplaced == std::vector<std::size_t>{3});  // an SU holds 576
  CHECK(r.after.placements[0].replicas == on_grown.placements[0].replicas);
  CHECK(r.after.placements[1].placed);
  CHECK(r.after.summary.placed == 3);
}
