// The domains of every level in best-fit order, kept as the occupancy
// changes: by free units (accelerators, or whole free nodes), then by their
// parent's free units (the busiest parent first), then by id. "The tightest
// racks that hold 40 GPUs" is then a walk from the first rack with 40 free,
// not a pass over every rack, which is what lets the topo policy place a job
// on 131,040 GPUs in a few microseconds.
//
// Occupancy marks the domains whose counts change; the index re-sorts them
// (and the children of each, whose parent count changed) on the next query.
// Children of the root share their parent, so its count is left out of
// their order.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "topoplan/model/topology.hpp"

namespace topoplan {

class Occupancy;

class FitIndex {
 public:
  struct Entry {
    std::uint32_t count;
    std::uint32_t parent_count;
    DomainId domain;
    bool operator<(const Entry& o) const {
      if (count != o.count) return count < o.count;
      if (parent_count != o.parent_count) return parent_count < o.parent_count;
      return domain < o.domain;
    }
  };

  /// Domains of `level` (> 0) with at least `units` free, in best-fit order;
  /// `visit(entry)` returns false to stop. In whole nodes with `nodes`.
  template <typename Visit>
  void visit(const Occupancy& occupancy, LevelIndex level, bool nodes, std::uint32_t units, Visit&& visit) const {
    const Order& order = refreshed(occupancy, nodes);
    const std::set<Entry>& set = order.levels[level];
    for (auto it = set.lower_bound(Entry{units, 0, 0}); it != set.end(); ++it)
      if (!visit(*it)) return;
  }

  /// Records that a domain's free counts changed.
  void changed(DomainId domain) {
    if (dirty_flag_.empty() || dirty_flag_[domain]) return;
    dirty_flag_[domain] = 1;
    dirty_.push_back(domain);
  }
  /// Starts tracking a topology (called by Occupancy).
  void reset(const Topology& topology);

 private:
  struct Order {
    bool built = false;
    std::vector<std::set<Entry>> levels;  // per level
    std::vector<Entry> key;               // per domain: its entry in its level's set
  };
  const Order& refreshed(const Occupancy& occupancy, bool nodes) const;
  Entry entry_of(const Occupancy& occupancy, bool nodes, DomainId d) const;
  void rekey(const Occupancy& occupancy, bool nodes, Order& order, DomainId d) const;

  const Topology* topology_ = nullptr;
  mutable Order accelerators_;
  mutable Order nodes_;
  // Changes not yet applied to each built order.
  mutable std::vector<DomainId> dirty_;
  mutable std::vector<std::uint8_t> dirty_flag_;
};

}  // namespace topoplan
