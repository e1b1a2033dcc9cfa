// Which accelerators are taken, by which job, and how much is free in every
// domain. Counts are kept up to date on every change (O(levels) per
// accelerator), so policies can ask "how much is free here" in O(1).
#pragma once

#include <cstdint>
#include <vector>

#include "topoplan/model/topology.hpp"

namespace topoplan {

class Occupancy {
 public:
  static constexpr std::uint32_t kFree = kNone;
  static constexpr std::uint32_t kUnavailable = kNone - 1;  // down or draining

  /// Everything free except accelerators that are down or draining.
  explicit Occupancy(const Topology& topology);

  const Topology& topology() const { return *topology_; }

  /// Owner of an accelerator (by index into Topology::accelerators()): a job
  /// number, kFree or kUnavailable.
  std::uint32_t owner(std::uint32_t accel) const { return owner_[accel]; }
  bool is_free(std::uint32_t accel) const { return owner_[accel] == kFree; }
  void take(std::uint32_t accel, std::uint32_t job, std::uint32_t tenant = kNone);
  void release(std::uint32_t accel);

  /// Free accelerators in a domain.
  std::uint32_t free_in(DomainId domain) const { return free_[domain]; }
  /// Nodes in a domain whose accelerators are all free (and that have some).
  std::uint32_t free_nodes_in(DomainId domain) const { return free_nodes_[domain]; }
  /// Accelerators that are up or taken (not down or draining) in a domain.
  std::uint32_t usable_in(DomainId domain) const { return usable_[domain]; }
  /// The tenant whose jobs use a node, or kNone.
  std::uint32_t node_tenant(DomainId node) const { return tenant_[node]; }

  /// The node (host-level domain) of an accelerator index.
  DomainId node_of(std::uint32_t accel) const { return node_[accel]; }

 private:
  void add_free(DomainId node, int delta);

  const Topology* topology_;
  std::vector<std::uint32_t> owner_;       // per accelerator
  std::vector<std::uint32_t> accel_tenant_;  // per accelerator: tenant of its owner, or kNone
  std::vector<DomainId> node_;             // per accelerator
  std::vector<std::uint32_t> free_;        // per domain
  std::vector<std::uint32_t> free_nodes_;  // per domain
  std::vector<std::uint32_t> usable_;      // per domain
  std::vector<std::uint32_t> tenant_;      // per domain (nodes only)
  std::vector<std::uint32_t> tenant_use_;  // per domain (nodes only): accelerators of that tenant
};

}  // namespace topoplan
