// Kueue's topology-aware scheduling (TAS) assignment, over a narrow input: the
// domain tree Kueue builds from a flavor's nodes, and per leaf what fits
// there. It answers what Kueue's scheduler answers for one PodSet (or one
// leader/worker PodSet group): pods per leaf, or Kueue's reason for none.
//
// The rules are those of kubernetes-sigs/kueue at ff69552e79ad (v0.20.0-devel,
// 2026-08-22), pkg/cache/scheduler/tas_flavor_snapshot.go
// (findTopologyAssignment and what it calls) and tas_balanced_placement.go;
// lib/src/placement/kueue_tas.cpp says which rule comes from which function.
// Gathering the input (which nodes are leaves, what fits on each) is the
// adapter's job (kueue_policy.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace topoplan::kueue {

/// Kueue feature gates that change the assignment, with their defaults at
/// ff69552e (pkg/features/kube_features.go).
struct Gates {
  bool profile_mixed = true;                // TASProfileMixed: beta, on since v0.15 (LeastFreeCapacity
                                            // for unconstrained requests; BestFit when off)
  bool balanced_placement = false;          // TASBalancedPlacement: alpha, off
  bool respect_affinity_preferred = false;  // TASRespectNodeAffinityPreferred: alpha, off
  bool multi_layer = true;                  // TASMultiLayerTopology: beta, on since v0.19

  bool operator==(const Gates& other) const = default;
};

inline constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

/// Kueue's domain tree of one flavor (tas_topology_tree.go): the levels of
/// its Topology, coarsest first, and a domain for every distinct prefix of
/// the leaves' level values. When the last level is kubernetes.io/hostname a
/// leaf is one node (keyed by hostname); otherwise a leaf is a lowest-level
/// domain and holds the summed capacity of its nodes.
class Tree {
 public:
  explicit Tree(std::vector<std::string> level_keys);

  const std::vector<std::string>& level_keys() const { return level_keys_; }
  std::size_t levels() const { return level_keys_.size(); }
  bool hostname_leaves() const { return hostname_leaves_; }

  /// The leaf for a node with these level values (one per level), created if
  /// new: nodes with the same values (with the same hostname, for hostname
  /// leaves) share one leaf. Call finish() after the last.
  std::uint32_t add_leaf(const std::vector<std::string>& values);
  void finish();

  std::size_t leaf_count() const { return leaves_.size(); }
  std::size_t domain_count() const { return domains_.size(); }
  /// The domain of leaf `leaf`.
  std::uint32_t leaf_domain(std::uint32_t leaf) const { return leaves_[leaf]; }
  /// A domain's level values (coarsest first, as many as its level + 1).
  const std::vector<std::string>& values(std::uint32_t domain) const { return domains_[domain].values; }

  struct Domain {
    std::uint32_t level = 0;
    std::uint32_t parent = 0xffffffffu;
    std::vector<std::uint32_t> children;
    std::vector<std::string> values;
    std::string id;            // Kueue's TopologyDomainID: the values joined by ','
    std::uint32_t rank = 0;    // position among its level's domains by level values
    std::uint32_t leaf = 0xffffffffu;
  };
  const Domain& domain(std::uint32_t d) const { return domains_[d]; }
  const std::vector<std::uint32_t>& at_level(std::uint32_t level) const { return per_level_[level]; }
  /// Domain::rank and Domain::parent, densely (what the algorithm reads most).
  std::uint32_t rank(std::uint32_t d) const { return rank_[d]; }
  std::uint32_t parent(std::uint32_t d) const { return parent_[d]; }

 private:
  std::vector<std::string> level_keys_;
  bool hostname_leaves_ = false;
  std::vector<Domain> domains_;
  std::vector<std::vector<std::uint32_t>> per_level_;
  std::vector<std::uint32_t> leaves_;                 // leaf -> domain
  std::vector<std::uint32_t> rank_;
  std::vector<std::uint32_t> parent_;
  std::map<std::string, std::uint32_t> by_id_;        // per level: id -> domain (key: level + '\n' + id)
  bool finished_ = false;
};

/// What fits on one leaf (fillLeafCounts): the adapter computes it from the
/// leaf's free capacity and the pods' requests, each with Kueue's implicit
/// `pods: 1`.
struct LeafFit {
  bool feasible = false;         // passed the node filters (taints, selectors, affinity)
  std::int32_t pods = 0;         // workers that fit
  bool leader = false;           // the leader fits
  std::int32_t pods_with_leader = 0;  // workers that fit beside the leader (= pods without one)
  std::int64_t affinity = 0;     // sum of the weights of matching preferred node-affinity terms
};

/// Why nodes were left out, for Kueue's "Total nodes: N; excluded: ..." text
/// (tasExclusionStats.formatReasons).
struct Exclusions {
  int total = 0;
  int node_selector = 0;
  int affinity = 0;
  std::map<std::string, int> taints;     // by Taint::str()
  std::map<std::string, int> resources;  // leaves fitting no pod, by limiting resource
};

/// One slice layer: every `size` pods in one domain of the `topology` level.
struct SliceLayer {
  std::string topology;
  std::int32_t size = 0;
};

/// A PodSet's PodSetTopologyRequest as Kueue's scheduler gets it.
struct TopologyRequest {
  std::optional<std::string> required;   // podset-required-topology
  std::optional<std::string> preferred;  // podset-preferred-topology
  bool unconstrained = false;            // podset-unconstrained-topology: "true"
  bool implied = false;                  // no annotation in a TAS-only ClusterQueue
  std::vector<SliceLayer> slices;        // slice-required-topology + slice-size, or the constraints list
};

struct Request {
  TopologyRequest topology;  // of the workers (the leader's only adds its pod)
  std::int32_t count = 0;    // worker pods
  bool leader = false;       // a one-pod leader PodSet in the same group
};

/// Pods on one leaf.
struct LeafPods {
  std::uint32_t leaf = 0;
  std::int32_t pods = 0;
};

struct Assignment {
  bool ok = false;
  std::string reason;             // Kueue's message when !ok
  std::vector<LeafPods> workers;  // in Kueue's order: by level values
  std::vector<LeafPods> leader;
};

/// Scratch space of assign() for one tree, kept between calls so that a run
/// costs only the domains it looks at.
class Workspace {
 public:
  Workspace();
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// Kueue's assignment for `request` on `tree` with per-leaf fits `fits`
/// (indexed by leaf). `topology_name` is the Topology's name for messages.
Assignment assign(const Tree& tree, const std::vector<LeafFit>& fits, const Request& request, const Gates& gates,
                  const Exclusions& exclusions, const std::string& topology_name = "default");
Assignment assign(const Tree& tree, Workspace& workspace, const std::vector<LeafFit>& fits, const Request& request,
                  const Gates& gates, const Exclusions& exclusions, const std::string& topology_name = "default");

/// The domains of every level ordered by (pods, level values), for
/// assign_counts: where the algorithm scans a level for the first or the
/// tightest domain that holds a request, this finds it in O(log n). Kept by
/// the caller next to its counts.
class CountIndex {
 public:
  explicit CountIndex(const Tree& tree);
  /// Domain `d` now holds `pods`. Applied on the next impl(): a domain whose
  /// count changes many times between two lookups (a rack, as a job takes
  /// its nodes one by one) is re-sorted once.
  void set(std::uint32_t d, std::int64_t pods);
  struct Impl;
  const Impl& impl() const;
  ~CountIndex();
  CountIndex(CountIndex&&) noexcept;
  CountIndex& operator=(CountIndex&&) noexcept;

 private:
  std::unique_ptr<Impl> impl_;
};

/// The same for a request whose pods per domain say everything (one pod set,
/// no leader, no slices, no affinity scores): `pods[d]` is what domain `d`
/// holds (the sum over its leaves), so nothing is rolled up and only the
/// domains the algorithm looks at cost anything; with `index` (holding the
/// same counts) a level is not even scanned. Gives what assign() gives with
/// fits whose sums are `pods`.
Assignment assign_counts(const Tree& tree, Workspace& workspace, const std::vector<std::int64_t>& pods,
                         const CountIndex* index, const Request& request, const Gates& gates,
                         const Exclusions& exclusions, const std::string& topology_name = "default");

}  // namespace topoplan::kueue
