// The straggler model and speed-aware placement: a synchronous job runs at
// its slowest member's pace, so the planner keeps slow devices out of fast
// groups, never uses down devices, and weighs speed against communication.
#include "topoplan/placement/straggler_model.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "source_dir.hpp"
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
  Topology base = preset("dgx-h100:nodes=49");
  Topology t = with_device_overrides(
      base,
      read_device_perf(topoplan::test::source_file("samples/variability/perf-longhorn-sgemm.csv"), "perf.csv", base));
  REQUIRE(has_speed_variation(t));
  JobPricer pricer(t);
  const std::string jobs = topoplan::test::source_file("samples/variability/jobs-sync.yaml");
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

namespace {

Topology with_classes(const Topology& t, const std::string& csv, const std::string& default_class = "") {
  DevicePerf perf = read_device_perf_classes(csv, "perf.csv", t, default_class);
  return with_speed_classes(with_device_overrides(t, perf.overrides), std::move(perf.speed_classes));
}

}  // namespace

TEST_CASE("per-job performance class: jobs of different classes see different speeds and are placed by them") {
  Topology base = preset("dgx-h100:nodes=2");
  // The first node is slow for class a, the second for class b.
  Topology t = with_classes(base, "device,speed,class\n" + host(base, 0) + "/gpu3,0.8,a\n" + host(base, 1) +
                                      "/gpu5,0.8,b\n");
  REQUIRE(has_speed_variation(t));
  const std::vector<DeviceId> n0(t.accelerators().begin(), t.accelerators().begin() + 8);
  const std::vector<DeviceId> n1(t.accelerators().begin() + 8, t.accelerators().end());
  Job a, b, none;
  a.perf_class = "a";
  b.perf_class = "b";
  CHECK(slowest_speed(t, n0, speed_class_of(t, a)) == Approx(0.8));
  CHECK(slowest_speed(t, n1, speed_class_of(t, a)) == Approx(1.0));
  CHECK(slowest_speed(t, n0, speed_class_of(t, b)) == Approx(1.0));
  CHECK(slowest_speed(t, n1, speed_class_of(t, b)) == Approx(0.8));
  CHECK(slowest_speed(t, n0, speed_class_of(t, none)) == Approx(1.0));  // no default: class-less rows, none here

  // Each job lands on the node that is fast for its class, whichever goes first.
  for (const std::string& order : {std::string("ab"), std::string("ba")}) {
    std::string jobs = "jobs:\n";
    for (std::size_t i = 0; i < order.size(); ++i)
      jobs += fmt::format("  - {{name: {0}, gpus: 8, perf_class: {0}, priority: {1}}}\n", order[i], 2 - i);
    Plan p = plan(t, jobs);
    REQUIRE(p.placements.size() == 2);
    for (std::size_t j = 0; j < 2; ++j) {
      REQUIRE(p.placements[j].placed);
      const std::string& name = p.jobs[j].name;
      CHECK(t.hostname(t.device(p.placements[j].replicas[0][0]).domain) == host(t, name == "a" ? 1 : 0));
      const JobSpeed s = job_speed(t, p.jobs[j], p.placements[j]);
      CHECK(s.slowest_speed == Approx(1.0));
      CHECK(s.straggler_loss == Approx(0));
    }
  }
  // The same jobs without classes see nominal devices and keep the policy's order: a gets the first node.
  Plan blind = plan(t, "jobs: [{name: a, gpus: 8}, {name: b, gpus: 8}]");
  CHECK(t.hostname(t.device(blind.placements[0].replicas[0][0]).domain) == host(t, 0));
  // ... where class a would be slow: the report prices a job by its class.
  Job on_n0 = blind.jobs[0];
  on_n0.perf_class = "a";
  CHECK(job_speed(t, on_n0, blind.placements[0]).slowest_speed == Approx(0.8));
  CHECK(job_speed(t, on_n0, blind.placements[0]).straggler_loss == Approx(0.25));
}

TEST_CASE("whole-node jobs are speed-aware too: a node with one slow device is not taken when a fast one is free") {
  Topology base = preset("dgx-h100:nodes=3");
  // Every node has a device below nominal, so no device threshold leaves a
  // whole node: only the node with the slowest device must be avoided.
  Topology t = with_perf(base, "device,speed\n" + host(base, 0) + "/gpu3,0.7\n" + host(base, 1) + "/gpu2,0.95\n" +
                                   host(base, 2) + "/gpu6,0.96\n");
  Plan p = plan(t, "jobs: [{name: a, nodes: 1}, {name: b, nodes: 1}]");
  REQUIRE((p.placements[0].placed && p.placements[1].placed));
  for (std::size_t j = 0; j < 2; ++j) {
    CHECK(t.hostname(t.device(p.placements[j].replicas[0][0]).domain) != host(t, 0));
    CHECK(job_speed(t, p.jobs[j], p.placements[j]).slowest_speed >= 0.95 - 1e-6);
  }
}

TEST_CASE("per-job performance class: --perf-class is the default, jobs naming another class keep theirs") {
  Topology base = preset("dgx-h100:nodes=2");
  Topology t = with_classes(base, "device,speed,class\n" + host(base, 0) + "/gpu3,0.8,a\n" + host(base, 1) +
                                      "/gpu5,0.8,b\n", "a");
  // The classless job takes class a's view: the second node; the class-b job the first.
  Plan p = plan(t, "jobs: [{name: x, gpus: 8, priority: 2}, {name: y, gpus: 8, perf_class: b, priority: 1}]");
  REQUIRE(p.placements[0].placed);
  REQUIRE(p.placements[1].placed);
  CHECK(t.hostname(t.device(p.placements[0].replicas[0][0]).domain) == host(t, 1));
  CHECK(t.hostname(t.device(p.placements[1].replicas[0][0]).domain) == host(t, 0));
}

TEST_CASE("per-job performance class: unknown classes and jobs without one under an ambiguous file are errors") {
  Topology base = preset("dgx-h100:nodes=1");
  Topology t = with_classes(base, "device,speed,class\n" + host(base, 0) + "/gpu3,0.8,bert\n" + host(base, 0) +
                                      "/gpu5,0.8,resnet\n");
  std::vector<Job> jobs = parse_jobs_yaml("jobs: [{name: x, gpus: 8, perf_class: bret}, {name: y, gpus: 8}]",
                                          "jobs.yaml");
  auto errors = [&](const std::optional<SourceLocation>& no_default) {
    std::vector<std::string> out;
    try {
      check_perf_classes(t, jobs, "perf.csv", no_default);
    } catch (const InputError& e) {
      for (const Diagnostic& d : e.diagnostics()) out.push_back(d.where.str() + ": " + d.message);
    }
    return out;
  };
  CHECK(errors(std::nullopt) ==
        std::vector<std::string>{"jobs.yaml:1:39: perf_class 'bret': perf.csv has no rows of that class (classes: "
                                 "bert, resnet); did you mean 'bert'?"});
  CHECK(errors(SourceLocation{"perf.csv", 1, 14}).size() == 2);
  CHECK(errors(SourceLocation{"perf.csv", 1, 14})[1] ==
        "perf.csv:1:14: rows for 2 workload classes (bert, resnet) and 1 job naming none (y); give it 'perf_class' "
        "or choose a default with --perf-class");
  jobs[0].perf_class = "bert";
  CHECK(errors(std::nullopt).empty());
}

TEST_CASE("per-job performance class: PAL's bert and resnet speeds of the same GPUs place two jobs apart") {
  Topology base = preset("dgx-h100:nodes=15");
  Topology t = with_classes(base, topoplan::test::source_file("samples/variability/perf-longhorn-bert-resnet.csv"));
  REQUIRE(t.speed_classes().size() == 2);
  // A compute-bound job of 8 sees its class's 8th fastest GPU at best.
  std::vector<std::vector<DeviceId>> placed;
  for (const SpeedClass& c : t.speed_classes()) {
    std::vector<float> sorted = c.speed;
    std::sort(sorted.begin(), sorted.end(), std::greater<>());
    Plan p = plan(t, fmt::format("jobs: [{{name: j, gpus: 8, perf_class: {}}}]", c.name));
    REQUIRE(p.placements[0].placed);
    CHECK(job_speed(t, p.jobs[0], p.placements[0]).slowest_speed == Approx(sorted[7]));
    placed.push_back(p.placements[0].replicas[0]);
  }
  CHECK(placed[0] != placed[1]);  // the classes rank the same GPUs differently
}
