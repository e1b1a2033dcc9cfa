// The straggler model and speed-aware placement: a synchronous job runs at
// its slowest member's pace, so the planner keeps slow devices out of fast
// groups, never uses down devices, and weighs speed against communication.
#include "topoplan/placement/straggler_model.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>

#include "test_presets.hpp"
#include "topoplan/io/device_perf.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/jobs_yaml.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

std::string host(const Topology& t, std::uint32_t k) {
  return std::string(t.hostname(t.domains_at(t.host_level()).first + k));
}

Topology with_perf(const Topology& t, const std::string& csv) {
  return with_device_overrides(t, read_device_perf(csv, "perf.csv", t));
}

Plan plan(const Topology& t, const std::string& yaml, const std::string& policy = "topo",
          const PlanPricer* pricer = nullptr) {
  PlanOptions o;
  o.policy = policy;
  o.pricer = pricer;
  return plan_jobs(t, parse_jobs_yaml(yaml, "jobs.yaml"), o);
}

}  // namespace

TEST_CASE("straggler model: compute at the slowest member's speed plus communication") {
  CHECK(estimated_step(1.0, 0.5, 0.8) == Approx(1.0 / 0.8 + 0.5));
  CHECK(straggler_loss(1.0, 0.5, 0.8) == Approx((1.25 + 0.5) / 1.5 - 1));
  CHECK(straggler_loss(0, 0.5, 0.8) == Approx(0.25));  // compute-bound: 1 / 0.8 - 1
  CHECK(straggler_loss(1.0, 0.5, 1.0) == Approx(0));
  CHECK(straggler_loss(0, 0, 1.25) == Approx(-0.2));   // faster than nominal
}

TEST_CASE("speed-aware placement: one slow GPU stays out of a job that an equally fast node can hold") {
  Topology base = preset("dgx-h100:nodes=4");
  // The first node has one slow GPU (0.8); the policy alone would pick it.
  Topology t = with_perf(base, "device,speed\n" + host(base, 0) + "/gpu3,0.8\n");
  REQUIRE(has_speed_variation(t));
  const std::string job = "jobs: [{name: a, gpus: 8}]";
  Plan blind = plan(base, job);
  REQUIRE(blind.placements[0].placed);
  CHECK(t.hostname(t.device(blind.placements[0].replicas[0][0]).domain) == host(t, 0));  // the premise
  Plan aware = plan(t, job);
  REQUIRE(aware.placements[0].placed);
  JobSpeed s = job_speed(t, aware.jobs[0], aware.placements[0]);
  CHECK(s.slowest_speed == Approx(1.0));
  CHECK(s.straggler_loss == Approx(0));
  // The peers ignore speed: slurm's first fit keeps the slow GPU.
  Plan slurm = plan(t, job, "slurm");
  CHECK(job_speed(t, slurm.jobs[0], slurm.placements[0]).slowest_speed == Approx(0.8));
  // Inference replicas are not synchronous: speed-blind.
  Plan svc = plan(t, "jobs: [{name: s, kind: inference, replicas: 1, gpus_per_replica: 8}]");
  CHECK(t.hostname(t.device(svc.placements[0].replicas[0][0]).domain) == host(t, 0));
}

TEST_CASE("speed-aware placement: down devices are never used, drained ones avoided") {
  Topology base = preset("dgx-h100:nodes=2");
  Topology t = with_perf(base, "device,speed,state\n" + host(base, 0) + "/gpu0,,down\n" + host(base, 1) +
                                   "/gpu0,,drain\n" + host(base, 1) + "/gpu1,0.7,\n");
  Plan p = plan(t, "jobs: [{name: a, gpus: 14}]");
  REQUIRE(p.placements[0].placed);
  for (DeviceId d : p.placements[0].replicas[0]) CHECK(t.device(d).state == DeviceState::up);
  Plan too_big = plan(t, "jobs: [{name: a, gpus: 15}]");
  CHECK_FALSE(too_big.placements[0].placed);
}

TEST_CASE("speed-aware placement: speed is weighed against communication in one step time") {
  // Every GPU of the first node is a little slow (0.97); the other two nodes
  // are nominal but have one GPU down each, so 8 fast GPUs span two nodes.
  // A compute-heavy job crosses nodes to run at full speed; one that mostly
  // communicates stays on the slower node's NVLink.
  Topology base = preset("dgx-h100:nodes=3");
  Topology t = with_perf(base, "device,speed,state\n" + host(base, 0) + "/gpu*,0.97,\n" + host(base, 1) +
                                   "/gpu7,,down\n" + host(base, 2) + "/gpu7,,down\n");
  JobPricer pricer(t);
  auto nodes = [&](const JobPlacement& p) {
    std::set<DomainId> n;
    for (DeviceId d : p.replicas[0]) n.insert(t.device(d).domain);
    return n.size();
  };
  Plan compute = plan(t, "jobs: [{name: a, gpus: 8, workload: {parameters: 1B, compute_seconds: 100}}]", "topo",
                      &pricer);
  REQUIRE(compute.placements[0].placed);
  CHECK(job_speed(t, compute.jobs[0], compute.placements[0]).slowest_speed == Approx(1.0));
  CHECK(nodes(compute.placements[0]) == 2);
  Plan comm = plan(t, "jobs: [{name: a, gpus: 8, workload: {parameters: 70B, compute_seconds: 0.001}}]", "topo",
                   &pricer);
  REQUIRE(comm.placements[0].placed);
  CHECK(job_speed(t, comm.jobs[0], comm.placements[0]).slowest_speed == Approx(0.97));
  CHECK(nodes(comm.placements[0]) == 1);
  // Without a compute time the job is compute-bound: speed first.
  Plan bound = plan(t, "jobs: [{name: a, gpus: 8, workload: {parameters: 70B}}]", "topo", &pricer);
  CHECK(job_speed(t, bound.jobs[0], bound.placements[0]).slowest_speed == Approx(1.0));
}

TEST_CASE("speed-aware placement: the PAL-derived sample is never slower than speed-blind") {
  auto slurp = [](const std::string& path) {
    std::ifstream in(std::string(TOPOPLAN_SOURCE_DIR) + "/" + path);
    REQUIRE(in);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  Topology base = preset("dgx-h100:nodes=49");
  Topology t = with_device_overrides(
      base, read_device_perf(slurp("samples/variability/perf-longhorn-sgemm.csv"), "perf.csv", base));
  REQUIRE(has_speed_variation(t));
  JobPricer pricer(t);
  const std::string jobs = slurp("samples/variability/jobs-sync.yaml");
  Plan aware = plan(t, jobs, "topo", &pricer);
  Plan blind = plan(base, jobs, "topo", &pricer);  // the same planner without speeds
  // The job placed first (pretrain-128, priority 10) sees the same idle
  // cluster both times: its estimated step can only improve.
  auto step = [&](const Plan& p) {
    const JobPlacement& jp = p.placements[0];
    REQUIRE(jp.placed);
    const double comm = pricer.step_seconds(p.jobs[0], jp.replicas[0]);
    return estimated_step(p.jobs[0].workload.compute_seconds, comm, slowest_speed(t, jp.replicas[0]));
  };
  CHECK(step(aware) <= step(blind) * (1 + 1e-9));
  CHECK(slowest_speed(t, aware.placements[0].replicas[0]) > slowest_speed(t, blind.placements[0].replicas[0]));
  for (const JobPlacement& p : aware.placements) CHECK(p.placed);
}
