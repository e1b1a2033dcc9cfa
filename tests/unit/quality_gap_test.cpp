// The topo policy against the exact optimum of its own objective (issue 17):
// on tiny instances of every preset family, the plan's summed shared step
// seconds are within 1.05x of the best whole-node placement, found by branch
// and bound and priced by the same pricer (tests/support/exact_placement.hpp).
#include <catch2/catch.hpp>

#include "../support/exact_placement.hpp"
#include "../support/quality_instances.hpp"
#include "test_presets.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/jobs_yaml.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

double topo_total(const Topology& t, const std::vector<Job>& jobs, const PlanPricer& pricer,
                  const std::string& policy = "topo") {
  PlanOptions o;
  o.policy = policy;
  o.pricer = &pricer;
  Plan plan = plan_jobs(t, jobs, o);
  REQUIRE(plan.summary.unplaced == 0);
  return plan.summary.step_seconds_total;
}

}  // namespace

TEST_CASE("exact placement: the bound prunes nothing the exhaustive search would keep") {
  Topology t = preset("gb200-nvl72:racks=2");
  std::vector<Job> jobs = parse_jobs_yaml(R"(jobs:
  - {name: a, nodes: 20, parallelism: {tp: 4, pp: 4, dp: 5}, workload: {parameters: 70B, activation_bytes: 64MiB}}
  - {name: b, nodes: 6, workload: {parameters: 8B}}
  - {name: c, nodes: 4, workload: {parameters: 8B}}
)",
                                          "jobs.yaml");
  JobPricer pricer(t);
  test::ExactPlacement pruned(t, jobs, *t.find_level("rack"), pricer);
  test::ExactPlacement full(t, jobs, *t.find_level("rack"), pricer);
  full.prune = false;
  test::ExactResult a = pruned.solve();
  test::ExactResult b = full.solve();
  REQUIRE(a.found);
  REQUIRE(b.found);
  CHECK(a.total == Approx(b.total).epsilon(1e-12));
  CHECK(a.leaves < b.leaves);
  CHECK(b.violations == 0);
  // Its devices price to its total, and reversing the nodes inside each rack
  // changes nothing: nodes of a rack are interchangeable, as it assumes.
  CHECK(pruned.price(a.ranks) == Approx(a.total).epsilon(1e-12));
  CHECK(pruned.symmetry_gap(a) < 1e-9);
}

TEST_CASE("exact placement: one job alone takes the cheapest split, checked split by split") {
  Topology t = preset("gb200-nvl72:racks=2");
  // The issue's cases: a 20-node 405B pipeline job and a 22-node 70B job,
  // each alone on two empty racks.
  for (const char* manifest :
       {"jobs: [{name: big, nodes: 20, parallelism: {tp: 4, pp: 4, dp: 5}, workload: {parameters: 405B, "
        "activation_bytes: 256MiB}}]",
        "jobs: [{name: big, nodes: 22, workload: {parameters: 70B}}]"}) {
    std::vector<Job> jobs = parse_jobs_yaml(manifest, "jobs.yaml");
    JobPricer pricer(t);
    test::ExactPlacement exact(t, jobs, *t.find_level("rack"), pricer);
    test::ExactResult best = exact.solve();
    // Every split k + (n - k), priced directly.
    const std::uint32_t n = jobs[0].nodes;
    double cheapest = 1e300;
    for (std::uint32_t k = n - 18; k <= 18; ++k)
      cheapest = std::min(cheapest, exact.price(exact.devices({{k, n - k}})));
    CHECK(best.total == Approx(cheapest).epsilon(1e-12));
    // And topo finds it (or one within 5 %).
    CHECK(topo_total(t, jobs, pricer) <= 1.05 * best.total);
  }
}

TEST_CASE("quality gap: topo is within 1.05x of the exact optimum on every preset family") {
  for (const test::QualityInstance& in : test::quality_instances()) {
    INFO(in.name);
    Topology t = preset(in.topology);
    std::vector<Job> jobs = parse_jobs_yaml(in.jobs, in.name);
    JobPricer pricer(t);
    test::ExactPlacement exact(t, jobs, *t.find_level(in.level), pricer);
    test::ExactResult best = exact.solve();
    REQUIRE(best.found);
    CHECK(best.violations == 0);
    CHECK(exact.symmetry_gap(best) < 1e-9);
    const double topo = topo_total(t, jobs, pricer);
    INFO("topo " << topo << " s, optimum " << best.total << " s");
    CHECK(topo <= 1.05 * best.total);
    // The optimum is a lower bound of every whole-node plan: topo's is one.
    CHECK(topo >= best.total * (1 - 1e-9));
  }
}
