// Shaped jobs through the planner: native fields, placement in pipeline
// order, spare nodes kept, reasons when the shape is not there, and check's
// verdict on a broken or non-uniform chain.
#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "source_dir.hpp"
#include "test_presets.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/placement/chain_path.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/placement_check.hpp"
#include "topoplan/placement/planner_state.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

std::vector<Job> jobs(const std::string& yaml) { return parse_jobs_yaml(yaml, "jobs.yaml"); }

std::vector<std::string> errors(const std::string& yaml) {
  try {
    parse_jobs_yaml(yaml, "jobs.yaml");
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const Diagnostic& d : e.diagnostics()) out.push_back(d.where.str() + ": " + d.message);
    return out;
  }
  return {};
}

Plan plan(const Topology& t, const std::string& yaml) {
  PlanOptions o;
  return plan_jobs(t, jobs(yaml), o);
}

}  // namespace

TEST_CASE("shaped jobs: shape, deterministic and spare in the native manifest") {
  std::vector<Job> js = jobs(R"(jobs:
  - {name: a, lpus: 16, shape: chain, deterministic: true}
  - {name: b, lpus: 8, shape: ring, spare: rack}
  - {name: c, lpus: 4, shape: group}
  - {name: d, lpus: 4}
)");
  CHECK(js[0].shape == ChainShape::chain);
  CHECK(js[0].deterministic);
  CHECK(js[1].shape == ChainShape::ring);
  CHECK(js[1].spare == "rack");
  CHECK(js[2].shape == ChainShape::group);
  CHECK(js[3].shape == ChainShape::none);
  CHECK_FALSE(js[3].deterministic);

  CHECK(errors("jobs: [{name: a, lpus: 8, shape: chian}]") ==
        std::vector<std::string>{"jobs.yaml:1:34: unknown shape 'chian'; shapes are chain, ring, group; did you mean "
                                 "'chain'?"});
  CHECK(errors("jobs: [{name: a, lpus: 8, shape: chain, deterministic: yes}]") ==
        std::vector<std::string>{"jobs.yaml:1:56: 'deterministic' is true or false, not 'yes'"});
  CHECK(errors("jobs: [{name: a, lpus: 8, deterministic: true}]") ==
        std::vector<std::string>{"jobs.yaml:1:42: 'deterministic' asks for uniform hops of a shape; give 'shape: "
                                 "chain', 'ring' or 'group'"});
  CHECK(errors("jobs: [{name: a, lpus: 8, spare: rack}]") ==
        std::vector<std::string>{"jobs.yaml:1:34: 'spare' keeps a whole node free beside a shaped job; give 'shape: "
                                 "chain', 'ring' or 'group'"});
}

TEST_CASE("shaped jobs: a Groq rack pair holds chains of 8, 16, 40 and 72 LPUs, each contiguous") {
  Topology t = preset("groq:racks=2");
  Plan p = plan(t, R"(jobs:
  - {name: whole-rack, lpus: 72, shape: chain, deterministic: true}
  - {name: c40, lpus: 40, shape: chain, deterministic: true}
  - {name: c16, lpus: 16, shape: ring}
  - {name: c8, lpus: 8, shape: group}
)");
  std::set<DeviceId> used;
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    INFO(p.jobs[j].name);
    const JobPlacement& pl = p.placements[j];
    REQUIRE(pl.placed);
    REQUIRE(pl.replicas.size() == 1);
    const std::vector<DeviceId>& chain = pl.replicas.front();
    CHECK(chain.size() == p.jobs[j].per_replica);
    for (DeviceId d : chain) CHECK(used.insert(d).second);
    ChainPath path = measure_chain(t, chain, p.jobs[j].shape);
    CHECK(path.connected);
    CHECK(path.uniform);
    CHECK(pl.problems.empty());
  }
  // The 72-chip chain takes a rack of its own: no hop leaves it.
  const JobPlacement& rack = p.placements[0];
  auto rack_of = [&](DeviceId d) { return t.ancestor(t.device(d).domain, *t.find_level("rack")); };
  CHECK(std::all_of(rack.replicas[0].begin(), rack.replicas[0].end(),
                    [&](DeviceId d) { return rack_of(d) == rack_of(rack.replicas[0].front()); }));
  // The others fit beside each other in the second rack.
  for (std::size_t j = 1; j < 4; ++j) CHECK(rack_of(p.placements[j].replicas[0].front()) != rack_of(rack.replicas[0][0]));
}

TEST_CASE("shaped jobs: a spare node per rack stays free for later jobs") {
  Topology t = preset("groq:racks=1");
  Plan p = plan(t, R"(jobs:
  - {name: main, lpus: 64, shape: chain, spare: rack}
  - {name: late, lpus: 8}
)");
  REQUIRE(p.placements[0].placed);
  REQUIRE(p.placements[0].spares.size() == 1);
  CHECK_FALSE(p.placements[1].placed);  // the spare is main's
}

TEST_CASE("shaped jobs: the reason names the longest chain and the jobs in the way") {
  // Two nodes of 4 joined by one link, n0/lpu3 - n1/lpu0, which job 'x' holds.
  Topology t = parse_topology_yaml(R"(name: two
levels: [cluster, node]
blocks:
  node:
    level: node
    devices: [{name: "lpu[0-3]", kind: lpu}]
    links: [{from: "lpu*", type: groq-c2c, mode: mesh}]
  c:
    level: cluster
    children: [{block: node, count: 2, name: "n{j}"}]
    links:
      - {from: "n0/lpu3", to: "n1/lpu0", type: groq-c2c}
)",
                                   "two.yaml");
  PlannerState state(t);
  std::vector<Job> js = jobs(R"(jobs:
  - {name: x, lpus: 1}
  - {name: pipe, lpus: 7, shape: chain}
)");
  JobPlacement taken;
  taken.placed = true;
  taken.replicas = {{*TopologyIndex(t).find_device("n0/lpu3")}};
  state.occupy(js[0], taken);
  PlannerState::PlaceResult r = state.place(js[1]);
  CHECK(r.id == kNone);
  // x's chip held the only link between the nodes: 3 and 4 free chips
  // apart, refused before any search.
  CHECK(r.placement.reason == "needs a chain of 7 LPUs; 7 LPUs free, but at most 4 of them are joined by direct links");
  CHECK(r.placement.suggestion == "moving job x would make room");
}

TEST_CASE("shaped jobs: check reports a chain that is not contiguous or not uniform") {
  Topology t = preset("groq:racks=1");
  Plan p = plan(t, "jobs: [{name: c, lpus: 16, shape: chain, deterministic: true}]");
  REQUIRE(p.placements[0].placed);
  CHECK(check_placement(t, p, 0).empty());
  // Swap two chips of different nodes: the chain jumps without a link.
  std::vector<DeviceId>& chain = p.placements[0].replicas[0];
  std::swap(chain[3], chain[12]);
  std::vector<std::string> problems = check_placement(t, p, 0);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("its chain is broken") == 0);
  CHECK(problems[0].find("recompile and re-place") != std::string::npos);
}

TEST_CASE("shaped jobs: samples/jobs-groq.yaml plans as its comments say") {
  const std::string text = topoplan::test::source_file("samples/jobs-groq.yaml");
  Topology t = preset("groq:racks=2");
  PlanOptions o;
  Plan p = plan_jobs(t, parse_jobs_yaml(text, "jobs-groq.yaml"), o);
  REQUIRE(p.jobs.size() == 4);
  const LevelIndex rack = *t.find_level("rack");
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    INFO(p.jobs[j].name);
    REQUIRE(p.placements[j].placed);
    ChainPath path = measure_chain(t, p.placements[j].replicas[0], p.jobs[j].shape);
    CHECK(path.connected);
    if (p.jobs[j].deterministic) CHECK(path.uniform);
    CHECK(p.placements[j].problems.empty());
  }
  // The 40-chip chain keeps a whole GroqNode of its rack free, and nobody
  // else is on it.
  const JobPlacement& shard = p.placements[1];
  REQUIRE(shard.spares.size() == 1);
  CHECK(t.ancestor(shard.spares[0], rack) == t.ancestor(t.device(shard.replicas[0][0]).domain, rack));
  for (const JobPlacement& other : p.placements)
    for (DeviceId d : other.replicas[0]) CHECK(t.device(d).domain != shard.spares[0]);
}
