#include "topoplan/placement/occupancy.hpp"

namespace topoplan {

Occupancy::Occupancy(const Topology& topology)
    : topology_(&topology),
      owner_(topology.accelerators().size(), kFree),
      accel_tenant_(topology.accelerators().size(), kNone),
      node_(topology.accelerators().size(), kNone),
      free_(topology.domain_count(), 0),
      free_nodes_(topology.domain_count(), 0),
      usable_(topology.domain_count(), 0),
      tenant_(topology.domain_count(), kNone),
      tenant_use_(topology.domain_count(), 0) {
  auto accels = topology.accelerators();
  for (std::uint32_t i = 0; i < accels.size(); ++i) {
    const Device& d = topology.device(accels[i]);
    node_[i] = d.domain;
    if (d.state != DeviceState::up) owner_[i] = kUnavailable;
  }
  // Counts bottom-up: nodes from their accelerators, then parents sum children.
  auto [first_node, last_node] = topology.domains_at(topology.host_level());
  for (DomainId n = first_node; n < last_node; ++n) {
    const Domain& node = topology.domain(n);
    std::uint32_t up = 0;
    for (std::uint32_t i = node.accel_begin; i < node.accel_end; ++i) up += owner_[i] == kFree ? 1u : 0u;
    free_[n] = usable_[n] = up;
    free_nodes_[n] = (up == node.accelerator_count() && up > 0) ? 1u : 0u;
  }
  for (LevelIndex l = topology.host_level(); l-- > 0;) {
    auto [first, last] = topology.domains_at(l);
    for (DomainId d = first; d < last; ++d) {
      const Domain& dom = topology.domain(d);
      for (std::uint32_t c = 0; c < dom.child_count; ++c) {
        free_[d] += free_[dom.first_child + c];
        free_nodes_[d] += free_nodes_[dom.first_child + c];
        usable_[d] += usable_[dom.first_child + c];
      }
    }
  }
}

void Occupancy::add_free(DomainId node, int delta) {
  const Domain& n = topology_->domain(node);
  bool was_free = free_[node] == n.accelerator_count() && n.accelerator_count() > 0;
  bool is_free_now = static_cast<std::uint32_t>(static_cast<int>(free_[node]) + delta) == n.accelerator_count();
  int node_delta = static_cast<int>(is_free_now) - static_cast<int>(was_free);
  for (DomainId d = node; d != kNone; d = topology_->domain(d).parent) {
    free_[d] = static_cast<std::uint32_t>(static_cast<int>(free_[d]) + delta);
    free_nodes_[d] = static_cast<std::uint32_t>(static_cast<int>(free_nodes_[d]) + node_delta);
  }
}

void Occupancy::take(std::uint32_t accel, std::uint32_t job, std::uint32_t tenant) {
  if (owner_[accel] != kFree) return;
  owner_[accel] = job;
  DomainId node = node_[accel];
  add_free(node, -1);
  if (tenant != kNone) {
    accel_tenant_[accel] = tenant;
    tenant_[node] = tenant;
    ++tenant_use_[node];
  }
}

void Occupancy::release(std::uint32_t accel) {
  if (owner_[accel] == kFree || owner_[accel] == kUnavailable) return;
  owner_[accel] = kFree;
  DomainId node = node_[accel];
  add_free(node, +1);
  if (accel_tenant_[accel] != kNone) {
    accel_tenant_[accel] = kNone;
    if (--tenant_use_[node] == 0) tenant_[node] = kNone;
  }
}

}  // namespace topoplan
