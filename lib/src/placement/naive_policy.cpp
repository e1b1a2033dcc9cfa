#include "topoplan/placement/topo_policy.hpp"

namespace topoplan {

std::vector<std::uint32_t> NaivePolicy::place(const CapacityView& view, const PlaceRequest& request) const {
  const Topology& t = view.topology();
  std::vector<std::uint32_t> out;
  if (view.whole_nodes()) {
    auto [first, last] = t.domains_at(t.host_level());
    std::uint32_t nodes = 0;
    for (DomainId n = first; n < last && nodes < request.units; ++n) {
      if (!view.node_free(n) || t.domain(n).accelerator_count() == 0) continue;
      for (std::uint32_t a = t.domain(n).accel_begin; a < t.domain(n).accel_end; ++a) out.push_back(a);
      ++nodes;
    }
    if (nodes < request.units) out.clear();
    return out;
  }
  const auto total = static_cast<std::uint32_t>(t.accelerators().size());
  for (std::uint32_t a = 0; a < total && out.size() < request.units; ++a)
    if (view.usable(a)) out.push_back(a);
  if (out.size() < request.units) out.clear();
  return out;
}

}  // namespace topoplan
