// The planner's price cache (lib/src/placement/price_cache.hpp) against
// fresh prices: on every built-in topology, placements built from the same
// local pattern in different domains share a key, and every cached price
// and breakdown, hit or miss, equals what the cost model says afresh.
#include <catch2/catch.hpp>

#include <random>

#include "../../lib/src/placement/price_cache.hpp"
#include "test_presets.hpp"
#include "topoplan/placement/job_pricer.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

// Every field of a cached breakdown as priced afresh.
void same_breakdown(const std::optional<StepCost>& cached, const std::optional<StepCost>& fresh) {
  REQUIRE(cached.has_value() == fresh.has_value());
  if (!fresh) return;
  CHECK(cached->seconds() == Approx(fresh->seconds()).epsilon(1e-12));
  for (std::size_t k = 0; k < kStepKinds; ++k) {
    const StepPart& c = cached->parts[k];
    const StepPart& f = fresh->parts[k];
    CHECK(c.seconds == Approx(f.seconds).epsilon(1e-12));
    CHECK(c.outside_seconds == Approx(f.outside_seconds).epsilon(1e-12).margin(1e-15));
    CHECK(c.groups == f.groups);
    CHECK(c.ranks == f.ranks);
    CHECK(c.islands == f.islands);
    CHECK(c.op == f.op);
    CHECK(c.algorithm == f.algorithm);
    CHECK(c.protocol == f.protocol);
    CHECK(c.latency_bound == f.latency_bound);
    CHECK(c.tier == f.tier);
    CHECK(c.level == f.level);
    CHECK(c.reachable == f.reachable);
  }
}

}  // namespace

TEST_CASE("price cache: cached prices equal fresh ones on every built-in topology") {
  for (const char* name : {"gb200-nvl72:racks=3", "gb300-nvl72:racks=2", "dgx-h100:nodes=12", "dgx-b200:nodes=6",
                           "h800:nodes=4", "pcie-8gpu:nodes=6", "mi300x:nodes=4", "groq:racks=2"}) {
    Topology t = preset(name);
    JobPricer fresh(t);
    PriceCache cache(t, fresh);
    std::mt19937 rng(3);
    const LevelIndex host = t.host_level();
    for (int round = 0; round < 120; ++round) {
      // A local pattern: k nodes of one parent, taking the same local GPUs.
      Job job;
      job.name.assign(1, 'j');  // not = "j": g++ 12 -O2 with ASan warns falsely (-Wrestrict) on that
      job.workload.parameters = rng() % 2 ? 8e9 : 70e9;
      const LevelIndex level = 1 + static_cast<LevelIndex>(rng() % host);  // where the pattern is repeated
      auto [first, last] = t.domains_at(level);
      const DomainId a = first + static_cast<DomainId>(rng() % (last - first));
      const DomainId b = first + static_cast<DomainId>(rng() % (last - first));
      const std::uint32_t take = 1 + static_cast<std::uint32_t>(rng() % 8);
      const std::uint32_t offset = static_cast<std::uint32_t>(rng() % 4);
      auto pattern = [&](DomainId d) {
        std::vector<DeviceId> ranks;
        const Domain& dom = t.domain(d);
        for (std::uint32_t i = 0; i < take && dom.accel_begin + offset + i * 2 < dom.accel_end; ++i)
          ranks.push_back(t.accelerators()[dom.accel_begin + offset + i * 2]);
        return ranks;
      };
      std::vector<DeviceId> ra = pattern(a);
      std::vector<DeviceId> rb = pattern(b);
      if (ra.empty()) continue;
      job.parallelism.tp = ra.size() % 2 == 0 ? 2 : 1;
      job.parallelism.dp = static_cast<std::uint32_t>(ra.size()) / job.parallelism.tp;
      INFO(name << " round " << round);
      const double pa = cache.step_seconds(job, ra);
      CHECK(pa == Approx(fresh.step_seconds(job, ra)).epsilon(1e-12));
      same_breakdown(cache.step_breakdown(fresh, job, ra), fresh.step_breakdown(job, ra));
      if (rb.size() == ra.size()) {
        const double pb = cache.step_seconds(job, rb);
        CHECK(pb == Approx(fresh.step_seconds(job, rb)).epsilon(1e-12));
        same_breakdown(cache.step_breakdown(fresh, job, rb), fresh.step_breakdown(job, rb));
      }
    }
    CHECK(cache.hits() > 0);
  }
}

TEST_CASE("price cache: different jobs or spreads do not share a price") {
  Topology t = preset("gb200-nvl72:racks=2");
  JobPricer fresh(t);
  PriceCache cache(t, fresh);
  Job job;
  job.parallelism.dp = 8;
  std::vector<DeviceId> one_rack, two_racks;
  for (std::uint32_t i = 0; i < 8; ++i) one_rack.push_back(t.accelerators()[i]);
  for (std::uint32_t i = 0; i < 4; ++i) two_racks.push_back(t.accelerators()[i]);
  for (std::uint32_t i = 72; i < 76; ++i) two_racks.push_back(t.accelerators()[i]);
  const double local = cache.step_seconds(job, one_rack);
  const double spread = cache.step_seconds(job, two_racks);
  CHECK(spread > local);
  CHECK(cache.misses() == 2);
  Job bigger = job;
  bigger.workload.parameters = 70e9;
  CHECK(cache.step_seconds(bigger, one_rack) > local);
  CHECK(cache.misses() == 3);
}
