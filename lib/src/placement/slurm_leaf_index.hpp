// Slurm's leaf switches ordered by how many candidate nodes each has, kept up
// to date between jobs, so that the slurm policy finds the leaf rule 3 of
// _eval_nodes_topo chooses in O(log leaves) instead of scanning every leaf
// switch for every job (Slurm itself scans; the choice is the same).
//
// A node is a candidate for a request counted in accelerators when it has at
// least k free (k: the tensor-parallel group, or the whole request with
// -N 1), so there is one order per k, built the first time a request asks
// for it. Counts come from the occupancy's per-switch histograms; the policy
// tells the index which nodes changed (what it returned, and what the planner
// reports through nodes_changed), and the index re-reads only their leaves.
#pragma once

#include <cstdint>
#include <vector>

#include "topoplan/placement/occupancy.hpp"

namespace topoplan {

class SlurmLeafIndex {
 public:
  /// Over the leaf switches (the level above the nodes) of the occupancy's
  /// topology, which must have a level above its nodes.
  explicit SlurmLeafIndex(const Occupancy& occupancy);

  const Occupancy& occupancy() const { return *occupancy_; }
  /// The topology's domain and node counts when the index was built.
  std::size_t topology_domains() const { return domains_; }
  std::size_t nodes() const { return nodes_; }
  LevelIndex leaf_level() const { return leaf_level_; }

  /// Re-reads the leaves of these nodes (any order, repeats allowed), with
  /// no leaf masked.
  void refresh(const std::vector<DomainId>& nodes);
  /// Whether the counts of every order built add up to the occupancy's own
  /// totals: a cheap check that no change went unreported.
  bool consistent() const;

  /// Nodes of a leaf switch with at least k free accelerators
  /// (1 <= k <= Occupancy::max_node_accelerators()).
  std::uint32_t count(std::uint32_t k, DomainId leaf) const;
  /// The leaf in [first, last) with the fewest (but some) nodes with at
  /// least k free, the lowest id among equals, leaving out masked leaves;
  /// kNone when there is none.
  DomainId best(std::uint32_t k, DomainId first, DomainId last);
  /// Leaves a leaf out of best(k, ...) until unmask().
  void mask(std::uint32_t k, DomainId leaf);
  void unmask(std::uint32_t k, DomainId leaf);

 private:
  struct Order {
    std::vector<std::uint64_t> tree;  // min-segment tree of (count << 32 | leaf offset); kEmpty when none
    std::uint64_t total = 0;          // nodes with at least k free, over all leaves
  };
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  Order& order(std::uint32_t k);
  std::uint32_t read(std::uint32_t k, DomainId leaf) const;  // from the occupancy
  void set(Order& o, std::uint32_t offset, std::uint64_t key);
  std::uint64_t key(std::uint32_t count, std::uint32_t offset) const {
    return count == 0 ? kEmpty : (std::uint64_t{count} << 32) | offset;
  }

  const Occupancy* occupancy_;
  LevelIndex leaf_level_;
  std::size_t domains_ = 0;
  std::size_t nodes_ = 0;
  DomainId first_leaf_ = 0;
  std::uint32_t leaves_ = 0;
  std::uint32_t width_ = 1;     // leaves rounded up to a power of two
  std::vector<Order> orders_;   // by k - 1; empty tree: not built yet
  std::vector<std::uint32_t> counts_;  // (k - 1) x leaves, for the orders built
};

}  // namespace topoplan
