#include "topoplan/placement/topo_policy.hpp"

namespace topoplan {

namespace {

// First fit in device order without visiting what is full: descend into
// each child that has free units, in order, until `left` units are found.
void first_fit(const CapacityView& view, DomainId domain, std::uint32_t& left, std::vector<std::uint32_t>& out) {
  const Topology& t = view.topology();
  const Domain& d = t.domain(domain);
  if (d.level == t.host_level()) {
    if (view.whole_nodes()) {
      if (!view.node_free(domain)) return;
      for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a) out.push_back(a);
      --left;
      return;
    }
    for (std::uint32_t a = d.accel_begin; a < d.accel_end && left > 0; ++a)
      if (view.usable(a)) {
        out.push_back(a);
        --left;
      }
    return;
  }
  for (std::uint32_t c = 0; c < d.child_count && left > 0; ++c)
    if (view.count(d.first_child + c) > 0) first_fit(view, d.first_child + c, left, out);
}

}  // namespace

std::vector<std::uint32_t> NaivePolicy::place(const CapacityView& view, const PlaceRequest& request) const {
  const Topology& t = view.topology();
  if (request.units == 0 || view.count(t.root()) < request.units) return {};
  std::vector<std::uint32_t> out;
  std::uint32_t left = request.units;
  first_fit(view, t.root(), left, out);
  if (left > 0) out.clear();
  return out;
}

}  // namespace topoplan
