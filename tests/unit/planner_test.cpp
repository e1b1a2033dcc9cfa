#include "topoplan/placement/planner.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include <set>
#include <sstream>

#include "topoplan/io/topology_source.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/plan_io.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

Plan plan(const Topology& t, const std::string& jobs, const std::string& policy = "topo") {
  PlanOptions o;
  o.policy = policy;
  return plan_jobs(t, parse_jobs_yaml(jobs, "jobs.yaml"), o);
}

// Distinct domains of `level` that job j's devices (all replicas) touch.
std::set<DomainId> domains(const Topology& t, const Plan& p, std::size_t j, const std::string& level) {
  LevelIndex l = *t.find_level(level);
  std::set<DomainId> out;
  for (const auto& replica : p.placements[j].replicas)
    for (DeviceId d : replica) out.insert(t.ancestor(t.device(d).domain, l));
  return out;
}

std::set<DomainId> replica_domains(const Topology& t, const std::vector<DeviceId>& replica, const std::string& level) {
  LevelIndex l = *t.find_level(level);
  std::set<DomainId> out;
  for (DeviceId d : replica) out.insert(t.ancestor(t.device(d).domain, l));
  return out;
}

}  // namespace

TEST_CASE("the issue's acceptance mix on gb200-nvl72:racks=4") {
  Topology t = preset("gb200-nvl72:racks=4");
  Plan p = plan(t, R"(jobs:
  - {name: train72, gpus: 72, parallelism: {tp: 4, pp: 2, dp: 9}}
  - {name: chat, kind: inference, replicas: 3, gpus_per_replica: 8, spread: rack}
  - {name: huge, gpus: 300, required: rack}
)");
  REQUIRE(p.placements.size() == 3);
  // A 72-GPU training job lands in one rack.
  REQUIRE(p.placements[0].placed);
  CHECK(p.placements[0].device_count() == 72);
  CHECK(domains(t, p, 0, "rack").size() == 1);
  // 3 x 8 with spread: rack lands in 3 racks, each replica inside one rack.
  REQUIRE(p.placements[1].placed);
  REQUIRE(p.placements[1].replicas.size() == 3);
  std::set<DomainId> racks;
  for (const auto& replica : p.placements[1].replicas) {
    CHECK(replica.size() == 8);
    auto r = replica_domains(t, replica, "rack");
    CHECK(r.size() == 1);
    racks.insert(r.begin(), r.end());
  }
  CHECK(racks.size() == 3);
  // A 300-GPU job is refused with a reason.
  CHECK_FALSE(p.placements[2].placed);
  CHECK(p.placements[2].reason == "needs 300 GPUs in one rack; a rack holds at most 72");
  for (std::size_t j = 0; j < 2; ++j) CHECK(check_placement(t, p, j).empty());
}

TEST_CASE("jobs keep whole tensor-parallel groups inside one node") {
  Topology t = preset("gb200-nvl72:racks=1");
  // 2 GPUs taken on each of the first 4 trays leaves halves; TP 4 must not
  // straddle them.
  Plan p = plan(t, R"(jobs:
  - {name: small, gpus: 2, priority: 9}
  - {name: tp4, gpus: 16, parallelism: {tp: 4, dp: 4}}
)");
  REQUIRE(p.placements[1].placed);
  const auto& ranks = p.placements[1].replicas[0];
  for (std::size_t g = 0; g < ranks.size(); g += 4) {
    std::set<DomainId> nodes;
    for (std::size_t k = g; k < g + 4; ++k) nodes.insert(t.device(ranks[k]).domain);
    CHECK(nodes.size() == 1);
  }
}

TEST_CASE("best fit keeps large islands whole") {
  Topology t = preset("gb200-nvl72:racks=2");
  // After 'a' takes 64 GPUs of one rack, a 6-GPU job goes into that rack's
  // remaining 8, not into the untouched rack.
  Plan p = plan(t, R"(jobs:
  - {name: a, gpus: 64, priority: 2}
  - {name: b, gpus: 6}
)");
  REQUIRE(p.placements[1].placed);
  CHECK(domains(t, p, 0, "rack") == domains(t, p, 1, "rack"));
  CHECK(p.summary.levels[*t.find_level("rack")].largest_free == 72);
  // The naive policy does not care.
  Plan n = plan(t, "jobs: [{name: a, gpus: 60}, {name: b, gpus: 20}]", "naive");
  CHECK(domains(t, n, 1, "rack").size() == 2);
}

TEST_CASE("priority orders the queue and gangs are all or nothing") {
  Topology t = preset("gb200-nvl72:racks=1");
  Plan p = plan(t, R"(jobs:
  - {name: low, gpus: 40, priority: 1}
  - {name: high, gpus: 40, priority: 5}
  - {name: svc, kind: inference, replicas: 3, gpus_per_replica: 16}
)");
  CHECK(p.placements[1].placed);
  CHECK_FALSE(p.placements[0].placed);
  // The service needs 48 and 32 are left: no replica may stay behind.
  CHECK_FALSE(p.placements[2].placed);
  CHECK(p.placements[2].replicas.empty());
  CHECK(p.summary.accelerators_used == 40);
}

TEST_CASE("whole-node jobs, drained nodes and model constraints") {
  Topology t = preset("gb200-nvl72:racks=1");
  Plan p = plan(t, R"(jobs:
  - {name: part, gpus: 2, priority: 3}
  - {name: nodes, nodes: 17}
  - {name: wrong-model, gpus: 4, model: "H100*"}
)");
  REQUIRE(p.placements[1].placed);
  // 17 whole trays: the tray holding 'part' is skipped.
  CHECK(p.placements[1].device_count() == 68);
  CHECK(domains(t, p, 1, "node").count(t.device(p.placements[0].replicas[0][0]).domain) == 0);
  CHECK_FALSE(p.placements[2].placed);
  CHECK(p.placements[2].reason == "needs 4 GPUs of model 'H100*'; only 0 are free");
}

TEST_CASE("tenants never share a node") {
  Topology t = preset("gb200-nvl72:racks=1");
  Plan p = plan(t, R"(jobs:
  - {name: a, gpus: 2, tenant: red}
  - {name: b, gpus: 2, tenant: blue}
  - {name: c, gpus: 2, tenant: red}
)");
  for (std::size_t j = 0; j < 3; ++j) REQUIRE(p.placements[j].placed);
  CHECK(domains(t, p, 0, "node") != domains(t, p, 1, "node"));
  CHECK(domains(t, p, 0, "node") == domains(t, p, 2, "node"));
  for (std::size_t j = 0; j < 3; ++j) CHECK(check_placement(t, p, j).empty());
}

TEST_CASE("unknown levels in jobs are input errors with the job's position") {
  Topology t = preset("gb200-nvl72:racks=1");
  try {
    plan(t, "jobs:\n  - {name: a, gpus: 8, required: rakc}\n");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.diagnostics().front().str() ==
          "jobs.yaml:2:5: job 'a': required level 'rakc' is not a level of topology 'gb200-nvl72' (cluster, su, rack, "
          "node); did you mean 'rack'?");
  }
}

TEST_CASE("a plan survives writing and reading back") {
  Topology t = preset("gb200-nvl72:racks=2");
  Plan p = plan(t, R"(jobs:
  - name: train
    gpus: 100
    parallelism: {tp: 4, dp: 25}
    required: su
    workload: {parameters: 70B, precision: fp8, sharded: true, activation_bytes: 64MiB, layers: 80,
               micro_batches: 8, gradient_bytes: 3GiB}
  - name: moe
    gpus: 8
    parallelism: {tp: 1, dp: 8, ep: 8}
    workload: {parameters: 47B, expert_bytes: 32MiB, moe_layers: 32}
  - {name: svc, kind: inference, replicas: 2, gpus_per_replica: 4, spread: rack, tenant: web,
     queue: serving, priority_class: "high: \"urgent\""}
  - {name: no, gpus: 1000}
)");
  for (bool json : {false, true}) {
    std::ostringstream out;
    if (json)
      write_plan_json(out, t, p);
    else
      write_plan_yaml(out, t, p);
    Plan back = parse_plan_yaml(out.str(), "plan", t);
    REQUIRE(back.jobs.size() == 4);
    for (std::size_t j = 0; j < 4; ++j) {
      CHECK(back.jobs[j].name == p.jobs[j].name);
      CHECK(back.placements[j].placed == p.placements[j].placed);
      CHECK(back.placements[j].replicas == p.placements[j].replicas);
      // The workload comes back whole, so a read plan prices the same.
      const JobWorkload &a = back.jobs[j].workload, &b = p.jobs[j].workload;
      CHECK(a.parameters == b.parameters);
      CHECK(a.bytes_per_parameter == b.bytes_per_parameter);
      CHECK(a.gradient_bytes == b.gradient_bytes);
      CHECK(a.sharded == b.sharded);
      CHECK(a.activation_bytes == b.activation_bytes);
      CHECK(a.layers == b.layers);
      CHECK(a.micro_batches == b.micro_batches);
      CHECK(a.expert_bytes == b.expert_bytes);
      CHECK(a.moe_layers == b.moe_layers);
    }
    CHECK(back.jobs[0].parallelism.tp == 4);
    CHECK(back.jobs[0].workload.bytes_per_parameter == 1);
    CHECK(back.jobs[2].spread == std::optional<std::string>("rack"));
    CHECK(back.jobs[2].tenant == "web");
    // Queue and priority class come back, so evaluate prints them too.
    CHECK(back.jobs[2].queue == "serving");
    CHECK(back.jobs[2].priority_class == "high: \"urgent\"");
    CHECK(back.jobs[0].queue.empty());
    CHECK(back.jobs[0].priority_class.empty());
  }
  std::ostringstream text;
  write_plan_text(text, t, p);
  CHECK(text.str().find("queue: serving, priority class: high: \"urgent\" (0)") != std::string::npos);
  CHECK(text.str().find("queue: \n") == std::string::npos);
}

TEST_CASE("hand-written plans name devices or whole nodes, and checks find violations") {
  Topology t = preset("gb200-nvl72:racks=2");
  Plan p = parse_plan_yaml(R"(jobs:
  - {name: a, hosts: "r0000-n[00-01]", required: node}
  - {name: b, devices: "r0000-n01/gpu3,r0001-n00/gpu0"}
)",
                           "hand.yaml", t);
  REQUIRE(p.placements[0].replicas[0].size() == 8);
  price_plan(t, p, nullptr);
  CHECK(check_placement(t, p, 0) == std::vector<std::string>{"spans 2 nodes but requires one",
                                                            "shares devices: 'r0000-n01/gpu3' with 'b'"});
  try {
    parse_plan_yaml("jobs: [{name: x, devices: \"r9/gpu0\"}]", "bad.yaml", t);
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.diagnostics().front().str() ==
          "bad.yaml:1:27: 'r9/gpu0' is not an accelerator or node of topology 'gb200-nvl72'");
  }
}

TEST_CASE("occupied plans are taken first") {
  Topology t = preset("gb200-nvl72:racks=1");
  Plan first = plan(t, "jobs: [{name: a, gpus: 70}]");
  PlanOptions o;
  o.occupied = &first;
  Plan second = plan_jobs(t, parse_jobs_yaml("jobs: [{name: b, gpus: 4}]", "j"), o);
  CHECK_FALSE(second.placements[0].placed);
  CHECK(second.placements[0].reason == "needs 4 GPUs; only 2 are free");
  CHECK(second.summary.accelerators_occupied == 70);
}

TEST_CASE("job manifests report every problem with its place") {
  try {
    parse_jobs_yaml(R"(jobs:
  - {name: a, gpus: 8, parallelism: {tp: 4, dp: 4}}
  - {name: b, gpsu: 8}
  - {name: c, gpus: -1}
  - {name: a, gpus: 1}
  - {name: d, replicas: 3, gpus: 10}
)",
                    "m.yaml");
    FAIL("expected errors");
  } catch (const InputError& e) {
    std::vector<std::string> got;
    for (const Diagnostic& d : e.diagnostics()) got.push_back(d.str());
    CHECK(got == std::vector<std::string>{
                     "m.yaml:2:37: parallelism tp 4 x pp 1 x dp 4 = 16 ranks, but job 'a' asks for 8 accelerators",
                     "m.yaml:3:15: unknown key 'gpsu' in a job; did you mean 'gpus'?",
                     "m.yaml:3:5: job 'b' needs a size: gpus, lpus, nodes, or replicas and gpus_per_replica",
                     "m.yaml:4:21: 'gpus' is -1; it must be between 1 and 100000000",
                     "m.yaml:6:5: job 'd': 10 accelerators do not split into 3 equal replicas"});
  }
}

TEST_CASE("counts parse with units, sizes report their place") {
  CHECK(*parse_count("70B") == Approx(70e9));
  CHECK(*parse_count("7e9") == Approx(7e9));
  CHECK_FALSE(parse_count("lots"));
  try {
    parse_jobs_yaml("jobs:\n  - {name: a, gpus: 8, workload: {activation_bytes: 12Q}}\n", "w.yaml");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.diagnostics().front().where.str() == "w.yaml:2:53");
    CHECK(e.diagnostics().front().message.find("unknown unit 'Q'") != std::string::npos);
  }
}
