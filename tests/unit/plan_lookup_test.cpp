#include "topoplan/placement/plan_lookup.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include "topoplan/placement/plan_io.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

std::string error_of(const Plan& plan, const std::string& job, long long replica) {
  try {
    plan_replica(plan, job, replica, "plan.yaml");
  } catch (const InputError& e) {
    return e.diagnostics().front().str();
  }
  return "";
}

}  // namespace

TEST_CASE("plan lookup: a job's replica by name, and what is wrong when it is not there") {
  Topology t = preset("dgx-h100:nodes=2");
  const std::string a0 = t.hostname(t.domains_at(t.host_level()).first).data();
  Plan plan = parse_plan_yaml(R"(jobs:
  - {name: train, replicas: 2, gpus_per_replica: 2, replica_devices: [")" + a0 + R"(/gpu[0-1]", ")" + a0 +
                              R"(/gpu[2-3]"]}
  - {name: idle, gpus: 4, placed: false}
)",
                              "plan.yaml", t);
  PlanReplica r = plan_replica(plan, "train", 1, "plan.yaml");
  CHECK(r.job.name == "train");
  const std::vector<DeviceId>& second = r.devices;
  REQUIRE(second.size() == 2);
  CHECK(t.device_name(second[0]) == a0 + "/gpu2");
  CHECK(t.device_name(second[1]) == a0 + "/gpu3");
  CHECK(error_of(plan, "trian", 0) == "plan.yaml: no job 'trian' in the plan; did you mean 'train'?");
  CHECK(error_of(plan, "train", 2) == "--replica: job 'train' has replicas 0 to 1, not 2");
  CHECK(error_of(plan, "idle", 0).find("job 'idle' is not placed in this plan") != std::string::npos);
}
