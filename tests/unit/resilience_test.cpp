// Failures survived per level, by hand on the tiny cluster, and the exact
// worst case against trying every set of failed domains.
#include "topoplan/whatif/resilience.hpp"

#include <random>

#include <catch2/catch.hpp>

#include "whatif_fixtures.hpp"

using namespace topoplan;

TEST_CASE("resilience: a service over three racks that needs two, a training job over two") {
  Topology t = test::tiny_cluster();
  Plan plan = test::hand_plan(t, R"(jobs:
  - {name: svc, kind: inference, replicas: 3, gpus_per_replica: 2, min_replicas: 2, spread: rack,
     replica_devices: ["r0-n0", "r1-n0", "r2-n0"]}
  - {name: train, gpus: 4, devices: "r0-n1,r1-n1"}
)");
  std::vector<JobResilience> r = resilience(t, plan);
  REQUIRE(r.size() == 2);
  const JobResilience& svc = r[0];
  CHECK(svc.replicas == 3);
  CHECK(svc.replicas_needed == 2);
  REQUIRE(svc.levels.size() == 3);  // su, rack, node
  // su0 holds two replicas: one SU failure breaks it.
  CHECK(svc.levels[0].survives == 0);
  CHECK(svc.levels[0].domains == 2);
  CHECK(svc.levels[0].replicas_after_one == 1);
  CHECK(svc.levels[0].accelerators_after_one == 2);
  // One replica per rack and per node: one failure is survived, two are not.
  CHECK(svc.levels[1].survives == 1);
  CHECK(svc.levels[1].replicas_after_one == 2);
  CHECK(svc.levels[2].survives == 1);
  const JobResilience& train = r[1];
  for (const LevelResilience& l : train.levels) {
    CHECK(l.survives == 0);
    CHECK(l.replicas_after_one == 0);
  }
  CHECK(train.levels[1].domains == 2);
}

TEST_CASE("fewest failures: replicas spanning domains, against every set of domains") {
  std::mt19937_64 random(7);
  for (int round = 0; round < 300; ++round) {
    const auto replicas = static_cast<std::uint32_t>(1 + random() % 6);
    const auto domains = static_cast<std::size_t>(1 + random() % 7);
    std::vector<std::vector<std::uint32_t>> hits(domains);
    // Every replica sits in one to three domains.
    for (std::uint32_t r = 0; r < replicas; ++r) {
      const std::size_t spans = 1 + random() % 3;
      for (std::size_t k = 0; k < spans; ++k) {
        auto& h = hits[random() % domains];
        if (std::find(h.begin(), h.end(), r) == h.end()) h.push_back(r);
      }
    }
    hits.erase(std::remove_if(hits.begin(), hits.end(), [](const auto& h) { return h.empty(); }), hits.end());
    const auto stop = static_cast<std::uint32_t>(1 + random() % replicas);
    std::uint32_t want = static_cast<std::uint32_t>(hits.size() + 1);
    for (std::uint32_t set = 0; set < (1u << hits.size()); ++set) {
      std::vector<std::uint8_t> stopped(replicas, 0);
      std::uint32_t size = 0;
      for (std::size_t i = 0; i < hits.size(); ++i)
        if (set & (1u << i)) {
          ++size;
          for (std::uint32_t r : hits[i]) stopped[r] = 1;
        }
      if (static_cast<std::uint32_t>(std::count(stopped.begin(), stopped.end(), 1)) >= stop) want = std::min(want, size);
    }
    INFO("round " << round);
    CHECK(fewest_failures(hits, replicas, stop) == want);
  }
}
