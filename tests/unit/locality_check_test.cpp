// A TP or EP group that leaves the NVLink domain it would fit in is a problem
// of the plan, with what it costs per step.
#include "topoplan/placement/locality_check.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/io/topology_source.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/plan_io.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A plan of one hand-placed job, priced as `evaluate` prices it.
Plan priced(const Topology& t, const std::string& yaml, const JobPricer& pricer) {
  Plan p = parse_plan_yaml(yaml, "plan.yaml", t);
  price_plan(t, p, &pricer);
  return p;
}

}  // namespace

TEST_CASE("a tensor-parallel group across two racks is a problem priced against one rack") {
  Topology t = preset("gb200-nvl72:racks=2");
  JobPricer pricer(t);
  // Two TP groups of 8: the first takes a tray of each rack, the second two
  // trays of rack 0.
  Plan p = priced(t, R"(jobs:
  - name: straddle
    gpus: 16
    parallelism: {tp: 8, dp: 2}
    workload: {parameters: 70000000000}
    devices: "r0000-n00/gpu[0-3],r0001-n00/gpu[0-3],r0000-n01/gpu[0-3],r0000-n02/gpu[0-3]"
)",
                  pricer);
  const auto issues = locality_issues(t, p, 0, pricer.cost_model());
  REQUIRE(issues.size() == 1);
  const LocalityIssue& issue = issues[0];
  CHECK(issue.kind == StepKind::tp);
  CHECK(issue.groups == 2);
  CHECK(issue.spread_groups == 1);
  CHECK(issue.worst_group == 0);
  REQUIRE(issue.islands.size() == 2);
  CHECK(t.domain_name(issue.islands[0]) == "su000/r0000");
  CHECK(t.domain_name(issue.islands[1]) == "su000/r0001");

  // The cost, priced independently: the group's all-reduce of one
  // micro-batch's activations, 4 per layer (training), for every layer and
  // micro-batch of the step, on its ranks and on 8 GPUs of one rack.
  const Workload w = JobPricer::workload_of(p.jobs[0]);
  const CostModel model(t);
  const std::vector<DeviceId> group(p.placements[0].replicas[0].begin(), p.placements[0].replicas[0].begin() + 8);
  const std::vector<DeviceId> one_rack(t.accelerators().begin(), t.accelerators().begin() + 8);
  const auto bytes = static_cast<std::uint64_t>(std::ceil(w.activation_bytes));
  const double repeat = 4.0 * w.layers * w.micro_batches;
  const double across = model.collective({group, Collective::allreduce, bytes}).time_us * 1e-6 * repeat;
  const double inside = model.collective({one_rack, Collective::allreduce, bytes}).time_us * 1e-6 * repeat;
  CHECK(issue.seconds == Approx(across));
  CHECK(issue.inside_seconds == Approx(inside));
  CHECK(across > 2 * inside);  // four NICs each way instead of NVLS

  // The plan says so, with the numbers.
  const std::vector<std::string>& problems = p.placements[0].problems;
  REQUIRE(problems.size() == 1);
  CHECK(contains(problems[0], "tensor-parallel group 0 (8 ranks) spans 2 NVLink domains (su000/r0000, su000/r0001)"));
  CHECK(contains(problems[0], "inside one"));
  // The breakdown puts the TP time outside the rack for the most part.
  REQUIRE(p.placements[0].breakdown);
  const StepPart& tp = p.placements[0].breakdown->part(StepKind::tp);
  CHECK(tp.groups == 2);
  CHECK(tp.islands == 2);
  CHECK(tp.seconds == Approx(across));
  CHECK(tp.outside_seconds > 0.4 * tp.seconds);
}

TEST_CASE("groups inside one domain, or too large for any, are no problem") {
  Topology t = preset("gb200-nvl72:racks=2");
  JobPricer pricer(t);
  // TP 8 inside racks; DP across them is the point of data parallelism.
  Plan inside = priced(t, R"(jobs:
  - name: ok
    gpus: 16
    parallelism: {tp: 8, dp: 2}
    devices: "r0000-n00/gpu[0-3],r0000-n01/gpu[0-3],r0001-n00/gpu[0-3],r0001-n01/gpu[0-3]"
)",
                       pricer);
  CHECK(locality_issues(t, inside, 0, pricer.cost_model()).empty());
  CHECK(inside.placements[0].problems.empty());
  // TP 144 cannot sit in one 72-GPU rack: spanning two is no problem.
  Plan big = priced(t, R"(jobs:
  - name: wide
    gpus: 144
    parallelism: {tp: 144}
    devices: "r000[0-1]-n[00-17]/gpu[0-3]"
)",
                    pricer);
  CHECK(locality_issues(t, big, 0, pricer.cost_model()).empty());
  // Without a cost model there is nothing to price.
  CHECK(locality_issues(t, inside, 0, nullptr).empty());
}

TEST_CASE("an expert-parallel group across NVLink domains is reported as well") {
  Topology t = preset("gb200-nvl72:racks=2");
  JobPricer pricer(t);
  // dp 8 with ep 8: one EP group over the 8 replicas of TP 1; it takes 4
  // GPUs of each rack.
  Plan p = priced(t, R"(jobs:
  - name: moe
    gpus: 8
    parallelism: {dp: 8, ep: 8}
    workload: {parameters: 7000000000, expert_bytes: 58720256}
    devices: "r0000-n17/gpu[0-3],r0001-n00/gpu[0-3]"
)",
                  pricer);
  const auto issues = locality_issues(t, p, 0, pricer.cost_model());
  REQUIRE(issues.size() == 1);
  CHECK(issues[0].kind == StepKind::ep);
  CHECK(issues[0].seconds > issues[0].inside_seconds);
  REQUIRE(p.placements[0].problems.size() == 1);
  CHECK(contains(p.placements[0].problems[0], "expert-parallel group 0 (8 ranks) spans 2 NVLink domains"));
}
