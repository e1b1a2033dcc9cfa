// The constraint checker over a whole plan (check_plan) and per job
// (check_placement): the same problems, in the same order, for plans from
// other schedulers and hand-written ones with every kind of conflict.
#include "topoplan/placement/placement_check.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/placement/plan_io.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

const char* kMessy = R"(jobs:
  - {name: a, hosts: "r0000-n[00-01]", required: node}
  - {name: b, devices: "r0000-n01/gpu3,r0001-n00/gpu0", tenant: blue}
  - {name: c, devices: "r0000-n01/gpu[2-3]", tenant: red}
  - {name: d, devices: "r0001-n05/gpu0", exclusive_level: rack}
  - {name: e, devices: "r0001-n06/gpu0"}
  - {name: f, devices: "r0001-n07/gpu[0-3]", exclusive: true}
  - {name: g, devices: "r0001-n07/gpu0"}
  - {name: h, replica_devices: ["r0000-n10/gpu0", "r0000-n11/gpu0"], replicas: 2, gpus_per_replica: 1, spread: rack}
  - {name: i, replica_devices: ["r0000-n12/gpu0", "r0001-n12/gpu0"], replicas: 2, gpus_per_replica: 1, replicas_within: rack}
)";

}  // namespace

TEST_CASE("check_plan: every conflict found, once per job, as check_placement finds it") {
  Topology t = preset("gb200-nvl72:racks=2");
  Plan p = parse_plan_yaml(kMessy, "messy.yaml", t);
  std::vector<std::vector<std::string>> all = check_plan(t, p);
  REQUIRE(all.size() == p.jobs.size());
  for (std::size_t j = 0; j < p.jobs.size(); ++j) CHECK(all[j] == check_placement(t, p, j));
  auto has = [&](std::size_t j, const std::string& text) {
    for (const std::string& problem : all[j])
      if (problem.find(text) != std::string::npos) return true;
    return false;
  };
  CHECK(has(0, "spans 2 nodes but requires one"));
  CHECK(has(0, "shares devices: 'r0000-n01/gpu2' with 'c', 'r0000-n01/gpu3' with 'b'"));
  CHECK(has(1, "shares devices: 'r0000-n01/gpu3' with 'a'"));
  CHECK(has(1, "shares node 'r0000-n01' with tenant 'red' ('c')"));
  CHECK(has(3, "shares rack 'su000/r0001' with 'b' but must have it to itself (exclusive_level: rack)"));
  CHECK(has(4, "uses rack 'su000/r0001', which 'd' must have to itself (exclusive_level: rack)"));
  CHECK(has(5, "shares node 'r0001-n07' with 'g' but is exclusive"));
  CHECK(has(6, "shares node 'r0001-n07' with 'f' but that job is exclusive"));
  CHECK(has(7, "shares rack"));
  CHECK(has(8, "its replicas span 2 racks but must all be in one (replicas_within: rack)"));
  // The exclusive job sees each job it shares its rack with, in plan order.
  std::size_t conflicts = 0;
  for (const std::string& problem : all[3]) conflicts += problem.find("must have it to itself") != std::string::npos;
  CHECK(conflicts == 5);  // b, e, f, g and i's second replica
}

TEST_CASE("check_plan: a clean plan has no problems, an unplaced job says why") {
  Topology t = preset("gb200-nvl72:racks=2");
  Plan p = parse_plan_yaml(R"(jobs:
  - {name: a, devices: "r0000-n00/gpu[0-3]", required: node}
  - {name: b, hosts: "r0001-n[00-03]", required: rack}
)",
                           "clean.yaml", t);
  for (const auto& problems : check_plan(t, p)) CHECK(problems.empty());
  p.placements[1].placed = false;
  p.placements[1].reason = "no room";
  CHECK(check_plan(t, p)[1] == std::vector<std::string>{"not placed: no room"});
}

TEST_CASE("check_plan: lost accelerators are counted per job and named by the largest dead domain") {
  Topology t = parse_topology_yaml(R"(name: downs
levels: [cluster, rack, node]
blocks:
  up:
    level: node
    hostname: "{rack}-{node}"
    devices: [{name: "gpu[0-3]", kind: gpu, model: H100}]
  dead:
    level: node
    hostname: "{rack}-{node}"
    devices: [{name: "gpu[0-3]", kind: gpu, model: H100, state: down}]
  half:
    level: node
    hostname: "{rack}-{node}"
    devices:
      - {name: "gpu[0-1]", kind: gpu, model: H100, state: drain}
      - {name: "gpu[2-3]", kind: gpu, model: H100}
  good: {level: rack, children: [{block: up, count: 2, name: "n{i}"}]}
  gone: {level: rack, children: [{block: dead, count: 3, name: "n{i}"}]}
  mixed:
    level: rack
    children: [{block: half, name: n0}, {block: dead, name: n1}, {block: up, name: n2}]
  cluster: {level: cluster, children: [{block: good, name: r0}, {block: gone, name: r1}, {block: mixed, name: r2}]}
root: cluster
)",
                                   "downs.yaml");
  Plan p = parse_plan_yaml(R"(jobs:
  - {name: a, hosts: "r0-n[0-1],r1-n[0-2]"}
  - {name: b, hosts: "r2-n[0-2]"}
  - {name: c, hosts: "r0-n0"}
)",
                           "p.yaml", t);
  // The lost GPUs are counted once per job; c also shares r0-n0 with a.
  std::vector<std::vector<std::string>> all = check_plan(t, p);
  CHECK(all[0].front() == "12 of its 20 GPUs are down (r1)");
  CHECK(all[1][0] == "4 of its 12 GPUs are down (r2-n1)");
  CHECK(all[1][1] == "2 of its 12 GPUs are draining (r2-n0/gpu0, r2-n0/gpu1)");
  CHECK(all[2].front() == "shares devices: 'r0-n0/gpu0' with 'a', 'r0-n0/gpu1' with 'a', 'r0-n0/gpu2' with 'a', ...");
  price_plan(t, p, nullptr);
  CHECK(p.summary.jobs_on_down == 2);
  CHECK(p.summary.accelerators_down_used == 16);
}
