// The domains of every level in best-fit order, kept as the occupancy
// changes: by free units (accelerators, or whole free nodes), then by their
// parent's free units (the busiest parent first), then by id. "The tightest
// racks that hold 40 GPUs" is then a walk from the first rack with 40 free,
// not a pass over every rack, which is what lets the topo policy place a job
// on 131,040 GPUs in a few microseconds.
//
// Occupancy marks the domains whose counts change; the index moves them on
// the next query. Domains are kept in groups (one per parent and count), so
// when a parent's count changes its few groups move, not every child: a
// rack's 18 trays at 4 GPUs each fall into at most 5 groups. Children of the
// root share their parent, so its count is left out of their order.
// tests/unit/fit_index_test.cpp holds the order against a brute-force sort.
#pragma once

#include <cstddef>
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
    const std::set<Group>& set = order.levels[level];
    for (auto it = set.lower_bound(Group{units, 0, 0, {}, 0}); it != set.end(); ++it) {
      const DomainId first = topology_->domain(it->parent).first_child;
      for (std::size_t w = 0; w < it->bits.size(); ++w)
        for (std::uint64_t word = it->bits[w]; word != 0; word &= word - 1) {
          const auto bit = static_cast<DomainId>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(word)));
          if (!visit(Entry{it->count, it->parent_count, first + bit})) return;
        }
    }
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
  // A level's domains with the same count under one parent: ordered by
  // (count, parent's count, parent), the children by id inside, this is
  // the order of Entry, since children of an earlier parent have smaller
  // ids. A parent's count change then moves its few groups (one per
  // distinct count among its children), not each of its children.
  struct Group {
    std::uint32_t count;
    std::uint32_t parent_count;
    DomainId parent;
    mutable std::vector<std::uint64_t> bits;  // per child of `parent` (by index): in the group
    mutable std::uint32_t members;
    bool operator<(const Group& o) const {
      if (count != o.count) return count < o.count;
      if (parent_count != o.parent_count) return parent_count < o.parent_count;
      return parent < o.parent;
    }
  };
  struct Order {
    bool built = false;
    std::vector<std::set<Group>> levels;             // per level
    std::vector<std::uint32_t> count;                // per domain: its count in its group
    std::vector<std::uint32_t> group_count;          // per domain as a parent: the count its groups carry
    std::vector<std::vector<std::uint32_t>> counts;  // per domain as a parent: its groups' counts
    // Emptied groups, reused without allocating; a copy starts with none
    // (node handles are move-only).
    struct Spare {
      std::vector<std::set<Group>::node_type> nodes;
      Spare() = default;
      Spare(const Spare&) {}
      Spare(Spare&&) noexcept = default;
      Spare& operator=(const Spare&) {
        nodes.clear();
        return *this;
      }
      Spare& operator=(Spare&&) noexcept = default;
      ~Spare() = default;
    } spare;
  };
  void add(Order& order, DomainId d, std::uint32_t count) const;
  void remove(Order& order, DomainId d) const;
  void regroup(Order& order, DomainId parent, std::uint32_t parent_count) const;
  const Order& refreshed(const Occupancy& occupancy, bool nodes) const;
  std::uint32_t count_of(const Occupancy& occupancy, bool nodes, DomainId d) const;

  const Topology* topology_ = nullptr;
  mutable Order accelerators_;
  mutable Order nodes_;
  // Changes not yet applied to each built order.
  mutable std::vector<DomainId> dirty_;
  mutable std::vector<std::uint8_t> dirty_flag_;
};

}  // namespace topoplan
