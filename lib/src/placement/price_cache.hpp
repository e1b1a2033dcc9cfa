// Remembers what placements cost, per job shape and placement shape, so the
// planner prices a shape once instead of once per candidate and job.
//
// Two placements have the same shape when their ranks sit at the same
// positions inside nodes (local accelerator index) and spread over domains
// the same way at every level (each rank's domain numbered by first
// appearance), in domains of the same structure: same definition (origin),
// same accelerator and child counts, children of the same structures, all the
// way down. A job's price depends on its kind, parallelism and workload, and
// for a service (priced by its requests) on the service itself.
// Jobs on such equal shapes cost the same in the cost model, which reads
// nothing but the topology around the ranks; tests/unit/price_cache_test.cpp
// holds cached prices against fresh ones on every built-in topology.
//
// A domain whose devices or links a scenario changed (Topology::altered: a
// failed switch, NIC or link) is a structure of its own, so its placements
// never share a price with its intact twins (price_plan prices a scenario's
// plan through this cache). The planner still prices without the cache on
// such a fabric; per-GPU speeds are priced outside it (service latency).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "topoplan/placement/planner.hpp"
#include "topoplan/placement/policy.hpp"

namespace topoplan {

class PriceCache final : public PlacementPricer {
 public:
  /// `pricer` and `topology` must outlive the cache.
  PriceCache(const Topology& topology, const PlacementPricer& pricer);

  double step_seconds(const Job& job, std::span<const DeviceId> ranks) const override;
  /// `pricer`'s step_breakdown of `job` on `ranks`, once per shape as the
  /// price (a StepCost names no device, only counts, tiers and levels).
  /// `pricer` must be the same on every call.
  std::optional<StepCost> step_breakdown(const PlanPricer& pricer, const Job& job,
                                         std::span<const DeviceId> ranks) const;

  /// Placements of more ranks are priced every time.
  static constexpr std::size_t kLargest = 512;

  std::size_t hits() const { return hits_; }
  std::size_t misses() const { return misses_; }

 private:
  /// The placement's shape as words, viewed in `words_` (valid until the next call).
  std::string_view key(const Job& job, std::span<const DeviceId> ranks) const;

  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view k) const { return std::hash<std::string_view>{}(k); }
  };

  const Topology& t_;
  const PlacementPricer& pricer_;
  std::vector<std::uint32_t> structure_;  // per domain: its structure class
  mutable std::unordered_map<std::string, double, KeyHash, std::equal_to<>> prices_;
  mutable std::unordered_map<std::string, std::optional<StepCost>, KeyHash, std::equal_to<>> breakdowns_;
  mutable std::size_t hits_ = 0;
  mutable std::size_t misses_ = 0;
  mutable std::vector<std::vector<DomainId>> seen_;  // scratch: per level, domains by first appearance
  mutable std::vector<std::uint32_t> words_;          // scratch: the key being built
};

}  // namespace topoplan
