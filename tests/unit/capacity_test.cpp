// How many more jobs of a shape fit, counted by hand on the tiny cluster.
#include "topoplan/whatif/capacity.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"
#include "topoplan/placement/job_spec.hpp"
#include "topoplan/whatif/plan_state.hpp"
#include "whatif_fixtures.hpp"

using namespace topoplan;

namespace {

CapacityCount count(const Topology& t, const Plan& plan, const std::string& spec) {
  PlanState ps = occupy_plan(t, plan, {});
  return count_capacity(ps.state, parse_job_spec(spec, "--capacity"));
}

}  // namespace

TEST_CASE("capacity beside the plan and on the empty cluster") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, test::kTinyPlan);
  // Free: rack r0, r2-n1/gpu1, node r3-n1.
  CapacityCount rack = count(t, plan, "gpus=4,required=rack");
  CHECK(rack.fits_now == 1);
  CHECK(rack.fits_empty == 4);
  CHECK(rack.accelerators_each == 4);
  // Once r0 is taken, r2-n1/gpu1 and r3-n1 are all that is free.
  CHECK(rack.reason_now == "needs 4 GPUs; only 3 are free");
  // Tensor-parallel pairs stay in one node: r0-n0, r0-n1, r3-n1.
  CHECK(count(t, plan, "gpus=2,tp=2").fits_now == 3);
  CHECK(count(t, plan, "gpus=2,tp=2").fits_empty == 8);
  CHECK(count(t, plan, "gpus=1").fits_now == 7);
  CHECK(count(t, plan, "gpus=1").fits_empty == 16);
  // Services: two replicas in different racks each time.
  CapacityCount svc = count(t, plan, "kind=inference,replicas=2,gpus_per_replica=2,tp=2,spread=rack");
  CHECK(svc.fits_now == 1);  // r0 and r3 once; then only r0 has a free node
  CHECK(svc.fits_empty == 4);
  CHECK(svc.accelerators_each == 4);
}

TEST_CASE("capacity leaves the plan's state as it was") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, test::kTinyPlan);
  PlanState ps = occupy_plan(t, plan, {});
  const std::uint32_t free_before = ps.state.occupancy().free_in(t.root());
  const std::size_t jobs_before = ps.state.job_count();
  CapacityCount c = count_capacity(ps.state, parse_job_spec("gpus=1", "--capacity"));
  CHECK(c.fits_now == free_before);
  CHECK(ps.state.occupancy().free_in(t.root()) == free_before);
  CHECK(ps.state.job_count() == jobs_before);
}

TEST_CASE("capacity of whole racks on a GB200 SU") {
  Topology t = test::preset("gb200-nvl72:racks=8");
  Plan empty;
  CapacityCount c = count(t, empty, "gpus=72,required=rack");
  CHECK(c.fits_now == 8);
  CHECK(c.fits_empty == 8);
  CHECK(count(t, empty, "gpus=64,parallelism.tp=4,parallelism.dp=16,required=rack").fits_now == 8);
  CHECK(count(t, empty, "nodes=2").fits_now == 72);
}
