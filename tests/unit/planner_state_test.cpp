// The planner engine's verbs: place, release, occupy and the scenario mask,
// and plan_jobs as a loop over them.
#include "topoplan/placement/planner_state.hpp"

#include <set>

#include <catch2/catch.hpp>

#include "engine_fixtures.hpp"
#include "test_presets.hpp"
#include "topoplan/placement/jobs_yaml.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

std::vector<Job> jobs(const std::string& yaml) { return parse_jobs_yaml(yaml, "jobs.yaml"); }

// Free accelerators per domain, to compare states.
std::vector<std::uint32_t> free_counts(const Topology& t, const Occupancy& occ) {
  std::vector<std::uint32_t> out;
  for (DomainId d = 0; d < t.domain_count(); ++d) {
    out.push_back(occ.free_in(d));
    out.push_back(occ.free_nodes_in(d));
  }
  return out;
}

}  // namespace

TEST_CASE("planner state: place and release are inverse") {
  Topology t = preset("gb200-nvl72:racks=2");
  PlannerState state(t);
  const auto before = free_counts(t, state.occupancy());
  std::vector<Job> js = jobs(R"(jobs:
  - {name: a, gpus: 32, parallelism: {tp: 4, dp: 8}, required: rack}
  - {name: svc, kind: inference, replicas: 2, gpus_per_replica: 8, spread: rack}
  - {name: whole, nodes: 3}
)");
  std::vector<PlannerState::JobId> ids;
  for (const Job& j : js) {
    PlannerState::PlaceResult r = state.place(j);
    REQUIRE(r.id != kNone);
    CHECK(r.placement.placed);
    CHECK(state.active(r.id));
    CHECK(state.placement(r.id).device_count() == r.placement.device_count());
    ids.push_back(r.id);
  }
  CHECK(state.occupancy().free_in(t.root()) == 144 - 32 - 16 - 12);
  // Every device of a job is owned by it.
  for (PlannerState::JobId id : ids)
    for (const auto& replica : state.placement(id).replicas)
      for (DeviceId d : replica) CHECK(state.owner(t.accelerator_index(d)) == id);
  for (PlannerState::JobId id : ids) state.release(id);
  CHECK(free_counts(t, state.occupancy()) == before);
  CHECK_FALSE(state.active(ids[0]));
  state.release(ids[0]);  // twice: nothing happens
  CHECK(free_counts(t, state.occupancy()) == before);
}

TEST_CASE("planner state: a job that does not fit says why, unless told not to") {
  Topology t = preset("gb200-nvl72:racks=1");
  Job big = jobs("jobs:\n  - {name: big, gpus: 100, required: rack}\n").front();
  PlannerState state(t);
  PlannerState::PlaceResult r = state.place(big);
  CHECK(r.id == kNone);
  CHECK_FALSE(r.placement.placed);
  CHECK(r.placement.reason == "needs 100 GPUs in one rack; a rack holds at most 72");
  CHECK(state.job_count() == 0);
  PlannerState quiet(t, {"topo", nullptr, false});
  CHECK(quiet.place(big).placement.reason.empty());
}

TEST_CASE("planner state: occupied placements are kept as given, exclusive domains are held") {
  Topology t = preset("gb200-nvl72:racks=2");
  PlannerState state(t);
  std::vector<Job> js = jobs(R"(jobs:
  - {name: mine, gpus: 8, exclusive_level: rack}
  - {name: other, gpus: 70}
)");
  JobPlacement given;
  given.placed = true;
  given.replicas.push_back({});
  for (std::uint32_t a = 72; a < 80; ++a) given.replicas.back().push_back(t.accelerators()[a]);
  PlannerState::JobId id = state.occupy(js[0], given);
  CHECK(state.placement(id).occupied);
  // The whole second rack is held for `mine`: 70 GPUs only fit in the first.
  CHECK(state.occupancy().free_in(t.root()) == 72);
  PlannerState::PlaceResult other = state.place(js[1]);
  REQUIRE(other.id != kNone);
  for (DeviceId d : other.placement.replicas.front()) CHECK(t.accelerator_index(d) < 72);
  state.release(id);
  CHECK(state.occupancy().free_in(t.root()) == 2 + 72);
}

TEST_CASE("planner state: a scenario mask takes capacity away and gives it back") {
  Topology t = test::engine_topology();
  TopologyIndex index(t);
  PlannerState state(t);
  Job job = jobs("jobs:\n  - {name: a, gpus: 4}\n").front();
  PlannerState::PlaceResult first = state.place(job);
  REQUIRE(first.id != kNone);
  const DomainId r0 = *index.find_domain("r0");
  const DomainId r1 = *index.find_domain("r1");
  ScenarioMask mask(t);
  mask.set_domain(r1, DeviceState::down);
  mask.set_device(*index.find_device("r0-n1/gpu0"), DeviceState::drain);
  state.set_mask(mask);
  CHECK(state.occupancy().usable_in(r1) == 0);
  CHECK(state.occupancy().free_in(r0) == 12 - 4 - 1);
  // The running job keeps its accelerators.
  for (DeviceId d : state.placement(first.id).replicas.front()) CHECK(state.owner(t.accelerator_index(d)) == first.id);
  // New work avoids what the mask takes: the next 4-GPU job gets r0's last whole node.
  PlannerState::PlaceResult second = state.place(job);
  REQUIRE(second.id != kNone);
  for (DeviceId d : second.placement.replicas.front()) {
    CHECK(t.contains(r0, t.device(d).domain));
    CHECK(t.device_name(d).rfind("r0-n1/", 0) != 0);
  }
  // A topology-down device brought up by the mask, and everything restored.
  ScenarioMask up(t);
  up.set_device(*index.find_device("r2-n2/gpu2"), DeviceState::up);
  state.set_mask(up);
  CHECK(state.occupancy().usable_in(r1) == 12);
  CHECK(state.occupancy().free_in(*index.find_domain("r2-n2")) == 3);
  state.set_mask(ScenarioMask(t));
  CHECK(state.occupancy().free_in(*index.find_domain("r2-n2")) == 2);
}

TEST_CASE("scenario mask: states compose, down over drain over up") {
  Topology t = test::engine_topology();
  TopologyIndex index(t);
  ScenarioMask m(t);
  CHECK(m.empty());
  const DeviceId gpu = *index.find_device("r0-n0/gpu1");
  const std::uint32_t a = t.accelerator_index(gpu);
  CHECK(m.accelerator(a) == DeviceState::up);
  m.set_domain(*index.find_domain("r0"), DeviceState::drain);
  CHECK(m.accelerator(a) == DeviceState::drain);
  m.set_device(gpu, DeviceState::down);
  CHECK(m.accelerator(a) == DeviceState::down);
  m.set_device(gpu, DeviceState::up);  // the topology's own state: no entry
  CHECK(m.devices().empty());
  CHECK(m.accelerator(a) == DeviceState::drain);
  m.set_domain(*index.find_domain("r0"), DeviceState::up);
  CHECK(m.empty());
  // A device the topology has down is down until a mask says otherwise.
  const std::uint32_t down = t.accelerator_index(*index.find_device("r2-n2/gpu2"));
  CHECK(m.accelerator(down) == DeviceState::down);
  CHECK(worse(DeviceState::drain, DeviceState::up) == DeviceState::drain);
}

TEST_CASE("plan_jobs is a loop over PlannerState::place") {
  Topology t = preset("gb200-nvl72:racks=4");
  std::vector<Job> js = jobs(R"(jobs:
  - {name: a, gpus: 100, parallelism: {tp: 4, dp: 25}}
  - {name: b, gpus: 8, required: rack, priority: 5}
  - {name: c, kind: inference, replicas: 3, gpus_per_replica: 4, spread: rack}
  - {name: d, gpus: 300, required: rack}
  - {name: e, nodes: 2}
)");
  for (const std::string policy : {"topo", "kueue", "slurm", "naive"}) {
    PlanOptions o;
    o.policy = policy;
    Plan plan = plan_jobs(t, js, o);
    PlannerState state(t, {policy, nullptr, true});
    for (std::size_t j : std::vector<std::size_t>{1, 0, 2, 3, 4}) {  // priority, then file order
      PlannerState::PlaceResult r = state.place(js[j]);
      INFO(policy << " job " << js[j].name);
      CHECK(r.placement.placed == plan.placements[j].placed);
      CHECK(r.placement.replicas == plan.placements[j].replicas);
      CHECK(r.placement.reason == plan.placements[j].reason);
    }
  }
}

TEST_CASE("plan_jobs reports every job the topology cannot interpret") {
  Topology t = preset("gb200-nvl72:racks=1");
  try {
    PlanOptions o;
    plan_jobs(t, jobs("jobs:\n  - {name: a, gpus: 1, required: rak}\n  - {name: b, gpus: 1, preferred: blok}\n"), o);
    FAIL("no error");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 2);
    CHECK_THAT(e.diagnostics()[0].message, Catch::Contains("'rak'"));
    CHECK_THAT(e.diagnostics()[1].message, Catch::Contains("'blok'"));
  }
}

TEST_CASE("planner state: a copy is independent of the original") {
  Topology t = preset("gb200-nvl72:racks=2");
  PlannerState state(t);
  Job j = jobs("jobs:\n  - {name: a, gpus: 8}\n").front();
  REQUIRE(state.place(j).id != kNone);
  const auto before = free_counts(t, state.occupancy());
  PlannerState copy(state);
  CHECK(free_counts(t, copy.occupancy()) == before);
  CHECK(copy.job_count() == 1);
  REQUIRE(copy.place(j).id == 1);
  copy.release(0);
  CHECK(free_counts(t, state.occupancy()) == before);
  CHECK(state.active(0));
  CHECK(state.job_count() == 1);
}

TEST_CASE("planner state: place_in keeps every replica inside one domain") {
  Topology t = preset("gb200-nvl72:racks=2");
  TopologyIndex index(t);
  const DomainId r1 = *index.find_domain("su000/r0001");
  PlannerState state(t);
  Job svc = jobs("jobs:\n  - {name: svc, kind: inference, replicas: 3, gpus_per_replica: 4, spread: node}\n").front();
  PlannerState::PlaceResult r = state.place_in(svc, r1);
  REQUIRE(r.id != kNone);
  std::set<DomainId> nodes;
  for (const auto& replica : r.placement.replicas)
    for (DeviceId d : replica) {
      CHECK(t.contains(r1, t.device(d).domain));
      nodes.insert(t.device(d).domain);
    }
  CHECK(nodes.size() == 3);
  Job big = jobs("jobs:\n  - {name: big, gpus: 80}\n").front();
  PlannerState::PlaceResult no = state.place_in(big, r1);
  CHECK(no.id == kNone);
  CHECK(no.placement.reason == "needs 80 GPUs inside su000/r0001, which has 60 GPUs usable");
}

TEST_CASE("planner state: replicas move apart from the others, or not at all") {
  Topology t = preset("gb200-nvl72:racks=3");
  PlannerState state(t);
  Job svc = jobs("jobs:\n  - {name: svc, kind: inference, replicas: 2, gpus_per_replica: 72, spread: rack}\n").front();
  PlannerState::PlaceResult r = state.place(svc);
  REQUIRE(r.id != kNone);
  auto rack_of = [&](const std::vector<DeviceId>& replica) { return t.ancestor(t.device(replica.front()).domain, 2); };
  const DomainId stays = rack_of(r.placement.replicas[1]);
  const DomainId old = rack_of(r.placement.replicas[0]);
  // Make before break: the one free rack that is not the other replica's.
  PlannerState::PlaceResult moved = state.move_replicas(r.id, {0}, false);
  REQUIRE(moved.id == r.id);
  const DomainId now = rack_of(state.placement(r.id).replicas[0]);
  CHECK(now != stays);
  CHECK(now != old);
  CHECK(rack_of(state.placement(r.id).replicas[1]) == stays);
  CHECK(state.occupancy().free_in(old) == 72);
  CHECK(state.occupancy().free_in(now) == 0);
  // No third rack is free now: moving with the old one held fails and
  // changes nothing; freeing it first lets the replica come back to it.
  const auto before = free_counts(t, state.occupancy());
  PlannerState blocked(state);
  Job filler = jobs("jobs:\n  - {name: f, gpus: 72, required: rack}\n").front();
  REQUIRE(blocked.place(filler).id != kNone);
  const auto held = free_counts(t, blocked.occupancy());
  PlannerState::PlaceResult no = blocked.move_replicas(r.id, {0}, false);
  CHECK(no.id == kNone);
  CHECK(no.placement.reason == "no room for 1 replica of 72 GPUs beside the others (in different racks)");
  CHECK(free_counts(t, blocked.occupancy()) == held);
  PlannerState::PlaceResult again = blocked.move_replicas(r.id, {0}, true);
  CHECK(again.id == r.id);
  CHECK(rack_of(blocked.placement(r.id).replicas[0]) == now);
  CHECK(free_counts(t, state.occupancy()) == before);
}

TEST_CASE("planner state: a failure takes some replicas, restore undoes release") {
  Topology t = preset("gb200-nvl72:racks=2");
  PlannerState state(t);
  const auto empty = free_counts(t, state.occupancy());
  Job svc = jobs("jobs:\n  - {name: svc, kind: inference, replicas: 3, gpus_per_replica: 4, spread: node}\n").front();
  PlannerState::PlaceResult r = state.place(svc);
  REQUIRE(r.id != kNone);
  const std::vector<DeviceId> last = state.placement(r.id).replicas[2];
  state.release_replicas(r.id, {1});
  CHECK(state.occupancy().free_in(t.root()) == 144 - 8);
  REQUIRE(state.placement(r.id).replicas.size() == 2);
  CHECK(state.placement(r.id).replicas[1] == last);  // the others keep their order
  CHECK(state.active(r.id));
  state.release(r.id);
  CHECK(free_counts(t, state.occupancy()) == empty);
  state.restore(r.id);
  CHECK(state.active(r.id));
  CHECK(state.occupancy().free_in(t.root()) == 144 - 8);
  state.release_replicas(r.id, {0, 1});  // all of them: the same as release
  CHECK_FALSE(state.active(r.id));
  CHECK(free_counts(t, state.occupancy()) == empty);
}
