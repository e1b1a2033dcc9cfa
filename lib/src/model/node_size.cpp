#include "topoplan/model/node_size.hpp"

#include <algorithm>
#include <map>

namespace topoplan {

std::uint32_t typical_node_accelerators(const Topology& topology) {
  std::map<std::uint32_t, std::uint32_t> sizes;
  auto [first, last] = topology.domains_at(topology.host_level());
  for (DomainId n = first; n < last; ++n)
    if (topology.domain(n).accelerator_count() > 0) ++sizes[topology.domain(n).accelerator_count()];
  std::uint32_t best = 0;
  std::uint32_t best_count = 0;
  for (auto [size, count] : sizes)
    if (count > best_count) {
      best = size;
      best_count = count;
    }
  return best;
}

std::uint32_t largest_node_accelerators(const Topology& topology) {
  std::uint32_t best = 0;
  auto [first, last] = topology.domains_at(topology.host_level());
  for (DomainId n = first; n < last; ++n) best = std::max(best, topology.domain(n).accelerator_count());
  return best;
}

}  // namespace topoplan
