#include "topoplan/placement/placement_check.hpp"
#include "topoplan/placement/planner.hpp"

#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include "test_presets.hpp"

#include <set>
#include <sstream>

#include "topoplan/io/topology_source.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/placement/job_pricer.hpp"
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

// `p` written as a JSON or YAML plan and read back.
Plan reread(const Topology& t, const Plan& p, bool json) {
  std::ostringstream out;
  if (json)
    write_plan_json(out, t, p);
  else
    write_plan_yaml(out, t, p);
  return parse_plan_yaml(out.str(), "plan", t);
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
  CHECK(p.placements[2].reason ==
        "needs 4 GPUs of model 'H100*'; no accelerator of topology 'gb200-nvl72' is one (its model is GB200), so it "
        "can never fit");
}

TEST_CASE("a job larger than the whole cluster says it can never fit, counting what is down") {
  Topology t = preset("gb200-nvl72:racks=1");
  Plan whole = plan(t, "jobs:\n  - {name: huge, gpus: 80}\n");
  REQUIRE_FALSE(whole.placements[0].placed);
  CHECK(whole.placements[0].reason == "needs 80 GPUs; topology 'gb200-nvl72' has 72 in all, so it can never fit");
  // With a node down, 6 of 8 remain: the reason says how many are usable and why.
  Topology small = parse_topology_yaml(R"(name: small
levels: [cluster, node]
blocks:
  up: {level: node, devices: [{name: "gpu[0-1]", kind: gpu, model: H100}]}
  dead: {level: node, devices: [{name: "gpu[0-1]", kind: gpu, model: H100, state: down}]}
  cluster: {level: cluster, children: [{block: up, count: 3, name: "n{i}"}, {block: dead, name: n3}]}
root: cluster
)",
                                       "small.yaml");
  Plan down = plan(small, "jobs:\n  - {name: big, gpus: 7}\n");
  REQUIRE_FALSE(down.placements[0].placed);
  CHECK(down.placements[0].reason ==
        "needs 7 GPUs; topology 'small' has 6 usable in all (2 down or draining), so it can never fit");
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

TEST_CASE("a written plan shows the parallelism it was priced with") {
  Topology t = preset("gb200-nvl72:racks=2");
  // A whole-node job without parallelism is priced as data parallelism over
  // all its GPUs (2 trays of 4): the plan says dp 8, not 1 x 1 x 1, and reads
  // back as the same job. An unplaced one shows what it asked.
  Plan p = plan(t, "jobs: [{name: a, nodes: 2}, {name: b, gpus: 8, parallelism: {tp: 4, dp: 2}}, {name: c, nodes: 99}]");
  std::ostringstream json;
  write_plan_json(json, t, p);
  YAML::Node doc = YAML::Load(json.str());
  CHECK(doc["jobs"][0]["job"]["parallelism"]["dp"].as<int>() == 8);
  CHECK(doc["jobs"][0]["job"]["parallelism"]["tp"].as<int>() == 1);
  CHECK(doc["jobs"][1]["job"]["parallelism"]["tp"].as<int>() == 4);
  CHECK(doc["jobs"][1]["job"]["parallelism"]["dp"].as<int>() == 2);
  CHECK(doc["jobs"][2]["job"]["parallelism"]["dp"].as<int>() == 1);
  for (bool as_json : {false, true}) {
    Plan back = reread(t, p, as_json);
    CHECK(back.jobs[0].parallelism.dp == 8);
    CHECK(back.placements[0].replicas == p.placements[0].replicas);
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
    workload: {parameters: 47B, expert_bytes: 32MiB, expert_combine_bytes: 62MiB, moe_layers: 32, ep_kernel: pplx,
               ep_message_bytes: 7168}
  - {name: svc, kind: inference, replicas: 2, gpus_per_replica: 4, spread: rack, tenant: web,
     queue: serving, priority_class: "high: \"urgent\""}
  - {name: no, gpus: 1000}
)");
  for (bool json : {false, true}) {
    Plan back = reread(t, p, json);
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
      CHECK(a.expert_combine_bytes == b.expert_combine_bytes);
      CHECK(a.moe_layers == b.moe_layers);
      CHECK(a.ep_kernel == b.ep_kernel);
      CHECK(a.ep_message_bytes == b.ep_message_bytes);
    }
    CHECK(back.jobs[0].parallelism.tp == 4);
    CHECK(back.jobs[1].workload.ep_kernel == EpKernel::pplx);
    CHECK(back.jobs[1].workload.ep_message_bytes == 7168);
    CHECK(back.jobs[1].workload.expert_combine_bytes == 62.0 * 1024 * 1024);
    CHECK(back.jobs[0].workload.ep_kernel == EpKernel::nccl);
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

namespace {

// A plan that takes whole racks of gb200-nvl72 (hosts rNNNN-n00..n17).
Plan racks_taken(const Topology& t, const std::string& racks) {
  Plan p = parse_plan_yaml("jobs: [{name: filler, hosts: \"r" + racks + "-n[00-17]\"}]", "occupied.yaml", t);
  price_plan(t, p, nullptr);
  return p;
}

Plan plan_on(const Topology& t, const std::string& jobs, const Plan* occupied, const std::string& policy = "topo") {
  PlanOptions o;
  o.policy = policy;
  o.occupied = occupied;
  return plan_jobs(t, parse_jobs_yaml(jobs, "jobs.yaml"), o);
}

}  // namespace

TEST_CASE("replicas_within keeps all slices in one domain, each slice in its own") {
  Topology t = preset("gb200-nvl72:racks=16");  // two SUs of 8 racks
  const std::string four = "jobs: [{name: s, kind: training, replicas: 4, gpus_per_replica: 72, required: rack, "
                           "replicas_within: su}]";
  // 5 racks taken in each SU: each has room for 3 slices.
  Plan both = racks_taken(t, "[0000-0004,0008-0012]");
  Plan ours = plan_on(t, four, &both, "topo");
  REQUIRE_FALSE(ours.placements[0].placed);
  CHECK(ours.placements[0].reason == "needs 4 slices of 72 GPUs, each in one rack, all in one su; the best su has room "
                                  "for 3");
  // Kueue says it its way: the slices of 72 one-GPU pods that the best SU
  // holds, and the 180 nodes of the 10 taken racks that hold no pod.
  Plan k = plan_on(t, four, &both, "kueue");
  REQUIRE_FALSE(k.placements[0].placed);
  CHECK(k.placements[0].reason == "topology \"default\" allows to fit only 3 out of 4 slice(s). Total nodes: 288; "
                                  "excluded: resource \"nvidia.com/gpu\": 180");
  // Without the constraint the slices go to two SUs.
  Plan loose = plan_on(t, "jobs: [{name: s, kind: training, replicas: 4, gpus_per_replica: 72, required: rack}]", &both);
  REQUIRE(loose.placements[0].placed);
  CHECK(domains(t, loose, 0, "su").size() == 2);

  // Only the second SU holds 4; 3 go to the tightest, the first.
  Plan one = racks_taken(t, "[0000-0004]");
  for (std::string policy : {"topo", "kueue"}) {
    INFO(policy);
    Plan p = plan_on(t, four, &one, policy);
    REQUIRE(p.placements[0].placed);
    const DomainId first_su = t.domains_at(*t.find_level("su")).first;
    CHECK(domains(t, p, 0, "su") == std::set<DomainId>{first_su + 1});
    CHECK(domains(t, p, 0, "rack").size() == 4);
    for (const auto& replica : p.placements[0].replicas) CHECK(replica_domains(t, replica, "rack").size() == 1);
    CHECK(check_placement(t, p, 0).empty());
    Plan three = plan_on(t, "jobs: [{name: s, kind: training, replicas: 3, gpus_per_replica: 72, required: rack, "
                            "replicas_within: su}]",
                         &one, policy);
    REQUIRE(three.placements[0].placed);
    CHECK(domains(t, three, 0, "su") == std::set<DomainId>{first_su});
  }
  // More slices than any SU has racks.
  Plan nine = plan_on(t, "jobs: [{name: s, kind: training, replicas: 9, gpus_per_replica: 72, required: rack, "
                         "replicas_within: su}]",
                      nullptr);
  CHECK(nine.placements[0].reason == "needs 9 slices of 72 GPUs, each in one rack, all in one su; a su holds at most 8");
}

TEST_CASE("policies that cannot express replicas_within place without it and report the violation") {
  Topology t = preset("gb200-nvl72:racks=16");
  Plan both = racks_taken(t, "[0000-0004,0008-0012]");
  for (std::string policy : {"naive", "slurm"}) {
    INFO(policy);
    Plan p = plan_on(t, "jobs: [{name: s, kind: training, replicas: 4, gpus_per_replica: 72, required: rack, "
                        "replicas_within: su}]",
                     &both, policy);
    REQUIRE(p.placements[0].placed);
    CHECK(p.placements[0].problems ==
          std::vector<std::string>{"its replicas span 2 sus but must all be in one (replicas_within: su)"});
  }
}

TEST_CASE("replicas_within and spread at the same level contradict each other") {
  Topology t = preset("gb200-nvl72:racks=16");
  try {
    plan(t, "jobs:\n  - {name: s, replicas: 2, gpus_per_replica: 8, spread: su, replicas_within: su}\n");
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(e.diagnostics().front().str() ==
          "jobs.yaml:2:5: job 's': its 2 replicas cannot be in different sus and all in one su (replicas_within)");
  }
  CHECK_THROWS_AS(plan(t, "jobs: [{name: s, replicas: 2, gpus_per_replica: 8, replicas_within: pod}]"), InputError);
}

TEST_CASE("exclusive_level: each replica in a domain no other job uses") {
  Topology t = preset("gb200-nvl72:racks=4");
  // The exclusive service takes two racks of its own; the rest goes around them.
  Plan p = plan(t, R"(jobs:
  - {name: svc, kind: inference, replicas: 2, gpus_per_replica: 8, exclusive_level: rack, priority: 5}
  - {name: fits, gpus: 144}
  - {name: more, gpus: 1}
)");
  REQUIRE(p.placements[0].placed);
  REQUIRE(p.placements[1].placed);
  std::set<DomainId> svc = domains(t, p, 0, "rack");
  CHECK(svc.size() == 2);
  for (DomainId d : domains(t, p, 1, "rack")) CHECK(svc.count(d) == 0);
  CHECK_FALSE(p.placements[2].placed);
  CHECK(p.placements[2].reason ==
        "needs 1 GPU; only 0 are free; 128 more are in domains other jobs keep to themselves (exclusive_level)");
  for (std::size_t j = 0; j < 2; ++j) CHECK(check_placement(t, p, j).empty());

  // The other way round: racks other jobs use are not taken.
  Plan q = plan(t, R"(jobs:
  - {name: small, gpus: 4, priority: 5}
  - {name: svc3, kind: inference, replicas: 3, gpus_per_replica: 8, exclusive_level: rack}
  - {name: svc4, kind: inference, replicas: 4, gpus_per_replica: 8, exclusive_level: rack}
)");
  REQUIRE(q.placements[1].placed);
  for (DomainId d : domains(t, q, 1, "rack")) CHECK(domains(t, q, 0, "rack").count(d) == 0);
  CHECK_FALSE(q.placements[2].placed);
  CHECK(q.placements[2].reason == "needs 4 replicas of 8 GPUs, each in a rack of its own; only 0 of 4 racks are free "
                                  "of other jobs with room for one");

  // One replica: required in a domain of its own.
  Plan one = plan(t, R"(jobs:
  - {name: a, gpus: 100, priority: 5}
  - {name: b, gpus: 100, priority: 4}
  - {name: c, gpus: 8, exclusive_level: su}
)");
  CHECK_FALSE(one.placements[2].placed);
  CHECK(one.placements[2].reason == "needs 8 GPUs; only 0 are free in sus no other job uses");
}

TEST_CASE("exclusive_level is kept for --occupied plans and checked both ways in plans") {
  Topology t = preset("gb200-nvl72:racks=2");
  Plan old = parse_plan_yaml(R"(jobs:
  - {name: lws, kind: inference, exclusive_level: rack, replica_devices: ["r0000-n00/gpu[0-3]"]}
)",
                             "old.yaml", t);
  price_plan(t, old, nullptr);
  Plan next = plan_on(t, "jobs: [{name: x, gpus: 80}]", &old);
  CHECK_FALSE(next.placements[0].placed);
  Plan fits = plan_on(t, "jobs: [{name: x, gpus: 72}]", &old);
  REQUIRE(fits.placements[0].placed);
  CHECK(domains(t, fits, 0, "rack") == std::set<DomainId>{t.domains_at(*t.find_level("rack")).first + 1});

  Plan hand = parse_plan_yaml(R"(jobs:
  - {name: lws, kind: inference, exclusive_level: rack, replica_devices: ["r0000-n00/gpu[0-3]", "r0000-n01/gpu[0-3]"]}
  - {name: other, devices: "r0000-n02/gpu0"}
)",
                              "hand.yaml", t);
  price_plan(t, hand, nullptr);
  CHECK(hand.placements[0].problems ==
        std::vector<std::string>{"replica 1 shares rack 'su000/r0000' with another replica (exclusive_level: rack)",
                                 "shares rack 'su000/r0000' with 'other' but must have it to itself (exclusive_level: rack)"});
  CHECK(hand.placements[1].problems ==
        std::vector<std::string>{"uses rack 'su000/r0000', which 'lws' must have to itself (exclusive_level: rack)"});
}

TEST_CASE("reasons name what is missing for spread and per-replica requirements") {
  Topology t = preset("gb200-nvl72:racks=2");
  CHECK(plan(t, "jobs: [{name: s, replicas: 3, gpus_per_replica: 8, spread: rack}]").placements[0].reason ==
        "needs 3 replicas of 8 GPUs in different racks; the topology has 2 racks");
  CHECK(plan(t, "jobs: [{name: s, replicas: 3, gpus_per_replica: 40, required: rack}]").placements[0].reason ==
        "needs 3 replicas of 40 GPUs, each in one rack; the free racks have room for 2");
  Topology four = preset("gb200-nvl72:racks=4");
  Plan p = plan(four, R"(jobs:
  - {name: bits, kind: inference, replicas: 3, gpus_per_replica: 1, spread: rack, priority: 5}
  - {name: s, replicas: 2, gpus_per_replica: 72, required: rack, spread: rack}
)");
  CHECK(p.placements[1].reason ==
        "needs 2 replicas of 72 GPUs, each in a different rack; only 1 of 4 racks has room for one");
}

TEST_CASE("replicas_within and exclusive_level survive a plan file") {
  Topology t = preset("gb200-nvl72:racks=16");
  Plan p = plan(t, R"(jobs:
  - {name: s, kind: training, replicas: 2, gpus_per_replica: 8, required: rack, replicas_within: su}
  - {name: e, kind: inference, replicas: 2, gpus_per_replica: 4, exclusive_level: rack}
)");
  for (bool json : {false, true}) {
    Plan back = reread(t, p, json);
    CHECK(back.jobs[0].replicas_within == std::optional<std::string>("su"));
    CHECK(back.jobs[1].exclusive_level == std::optional<std::string>("rack"));
    price_plan(t, back, nullptr);
    CHECK(back.placements[0].problems.empty());
    CHECK(back.placements[1].problems.empty());
  }
}

TEST_CASE("min_replicas: how many replicas a service needs, kept through a plan file") {
  Topology t = preset("gb200-nvl72:racks=4");
  Plan p = plan(t, R"(jobs:
  - {name: svc, kind: inference, replicas: 3, gpus_per_replica: 8, min_replicas: 2, spread: rack}
  - {name: all, kind: inference, replicas: 2, gpus_per_replica: 8}
)");
  CHECK(p.jobs[0].min_replicas == 2);
  CHECK(p.jobs[0].needed_replicas() == 2);
  CHECK(p.jobs[1].min_replicas == 0);
  CHECK(p.jobs[1].needed_replicas() == 2);
  for (bool json : {false, true}) {
    Plan back = reread(t, p, json);
    CHECK(back.jobs[0].min_replicas == 2);
    CHECK(back.jobs[1].min_replicas == 0);
  }
  CHECK_THROWS_WITH(parse_jobs_yaml("jobs:\n  - {name: s, replicas: 2, gpus_per_replica: 1, min_replicas: 3}\n", "m.yaml"),
                    "m.yaml:2:63: job 's' needs 3 replicas (min_replicas) but has 2");
  CHECK_THROWS_WITH(parse_jobs_yaml("jobs:\n  - {name: s, replicas: 2, gpus_per_replica: 1, min_replicas: 0}\n", "m.yaml"),
                    "m.yaml:2:63: 'min_replicas' is 0; it must be between 1 and 1000000");
}

TEST_CASE("ep_kernel: bad kernels and missing or stray put sizes are errors with their place") {
  try {
    parse_jobs_yaml(R"(jobs:
  - {name: a, gpus: 16, parallelism: {dp: 16, ep: 16}, workload: {expert_bytes: 7MiB, ep_kernel: deepep_ll}}
  - {name: b, gpus: 16, parallelism: {dp: 16, ep: 16}, workload: {expert_bytes: 7MiB, ep_kernel: pplx}}
  - {name: c, gpus: 16, parallelism: {dp: 16, ep: 16}, workload: {ep_kernel: deepep, ep_message_bytes: 7168}}
  - {name: d, gpus: 16, parallelism: {dp: 16, ep: 16}, workload: {expert_combine_bytes: 14MiB}}
)",
                    "m.yaml");
    FAIL("expected errors");
  } catch (const InputError& e) {
    std::vector<std::string> got;
    for (const Diagnostic& d : e.diagnostics()) got.push_back(d.str());
    REQUIRE(got.size() == 4);
    CHECK(got[0].rfind("m.yaml:2:", 0) == 0);
    CHECK(got[0].find("unknown ep_kernel 'deepep_ll'; use nccl, pplx, deepep, deepep-ll; did you mean 'deepep-ll'?") !=
          std::string::npos);
    CHECK(got[1].rfind("m.yaml:3:", 0) == 0);
    CHECK(got[1].find("give ep_message_bytes") != std::string::npos);
    CHECK(got[2].rfind("m.yaml:4:", 0) == 0);
    CHECK(got[2].find("ep_kernel deepep does not use it") != std::string::npos);
    CHECK(got[3].rfind("m.yaml:5:", 0) == 0);
    CHECK(got[3].find("give 'expert_bytes' too") != std::string::npos);
  }
}

TEST_CASE("a MoE job's ep_kernel sets the price of its expert-parallel traffic in plan and evaluate") {
  Topology t = preset("dgx-h100:nodes=4");
  auto jobs = [](const std::string& kernel) {
    return "jobs:\n  - name: moe\n    gpus: 32\n    parallelism: {dp: 32, ep: 32}\n"
           "    workload: {parameters: 16B, expert_bytes: 7MiB, moe_layers: 16" +
           kernel + "}\n";
  };
  JobPricer pricer(t);
  auto planned = [&](const std::string& kernel) {
    PlanOptions o;
    o.pricer = &pricer;
    return plan_jobs(t, parse_jobs_yaml(jobs(kernel), "jobs.yaml"), o);
  };
  Plan nccl = planned("");
  Plan pplx = planned(", ep_kernel: pplx, ep_message_bytes: 7168");
  Plan ll = planned(", ep_kernel: deepep-ll");
  REQUIRE(nccl.placements[0].placed);
  REQUIRE(pplx.placements[0].placed);
  REQUIRE(ll.placements[0].placed);
  REQUIRE(nccl.placements[0].breakdown);
  REQUIRE(pplx.placements[0].breakdown);
  REQUIRE(ll.placements[0].breakdown);
  const double e_nccl = nccl.placements[0].breakdown->ep;
  const double e_pplx = pplx.placements[0].breakdown->ep;
  const double e_ll = ll.placements[0].breakdown->ep;
  CHECK(e_nccl > 0);
  CHECK(e_pplx != Approx(e_nccl));
  CHECK(e_ll != Approx(e_nccl));
  CHECK(e_ll != Approx(e_pplx));
  // The plan's step is the kernel's: what the cost model gives the same ranks.
  CostModel model(t);
  Workload w = JobPricer::workload_of(pplx.jobs[0]);
  CHECK(w.ep_kernel == EpKernel::pplx);
  const std::vector<DeviceId>& ranks = pplx.placements[0].replicas.front();
  CHECK(model.step(ranks, pplx.jobs[0].parallelism, w).ep == Approx(e_pplx));
  // Read back (evaluate's path), the plan prices the same.
  for (bool json : {false, true}) {
    Plan back = reread(t, pplx, json);
    price_plan(t, back, &pricer);
    REQUIRE(back.placements[0].breakdown);
    CHECK(back.placements[0].breakdown->ep == Approx(e_pplx));
  }
}
