// Disjoint sets (union-find) over 0..n-1, for grouping: scale-up islands,
// NUMA domains of an nvidia-smi matrix, leaf switches that share hosts. The
// smaller index stays a set's representative, so sets are numbered by their
// first member and results do not depend on the order of joins.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace topoplan {

template <typename Index = std::size_t>
class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), Index{0}); }

  Index find(Index x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }

  void join(Index a, Index b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<Index> parent_;
};

}  // namespace topoplan
