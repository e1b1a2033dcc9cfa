#include "price_cache.hpp"

#include <cstring>
#include <map>

namespace topoplan {

PriceCache::PriceCache(const Topology& topology, const PlacementPricer& pricer)
    : t_(topology), pricer_(pricer), structure_(topology.domain_count(), 0) {
  // Structure classes bottom-up: a domain's definition, sizes and its
  // children's classes in order.
  std::map<std::vector<std::uint32_t>, std::uint32_t> classes;
  for (DomainId d = static_cast<DomainId>(topology.domain_count()); d-- > 0;) {
    const Domain& dom = topology.domain(d);
    // A domain a scenario altered (a failed switch or link) is a class of
    // its own: its twins' prices are not its own.
    std::vector<std::uint32_t> id = {dom.origin, dom.level, dom.accelerator_count(), dom.child_count,
                                     topology.altered(d) ? d + 1 : 0};
    for (std::uint32_t c = 0; c < dom.child_count; ++c) id.push_back(structure_[dom.first_child + c]);
    structure_[d] = classes.try_emplace(std::move(id), static_cast<std::uint32_t>(classes.size())).first->second;
  }
}

std::string_view PriceCache::key(const Job& job, std::span<const DeviceId> ranks) const {
  std::vector<std::uint32_t>& k = words_;
  k.clear();
  k.push_back(static_cast<std::uint32_t>(job.kind));
  for (std::uint32_t v : {job.parallelism.tp, job.parallelism.pp, job.parallelism.dp, job.parallelism.ep}) k.push_back(v);
  const JobWorkload& w = job.workload;
  for (double v : {w.parameters, w.bytes_per_parameter, w.gradient_bytes, w.activation_bytes, w.expert_bytes,
                   w.expert_combine_bytes}) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    k.push_back(static_cast<std::uint32_t>(bits));
    k.push_back(static_cast<std::uint32_t>(bits >> 32));
  }
  for (std::uint32_t v : {w.layers, w.micro_batches, w.moe_layers, static_cast<std::uint32_t>(w.sharded),
                          static_cast<std::uint32_t>(w.ep_kernel), static_cast<std::uint32_t>(w.ep_message_bytes),
                          static_cast<std::uint32_t>(w.ep_message_bytes >> 32)})
    k.push_back(v);
  // A service may be priced by its requests (JobPricer): its own price.
  const auto service = reinterpret_cast<std::uintptr_t>(job.service.get());
  k.push_back(static_cast<std::uint32_t>(service));
  k.push_back(static_cast<std::uint32_t>(static_cast<std::uint64_t>(service) >> 32));
  k.push_back(static_cast<std::uint32_t>(ranks.size()));
  // Per rank: where it sits inside its node, then per level (finest first)
  // its domain numbered by first appearance; a domain's first appearance
  // also gives its structure.
  const LevelIndex host = t_.host_level();
  if (seen_.size() < host + 1) seen_.resize(host + 1);
  for (auto& level : seen_) level.clear();
  // Ranks that follow each other in one domain at consecutive accelerators
  // (a node's GPUs in order, the common case) are one run: its first
  // rank's words and the run's length. The ranks after the first add
  // nothing a reader could not rebuild (the same domains, each the latest
  // seen), so equal keys still mean equal rank layouts, in a quarter to an
  // eighth of the words.
  for (std::size_t i = 0; i < ranks.size();) {
    DomainId d = t_.device(ranks[i]).domain;
    const std::uint32_t a = t_.accelerator_index(ranks[i]);
    std::size_t run = 1;
    if (a != kNone)
      while (i + run < ranks.size() && t_.device(ranks[i + run]).domain == d &&
             t_.accelerator_index(ranks[i + run]) == a + run)
        ++run;
    i += run;
    k.push_back(a == kNone ? kNone : a - t_.domain(d).accel_begin);
    k.push_back(static_cast<std::uint32_t>(run));
    for (LevelIndex l = t_.domain(d).level; l >= 1; --l, d = t_.domain(d).parent) {
      std::vector<DomainId>& seen = seen_[l];
      // Ranks of a domain mostly come in one run: try the latest first.
      std::uint32_t index = 0;
      if (!seen.empty() && seen.back() == d) {
        index = static_cast<std::uint32_t>(seen.size() - 1);
      } else {
        while (index < seen.size() && seen[index] != d) ++index;
        if (index == seen.size()) {
          seen.push_back(d);
          k.push_back(kNone - 1);
          k.push_back(structure_[d]);
        }
      }
      k.push_back(index);
    }
  }
  return {reinterpret_cast<const char*>(k.data()), k.size() * sizeof(std::uint32_t)};
}

double PriceCache::step_seconds(const Job& job, std::span<const DeviceId> ranks) const {
  // Large placements rarely repeat and their keys are long: price them.
  if (ranks.size() > kLargest) return pricer_.step_seconds(job, ranks);
  // Looked up by a view of the scratch words: a hit allocates nothing.
  std::string_view k = key(job, ranks);
  auto it = prices_.find(k);
  if (it != prices_.end()) {
    ++hits_;
    return it->second;
  }
  ++misses_;
  double price = pricer_.step_seconds(job, ranks);
  prices_.emplace(std::string(k), price);
  return price;
}

std::optional<StepCost> PriceCache::step_breakdown(const PlanPricer& pricer, const Job& job,
                                                   std::span<const DeviceId> ranks) const {
  if (ranks.size() > kLargest) return pricer.step_breakdown(job, ranks);
  std::string_view k = key(job, ranks);
  auto it = breakdowns_.find(k);
  if (it != breakdowns_.end()) return it->second;
  std::optional<StepCost> cost = pricer.step_breakdown(job, ranks);
  breakdowns_.emplace(std::string(k), cost);
  return cost;
}

}  // namespace topoplan
