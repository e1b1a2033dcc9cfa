// The failure Monte Carlo: its mean against the closed form for independent
// failures (rates added by hand from the wiring), the chance of going a
// whole trial without a failure against exp(-rate x days), and determinism.
#include "topoplan/whatif/monte_carlo.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "whatif_fixtures.hpp"

using namespace topoplan;

namespace {

const char* kRates = R"(source: test
rates:
  - {component: gpu, per_day: 0.01}
  - {component: node, per_day: 0.005}
  - {component: link, type: "ib-*", per_day: 0.002}
  - {component: rack, per_day: 0.001}
)";

const char* kPlan = R"(jobs:
  - {name: one, gpus: 1, devices: "r0-n0/gpu0"}
  - {name: wide, gpus: 2, devices: "r0-n1/gpu0,r1-n0/gpu0"}
  - {name: svc, kind: inference, replicas: 2, gpus_per_replica: 1, min_replicas: 1, spread: rack,
     replica_devices: ["r2-n0/gpu0", "r3-n0/gpu0"]}
)";

MonteCarloResult run(const Topology& t, const std::string& rates, std::uint64_t seed, std::uint32_t trials) {
  Plan plan = test::hand_plan(t, kPlan);
  FailureRates r = parse_failure_rates(rates, "rates.yaml", t);
  return monte_carlo(t, plan, component_rates(t, r), {seed, 30, trials});
}

}  // namespace

TEST_CASE("Monte Carlo: the closed form counted by hand, and the mean against it") {
  Topology t = test::tiny_cluster();
  MonteCarloResult r = run(t, kRates, 1, 4000);
  REQUIRE(r.jobs.size() == 3);
  // one: its GPU, its node, its rack; it talks to nobody.
  CHECK(r.jobs[0].expected_per_day == Approx(0.01 + 0.005 + 0.001));
  // wide: 2 GPUs, 2 nodes, 2 racks, and the NIC-to-leaf link of each GPU (one
  // SU: no spine links).
  CHECK(r.jobs[1].expected_per_day == Approx(2 * 0.01 + 2 * 0.005 + 2 * 0.001 + 2 * 0.002));
  // svc: both replicas, each alone in its node and rack.
  CHECK(r.jobs[2].expected_per_day == Approx(2 * (0.01 + 0.005 + 0.001)));
  // All components: 16 GPUs, 8 nodes, 4 racks, 16 NIC links + 4 leaves x 2 spines.
  CHECK(r.failures_per_day == Approx(16 * 0.01 + 8 * 0.005 + 4 * 0.001 + 24 * 0.002));
  for (const JobReliability& j : r.jobs) {
    INFO("job " << j.job);
    CHECK(j.interruptions_stderr > 0);
    CHECK(std::abs(j.interruptions_per_day - j.expected_per_day) < 4 * j.interruptions_stderr);
  }
  // A training job keeps its guarantee only without a single failure.
  const double p_one = std::exp(-r.jobs[0].expected_per_day * 30);
  CHECK(std::abs(r.jobs[0].guarantee_probability - p_one) < 4 * std::sqrt(p_one * (1 - p_one) / 4000));
  // Repairs are instant: the service never runs below one replica.
  CHECK(r.jobs[2].guarantee_probability == 1.0);
  // Every accelerator failure (GPU, node, rack) takes out that many GPUs.
  CHECK(r.accelerators_failed_per_day == Approx(16 * 0.01 + 8 * 0.005 * 2 + 4 * 0.001 * 4).epsilon(0.1));
  CHECK(r.accelerator_hours_down_per_day == 0);
}

TEST_CASE("Monte Carlo: repairs keep replicas down, and both can be down at once") {
  Topology t = test::tiny_cluster();
  const std::string slow = "rates:\n  - {component: gpu, per_day: 0.05, repair_hours: 240}\n";
  MonteCarloResult r = run(t, slow, 3, 4000);
  // A replica is down 1 - exp(-0.05 x 10) = 39 % of the time once a trial
  // is 10 days old; a failure of one while the other is down breaks the
  // guarantee, at about 2 x 0.05 x 39 % a day: exp(-1.0) = 37 % of trials
  // get through (a Poisson approximation; the band allows for it).
  CHECK(r.jobs[2].guarantee_probability > 0.25);
  CHECK(r.jobs[2].guarantee_probability < 0.5);
  // 16 GPUs x 0.05 a day, each down 240 hours or until the trial ends:
  // 10 days on average over the first 20 days, 5 over the last 10, so 200 h.
  CHECK(r.accelerator_hours_down_per_day == Approx(16 * 0.05 * 200).epsilon(0.05));
}

TEST_CASE("Monte Carlo: the same seed gives the same numbers, another seed others") {
  Topology t = test::tiny_cluster();
  MonteCarloResult a = run(t, kRates, 42, 500), b = run(t, kRates, 42, 500), c = run(t, kRates, 43, 500);
  for (std::size_t j = 0; j < a.jobs.size(); ++j) {
    CHECK(a.jobs[j].interruptions_per_day == b.jobs[j].interruptions_per_day);
    CHECK(a.jobs[j].guarantee_probability == b.jobs[j].guarantee_probability);
  }
  bool differs = false;
  for (std::size_t j = 0; j < a.jobs.size(); ++j) differs = differs || a.jobs[j].interruptions_per_day != c.jobs[j].interruptions_per_day;
  CHECK(differs);
  CHECK(uniform01(0) == 0.0);
  CHECK(uniform01(~std::uint64_t{0}) < 1.0);
}
