// Which accelerators are taken, by which job, which are available at all
// (not down or drained), and how much is free in every domain. Every count is
// kept up to date on each change, in O(levels) per accelerator, so a policy
// asks "how much is free here" in O(1) and never rebuilds a view of the
// cluster per job (Kueue's TAS cache keeps its per-domain usage the same way).
//
// Besides free accelerators and whole free nodes per domain it keeps:
// - per domain above the host level, how many of its nodes have exactly c
//   free accelerators (c up to the largest node), so "the tightest node that
//   holds k" is found without visiting every node;
// - per accelerator model, when the topology has several, free accelerators
//   and free nodes per domain, so a job asking for one model counts only its
//   own;
// - per tenant, free accelerators on nodes that tenant's jobs use, so tenant
//   isolation is a subtraction, not a filter.
#pragma once

#include <cstdint>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/fit_index.hpp"

namespace topoplan {

class Occupancy {
 public:
  static constexpr std::uint32_t kFree = kNone;
  static constexpr std::uint32_t kUnavailable = kNone - 1;  // owner() of a free accelerator that is down or drained

  /// Everything free; accelerators the topology marks down or draining are
  /// unavailable.
  explicit Occupancy(const Topology& topology);

  const Topology& topology() const { return *topology_; }

  /// Owner of an accelerator (by index into Topology::accelerators()): a job
  /// number, kFree, or kUnavailable for a free accelerator that is down or
  /// drained. A taken accelerator keeps its owner when it becomes unavailable.
  std::uint32_t owner(std::uint32_t accel) const {
    return owner_[accel] == kFree && !available_[accel] ? kUnavailable : owner_[accel];
  }
  bool is_free(std::uint32_t accel) const { return owner_[accel] == kFree && available_[accel]; }
  bool is_available(std::uint32_t accel) const { return available_[accel] != 0; }
  /// Gives a free accelerator to `job` (tenant: kNone or a tenant id); does
  /// nothing when it is not free.
  void take(std::uint32_t accel, std::uint32_t job, std::uint32_t tenant = kNone);
  /// Frees a taken accelerator (it stays unavailable if it is down or drained).
  void release(std::uint32_t accel);
  /// Marks an accelerator available or not (down, drained, masked by a
  /// scenario). A taken one stays with its job until released.
  void set_available(std::uint32_t accel, bool available);

  /// Free accelerators in a domain.
  std::uint32_t free_in(DomainId domain) const { return free_[domain]; }
  /// Nodes in a domain whose accelerators are all free (and that have some).
  std::uint32_t free_nodes_in(DomainId domain) const { return free_nodes_[domain]; }
  /// Accelerators that are available (taken or free) in a domain.
  std::uint32_t usable_in(DomainId domain) const { return usable_[domain]; }
  /// The tenant whose jobs use a node, or kNone.
  std::uint32_t node_tenant(DomainId node) const { return tenant_[node]; }

  /// The node (host-level domain) of an accelerator index.
  DomainId node_of(std::uint32_t accel) const { return node_[accel]; }

  /// The most accelerators, and the most nodes with accelerators, that any
  /// one domain of a level holds (busy or not).
  std::uint32_t max_accelerators_at(LevelIndex level) const { return max_accelerators_[level]; }
  std::uint32_t max_nodes_at(LevelIndex level) const { return max_nodes_[level]; }

  /// The most accelerators any node has.
  std::uint32_t max_node_accelerators() const { return max_node_; }
  /// Nodes below `domain` (above the host level) with exactly `free` free
  /// accelerators; `free` <= max_node_accelerators().
  std::uint32_t nodes_with_free(DomainId domain, std::uint32_t free) const {
    return histogram_[static_cast<std::size_t>(domain) * (max_node_ + 1) + free];
  }

  /// Accelerator models of the topology as classes: class_of(accel) indexes
  /// models(). Per-class counts are kept only when there are several.
  const std::vector<StringId>& models() const { return models_; }
  std::uint32_t class_of(std::uint32_t accel) const { return classes_.empty() ? 0 : classes_[accel]; }
  bool per_class() const { return models_.size() > 1; }
  /// Free accelerators of one class in a domain (per_class() only).
  std::uint32_t class_free_in(DomainId domain, std::uint32_t cls) const {
    return class_free_[static_cast<std::size_t>(cls) * domain_count_ + domain];
  }
  /// Whole free nodes whose accelerators are all of one class (per_class() only).
  std::uint32_t class_free_nodes_in(DomainId domain, std::uint32_t cls) const {
    return class_free_nodes_[static_cast<std::size_t>(cls) * domain_count_ + domain];
  }

  /// The domains of each level in best-fit order (fit_index.hpp).
  const FitIndex& fit_index() const { return fit_; }

  /// Free accelerators on nodes that some tenant's jobs use, in a domain.
  std::uint32_t tenanted_free_in(DomainId domain) const {
    return tenanted_free_.empty() ? 0 : tenanted_free_[domain];
  }
  /// Free accelerators on nodes that `tenant`'s jobs use, in a domain.
  std::uint32_t tenant_free_in(DomainId domain, std::uint32_t tenant) const {
    return tenant < tenant_free_.size() && !tenant_free_[tenant].empty() ? tenant_free_[tenant][domain] : 0;
  }

 private:
  // A node's free count changes by `delta` because accelerator `accel` changed.
  void change_free(std::uint32_t accel, int delta);
  // Moves a node's free accelerators from one tenant's counts to another's.
  void change_tenant(DomainId node, std::uint32_t from, std::uint32_t to);
  void add_tenant_free(DomainId node, std::uint32_t tenant, int delta);

  const Topology* topology_;
  std::size_t domain_count_ = 0;
  std::vector<std::uint32_t> owner_;       // per accelerator: job or kFree
  std::vector<std::uint8_t> available_;    // per accelerator
  std::vector<std::uint32_t> accel_tenant_;  // per accelerator: tenant of its owner, or kNone
  std::vector<DomainId> node_;             // per accelerator
  std::vector<std::uint32_t> free_;        // per domain
  std::vector<std::uint32_t> free_nodes_;  // per domain
  std::vector<std::uint32_t> usable_;      // per domain
  std::vector<std::uint32_t> tenant_;      // per domain (nodes only)
  std::vector<std::uint32_t> tenant_use_;  // per domain (nodes only): accelerators of that tenant
  std::uint32_t max_node_ = 0;
  std::vector<std::uint32_t> max_accelerators_;  // per level
  std::vector<std::uint32_t> max_nodes_;         // per level
  std::vector<std::uint32_t> histogram_;   // per domain x (max_node_ + 1); host-level rows unused
  std::vector<StringId> models_;           // class -> model name
  std::vector<std::uint32_t> classes_;     // per accelerator, when several classes
  std::vector<std::uint32_t> node_class_;  // per domain (nodes only): its accelerators' class, or kNone when mixed
  std::vector<std::uint32_t> class_free_;        // class x domain
  std::vector<std::uint32_t> class_free_nodes_;  // class x domain
  std::vector<std::uint32_t> tenanted_free_;             // per domain, once a tenant exists
  std::vector<std::vector<std::uint32_t>> tenant_free_;  // per tenant, per domain
  FitIndex fit_;
};

}  // namespace topoplan
