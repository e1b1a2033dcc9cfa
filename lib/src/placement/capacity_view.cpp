#include "topoplan/placement/policy.hpp"

namespace topoplan {

CapacityView::CapacityView(const Occupancy& occupancy, bool whole_nodes)
    : occupancy_(&occupancy), whole_nodes_(whole_nodes) {}

void CapacityView::restrict(const std::function<bool(std::uint32_t accel)>& usable) {
  const std::size_t n = topology().accelerators().size();
  if (!filtered_) {
    usable_.assign(n, 0);
    for (std::uint32_t a = 0; a < n; ++a) usable_[a] = occupancy_->is_free(a) ? 1u : 0u;
    filtered_ = true;
  }
  for (std::uint32_t a = 0; a < n; ++a)
    if (usable_[a] && !usable(a)) usable_[a] = 0;
  recount();
}

void CapacityView::exclude(DomainId domain) {
  const Domain& d = topology().domain(domain);
  restrict([&](std::uint32_t a) { return a < d.accel_begin || a >= d.accel_end; });
}

void CapacityView::recount() {
  const Topology& t = topology();
  free_.assign(t.domain_count(), 0);
  free_nodes_.assign(t.domain_count(), 0);
  auto [first_node, last_node] = t.domains_at(t.host_level());
  for (DomainId n = first_node; n < last_node; ++n) {
    const Domain& node = t.domain(n);
    std::uint32_t up = 0;
    for (std::uint32_t a = node.accel_begin; a < node.accel_end; ++a) up += usable_[a];
    free_[n] = up;
    free_nodes_[n] = (up == node.accelerator_count() && up > 0) ? 1u : 0u;
  }
  for (LevelIndex l = t.host_level(); l-- > 0;) {
    auto [first, last] = t.domains_at(l);
    for (DomainId d = first; d < last; ++d) {
      const Domain& dom = t.domain(d);
      for (std::uint32_t c = 0; c < dom.child_count; ++c) {
        free_[d] += free_[dom.first_child + c];
        free_nodes_[d] += free_nodes_[dom.first_child + c];
      }
    }
  }
}

std::uint32_t CapacityView::accelerators(DomainId domain) const {
  return filtered_ ? free_[domain] : occupancy_->free_in(domain);
}

std::uint32_t CapacityView::count(DomainId domain) const {
  if (!whole_nodes_) return accelerators(domain);
  return filtered_ ? free_nodes_[domain] : occupancy_->free_nodes_in(domain);
}

bool CapacityView::usable(std::uint32_t accel) const {
  return filtered_ ? usable_[accel] != 0 : occupancy_->is_free(accel);
}

}  // namespace topoplan
