#include "topoplan/placement/occupancy.hpp"

#include <algorithm>

namespace topoplan {

Occupancy::Occupancy(const Topology& topology)
    : topology_(&topology),
      domain_count_(topology.domain_count()),
      owner_(topology.accelerators().size(), kFree),
      available_(topology.accelerators().size(), 1),
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
    if (d.state != DeviceState::up) available_[i] = 0;
    StringId model = d.model;
    if (std::find(models_.begin(), models_.end(), model) == models_.end()) models_.push_back(model);
  }
  if (models_.empty()) models_.push_back(0);
  const bool several = models_.size() > 1;
  if (several) {
    classes_.resize(accels.size());
    for (std::uint32_t i = 0; i < accels.size(); ++i)
      classes_[i] = static_cast<std::uint32_t>(
          std::find(models_.begin(), models_.end(), topology.device(accels[i]).model) - models_.begin());
    class_free_.assign(models_.size() * domain_count_, 0);
    class_free_nodes_.assign(models_.size() * domain_count_, 0);
    node_class_.assign(domain_count_, kNone);
  }
  auto [first_node, last_node] = topology.domains_at(topology.host_level());
  for (DomainId n = first_node; n < last_node; ++n) max_node_ = std::max(max_node_, topology.domain(n).accelerator_count());
  histogram_.assign(static_cast<std::size_t>(first_node) * (max_node_ + 1), 0);

  fit_.reset(topology);
  // Counts bottom-up: nodes from their accelerators, then parents sum children.
  for (DomainId n = first_node; n < last_node; ++n) {
    const Domain& node = topology.domain(n);
    std::uint32_t up = 0;
    for (std::uint32_t i = node.accel_begin; i < node.accel_end; ++i) up += available_[i];
    free_[n] = usable_[n] = up;
    free_nodes_[n] = (up == node.accelerator_count() && up > 0) ? 1u : 0u;
    if (n != topology.root()) ++histogram_[static_cast<std::size_t>(node.parent) * (max_node_ + 1) + up];
    if (several && node.accelerator_count() > 0) {
      std::uint32_t cls = classes_[node.accel_begin];
      for (std::uint32_t i = node.accel_begin; i < node.accel_end; ++i) {
        class_free_[classes_[i] * domain_count_ + n] += available_[i];
        if (classes_[i] != cls) cls = kNone;
      }
      node_class_[n] = cls;
      if (cls != kNone) class_free_nodes_[cls * domain_count_ + n] = free_nodes_[n];
    }
  }
  // Static sizes per level.
  max_accelerators_.assign(topology.host_level() + 1, 0);
  max_nodes_.assign(topology.host_level() + 1, 0);
  {
    std::vector<std::uint32_t> nodes(domain_count_, 0);
    for (DomainId n = first_node; n < last_node; ++n) nodes[n] = topology.domain(n).accelerator_count() > 0 ? 1 : 0;
    for (DomainId d = first_node; d-- > 0;) {
      const Domain& dom = topology.domain(d);
      for (std::uint32_t c = 0; c < dom.child_count; ++c) nodes[d] += nodes[dom.first_child + c];
    }
    for (DomainId d = 0; d < domain_count_; ++d) {
      const LevelIndex l = topology.domain(d).level;
      max_accelerators_[l] = std::max(max_accelerators_[l], topology.domain(d).accelerator_count());
      max_nodes_[l] = std::max(max_nodes_[l], nodes[d]);
    }
  }
  for (LevelIndex l = topology.host_level(); l-- > 0;) {
    auto [first, last] = topology.domains_at(l);
    for (DomainId d = first; d < last; ++d) {
      const Domain& dom = topology.domain(d);
      for (std::uint32_t c = 0; c < dom.child_count; ++c) {
        const DomainId child = dom.first_child + c;
        free_[d] += free_[child];
        free_nodes_[d] += free_nodes_[child];
        usable_[d] += usable_[child];
        if (child < first_node)
          for (std::uint32_t k = 0; k <= max_node_; ++k)
            histogram_[static_cast<std::size_t>(d) * (max_node_ + 1) + k] +=
                histogram_[static_cast<std::size_t>(child) * (max_node_ + 1) + k];
        if (several)
          for (std::size_t k = 0; k < models_.size(); ++k) {
            class_free_[k * domain_count_ + d] += class_free_[k * domain_count_ + child];
            class_free_nodes_[k * domain_count_ + d] += class_free_nodes_[k * domain_count_ + child];
          }
      }
    }
  }
}

void Occupancy::change_free(std::uint32_t accel, int delta) {
  const DomainId node = node_[accel];
  const Domain& n = topology_->domain(node);
  const std::uint32_t before = free_[node];
  const auto after = static_cast<std::uint32_t>(static_cast<int>(before) + delta);
  const std::uint32_t size = n.accelerator_count();
  const int node_delta = static_cast<int>(after == size && size > 0) - static_cast<int>(before == size && size > 0);
  const std::size_t row = max_node_ + 1;
  const bool several = !classes_.empty();
  const std::size_t cls = several ? classes_[accel] : 0;
  const std::uint32_t node_cls = several ? node_class_[node] : kNone;
  for (DomainId d = node; d != kNone; d = topology_->domain(d).parent) {
    fit_.changed(d);
    free_[d] = static_cast<std::uint32_t>(static_cast<int>(free_[d]) + delta);
    free_nodes_[d] = static_cast<std::uint32_t>(static_cast<int>(free_nodes_[d]) + node_delta);
    if (d != node) {
      --histogram_[d * row + before];
      ++histogram_[d * row + after];
    }
    if (several) {
      std::uint32_t& cf = class_free_[cls * domain_count_ + d];
      cf = static_cast<std::uint32_t>(static_cast<int>(cf) + delta);
      if (node_delta != 0 && node_cls != kNone) {
        std::uint32_t& cn = class_free_nodes_[node_cls * domain_count_ + d];
        cn = static_cast<std::uint32_t>(static_cast<int>(cn) + node_delta);
      }
    }
  }
  if (tenant_[node] != kNone) add_tenant_free(node, tenant_[node], delta);
}

void Occupancy::add_tenant_free(DomainId node, std::uint32_t tenant, int delta) {
  if (delta == 0) return;
  if (tenanted_free_.empty()) tenanted_free_.assign(domain_count_, 0);
  if (tenant >= tenant_free_.size()) tenant_free_.resize(tenant + 1);
  std::vector<std::uint32_t>& own = tenant_free_[tenant];
  if (own.empty()) own.assign(domain_count_, 0);
  for (DomainId d = node; d != kNone; d = topology_->domain(d).parent) {
    tenanted_free_[d] = static_cast<std::uint32_t>(static_cast<int>(tenanted_free_[d]) + delta);
    own[d] = static_cast<std::uint32_t>(static_cast<int>(own[d]) + delta);
  }
}

void Occupancy::change_tenant(DomainId node, std::uint32_t from, std::uint32_t to) {
  if (from == to) return;
  const int free = static_cast<int>(free_[node]);
  if (from != kNone) add_tenant_free(node, from, -free);
  tenant_[node] = to;
  if (to != kNone) add_tenant_free(node, to, free);
}

void Occupancy::take(std::uint32_t accel, std::uint32_t job, std::uint32_t tenant) {
  if (!is_free(accel)) return;
  owner_[accel] = job;
  change_free(accel, -1);
  if (tenant != kNone) {
    const DomainId node = node_[accel];
    accel_tenant_[accel] = tenant;
    change_tenant(node, tenant_[node], tenant);
    ++tenant_use_[node];
  }
}

void Occupancy::release(std::uint32_t accel) {
  if (owner_[accel] == kFree) return;
  owner_[accel] = kFree;
  const DomainId node = node_[accel];
  if (available_[accel]) {
    change_free(accel, +1);
  } else {
    for (DomainId d = node; d != kNone; d = topology_->domain(d).parent) --usable_[d];
  }
  if (accel_tenant_[accel] != kNone) {
    accel_tenant_[accel] = kNone;
    if (--tenant_use_[node] == 0) change_tenant(node, tenant_[node], kNone);
  }
}

void Occupancy::set_available(std::uint32_t accel, bool available) {
  if ((available_[accel] != 0) == available) return;
  available_[accel] = available ? 1 : 0;
  if (owner_[accel] != kFree) return;  // a taken one stays usable by its job until released
  const int delta = available ? 1 : -1;
  for (DomainId d = node_[accel]; d != kNone; d = topology_->domain(d).parent)
    usable_[d] = static_cast<std::uint32_t>(static_cast<int>(usable_[d]) + delta);
  change_free(accel, delta);
}

}  // namespace topoplan
