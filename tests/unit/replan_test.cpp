// Failures and drains played out on the tiny cluster: who moves where, who
// stops, who keeps running degraded and how much slower, what is left.
#include "topoplan/whatif/replan.hpp"

#include <catch2/catch.hpp>

#include "whatif_fixtures.hpp"

using namespace topoplan;

namespace {

ScenarioResult scenario(const Topology& t, const Plan& plan, const std::vector<std::string>& names,
                        ScenarioKind kind = ScenarioKind::fail) {
  return run_scenario(t, plan, resolve_targets(t, names, "--fail"), {kind, ""});
}

std::string hosts(const Topology& t, const std::vector<DeviceId>& devices) {
  std::vector<std::string> out;
  for (DeviceId d : devices) {
    std::string h(t.hostname(t.device(d).domain));
    if (std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  }
  std::sort(out.begin(), out.end());
  std::string joined;
  for (const std::string& h : out) joined += (joined.empty() ? "" : ",") + h;
  return joined;
}

}  // namespace

TEST_CASE("a failed rack: its job moves to the only rack with room, the others stay") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, test::kTinyPlan);
  ScenarioResult r = scenario(t, plan, {"r1"});
  REQUIRE(r.changes.size() == 1);
  const JobChange& c = r.changes[0];
  CHECK(c.job == 0);
  CHECK(c.moved == std::vector<std::uint32_t>{0});
  CHECK(c.stopped.empty());
  CHECK(c.accelerators_moved == 4);
  // required: rack, 4 GPUs: r0 is the only rack with 4 free.
  CHECK(hosts(t, r.after.placements[0].replicas[0]) == "r0-n0,r0-n1");
  // Unaffected jobs keep their devices.
  CHECK(r.after.placements[1].replicas == plan.placements[1].replicas);
  CHECK(r.after.placements[2].replicas == plan.placements[2].replicas);
  CHECK(r.after.summary.placed == 3);
  CHECK(r.after.summary.accelerators_used == 9);
  CHECK(r.after.summary.accelerators_unavailable == 4);
  CHECK(r.after.summary.accelerators_free == 3);
  CHECK(r.after.placements[0].shared_step_seconds > 0);
  CHECK(r.fabric_changed);
}

TEST_CASE("a job with no room left stops; the reason says why") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, test::kTinyPlan);
  ScenarioResult r = scenario(t, plan, {"r1", "r0-n0/gpu0"});
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].moved.empty());
  CHECK(r.changes[0].stopped == std::vector<std::uint32_t>{0});
  CHECK_FALSE(r.after.placements[0].placed);
  CHECK(r.after.placements[0].reason.rfind("stopped by the failure; ", 0) == 0);
  CHECK(r.after.summary.placed == 2);
}

TEST_CASE("a lost service replica is re-placed apart from the one that survived") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, test::kTinyPlan);
  ScenarioResult r = scenario(t, plan, {"r2-n0"});
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].moved == std::vector<std::uint32_t>{0});
  const JobPlacement& svc = r.after.placements[1];
  REQUIRE(svc.replicas.size() == 2);
  // spread: rack; r3 holds the other replica, r1 is full, r2-n1 has one GPU: r0.
  CHECK(hosts(t, svc.replicas[0]).rfind("r0-n", 0) == 0);
  CHECK(svc.replicas[1] == plan.placements[1].replicas[1]);
  CHECK(r.after.summary.placed == 3);
}

TEST_CASE("a drained rack: the service replica moves before the old one stops") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, test::kTinyPlan);
  ScenarioResult r = scenario(t, plan, {"r3"}, ScenarioKind::drain);
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].moved == std::vector<std::uint32_t>{1});
  CHECK(hosts(t, r.after.placements[1].replicas[1]).rfind("r0-n", 0) == 0);
  // With r0 taken too, the replica has nowhere to go: the drain waits for it.
  Plan full = plan;
  Plan filler = test::hand_plan(t, "jobs:\n  - {name: filler, gpus: 4, devices: \"r0-n[0-1]\"}\n");
  full.jobs.push_back(filler.jobs[0]);
  full.placements.push_back(filler.placements[0]);
  ScenarioResult w = scenario(t, full, {"r3"}, ScenarioKind::drain);
  REQUIRE(w.changes.size() == 1);
  CHECK(w.changes[0].moved.empty());
  CHECK(w.changes[0].waiting == std::vector<std::uint32_t>{1});
  CHECK(w.after.placements[1].replicas == full.placements[1].replicas);
}

TEST_CASE("an NVSwitch tray fails: the job stays and its step time grows") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, R"(jobs:
  - {name: pair, gpus: 4, parallelism: {tp: 4}, devices: "r0-n0/gpu[0-1],r0-n1/gpu[0-1]",
     workload: {parameters: 8B}}
)");
  ScenarioResult r = scenario(t, plan, {"su0/r0/nvsw0"});
  REQUIRE(r.radius.jobs.size() == 1);
  CHECK(r.radius.jobs[0].degraded());
  CHECK(r.changes[0].moved.empty());
  CHECK(r.after.placements[0].replicas == plan.placements[0].replicas);
  const double before = r.before.placements[0].shared_step_seconds;
  const double after = r.after.placements[0].shared_step_seconds;
  REQUIRE(before > 0);
  // Half the NVLink bandwidth: TP all-reduces take much longer (not twice:
  // latency terms stay).
  CHECK(after > 1.3 * before);
  CHECK(after < 2.1 * before);
}
