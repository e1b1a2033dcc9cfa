// The blast radius on the tiny cluster (whatif_fixtures.hpp), every number
// counted by hand from the plan and the wiring.
#include "topoplan/whatif/blast_radius.hpp"

#include <algorithm>

#include <catch2/catch.hpp>

#include "topoplan/whatif/scenario.hpp"
#include "whatif_fixtures.hpp"

using namespace topoplan;

namespace {

BlastRadius radius(const Topology& t, const Plan& plan, const std::vector<std::string>& names,
                   DeviceState state = DeviceState::down) {
  return blast_radius(t, plan, scenario_mask(t, resolve_targets(t, names, "--fail"), state));
}

std::vector<std::string> device_names(const Topology& t, const std::vector<DeviceId>& devices) {
  std::vector<std::string> out;
  for (DeviceId d : devices) out.push_back(t.device_name(d));
  std::sort(out.begin(), out.end());
  return out;
}

using Names = std::vector<std::string>;
using Counts = std::vector<std::uint64_t>;
using Free = std::vector<std::uint32_t>;

}  // namespace

TEST_CASE("blast radius of a rack: the job on it, whole-domain capacity, what is left free") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, test::kTinyPlan);
  BlastRadius b = radius(t, plan, {"r1"});
  CHECK(b.accelerators_lost == 4);
  // cluster, su0, rack r1, nodes r1-n0 and r1-n1.
  CHECK(b.capacity_lost == Counts{16, 8, 4, 4});
  REQUIRE(b.jobs.size() == 1);
  const JobImpact& train = b.jobs[0];
  CHECK(train.job == 0);
  REQUIRE(train.replicas.size() == 1);
  CHECK(device_names(t, train.replicas[0].lost) == Names{"r1-n0/gpu0", "r1-n0/gpu1", "r1-n1/gpu0", "r1-n1/gpu1"});
  // The rack's NVSwitch trays went down with it.
  CHECK(device_names(t, train.replicas[0].devices) == Names{"r1-n0/cpu0", "r1-n1/cpu0", "su0/r1/nvsw0", "su0/r1/nvsw1"});
  CHECK(train.must_move());
  CHECK_FALSE(train.degraded());
  CHECK(train.replicas_left == 0);
  CHECK(train.guarantee_broken());
  CHECK(train.accelerators_lost() == 4);
  // Once train stops: r0 (4), r2-n1/gpu1, r3-n1 (2) are free.
  CHECK(b.largest_free == Free{7, 4, 4, 2});
}

TEST_CASE("blast radius of a node under a service replica: the guarantee") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, test::kTinyPlan);
  BlastRadius b = radius(t, plan, {"r2-n0"});
  CHECK(b.accelerators_lost == 2);
  CHECK(b.capacity_lost == Counts{16, 8, 4, 2});
  REQUIRE(b.jobs.size() == 1);
  const JobImpact& svc = b.jobs[0];
  CHECK(svc.job == 1);
  REQUIRE(svc.replicas.size() == 1);
  CHECK(svc.replicas[0].replica == 0);
  CHECK(svc.replicas_left == 1);
  CHECK(svc.replicas_needed == 2);
  CHECK(svc.guarantee_broken());
  // With one replica needed, losing one keeps the guarantee.
  Plan relaxed = plan;
  relaxed.jobs[1].min_replicas = 1;
  BlastRadius r = radius(t, relaxed, {"r2-n0"});
  REQUIRE(r.jobs.size() == 1);
  CHECK(r.jobs[0].replicas_needed == 1);
  CHECK_FALSE(r.jobs[0].guarantee_broken());
  // Drained: the same jobs must move, nothing is "down".
  BlastRadius d = radius(t, plan, {"r2-n0"}, DeviceState::drain);
  REQUIRE(d.jobs.size() == 1);
  CHECK(d.jobs[0].must_move());
  CHECK(d.accelerators_lost == 2);
}

TEST_CASE("blast radius of NVSwitch trays and leaves: degraded, then broken") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, R"(jobs:
  - {name: pair, gpus: 2, devices: "r0-n0/gpu0,r0-n1/gpu0"}
  - {name: solo, gpus: 1, devices: "r0-n0/gpu1"}
  - {name: local, gpus: 4, devices: "r1-n0/gpu[0-1],r1-n1/gpu[0-1]"}
)");
  // One tray: pair loses one of its two NVSwitches and its 2 links to it.
  BlastRadius one = radius(t, plan, {"su0/r0/nvsw0"});
  CHECK(one.accelerators_lost == 0);
  CHECK(one.capacity_lost == Counts{0, 0, 0, 0});
  REQUIRE(one.jobs.size() == 1);  // solo talks to nobody; local is in another rack
  CHECK(one.jobs[0].job == 0);
  CHECK(device_names(t, one.jobs[0].replicas[0].devices) == Names{"su0/r0/nvsw0"});
  CHECK(one.jobs[0].replicas[0].links.size() == 2);
  CHECK(one.jobs[0].degraded());
  CHECK_FALSE(one.jobs[0].replicas[0].broken);
  // Both trays: the two trays still reach each other through NICs and a leaf.
  BlastRadius both = radius(t, plan, {"r0/nvsw[0-1]"});
  REQUIRE(both.jobs.size() == 1);
  CHECK(both.jobs[0].degraded());
  // Both trays and the SU's leaves: r0-n0 and r0-n1 are cut apart.
  BlastRadius cut = radius(t, plan, {"r0/nvsw[0-1]", "su0/leaf[0-1]"});
  REQUIRE(cut.jobs.size() == 1);
  CHECK(cut.jobs[0].replicas[0].broken);
  CHECK(cut.jobs[0].must_move());
}

TEST_CASE("blast radius of a NIC: only jobs that leave their NVLink island use it") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, R"(jobs:
  - {name: local, gpus: 4, devices: "r1-n0/gpu[0-1],r1-n1/gpu[0-1]"}
  - {name: wide, gpus: 2, devices: "r1-n0/gpu0,r2-n0/gpu0"}
)");
  BlastRadius b = radius(t, plan, {"r1-n0/nic0"});
  REQUIRE(b.jobs.size() == 1);
  CHECK(b.jobs[0].job == 1);
  CHECK(device_names(t, b.jobs[0].replicas[0].devices) == Names{"r1-n0/nic0"});
  // Its link to the GPU and to the leaf.
  CHECK(b.jobs[0].replicas[0].links.size() == 2);
  // The GPU reaches the other rack through its NVSwitches and another NIC.
  CHECK(b.jobs[0].degraded());
}
