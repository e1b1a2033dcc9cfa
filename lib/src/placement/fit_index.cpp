#include "topoplan/placement/fit_index.hpp"

#include <algorithm>

#include "topoplan/placement/occupancy.hpp"

namespace topoplan {

void FitIndex::reset(const Topology& topology) {
  topology_ = &topology;
  accelerators_ = Order();
  nodes_ = Order();
  dirty_.clear();
  dirty_flag_.assign(topology.domain_count(), 0);
}

std::uint32_t FitIndex::count_of(const Occupancy& occ, bool nodes, DomainId d) const {
  return nodes ? occ.free_nodes_in(d) : occ.free_in(d);
}

void FitIndex::add(Order& order, DomainId d, std::uint32_t count) const {
  const Domain& dom = topology_->domain(d);
  const DomainId parent = dom.parent;
  std::set<Group>& set = order.levels[dom.level];
  auto it = set.find(Group{count, order.group_count[parent], parent, {}, 0});
  if (it == set.end()) {
    const std::size_t words = (topology_->domain(parent).child_count + 63) / 64;
    if (order.spare.nodes.empty()) {
      it = set.insert(Group{count, order.group_count[parent], parent, std::vector<std::uint64_t>(words, 0), 0}).first;
    } else {
      std::set<Group>::node_type node = std::move(order.spare.nodes.back());
      order.spare.nodes.pop_back();
      Group& g = node.value();
      g.count = count;
      g.parent_count = order.group_count[parent];
      g.parent = parent;
      g.bits.assign(words, 0);
      g.members = 0;
      it = set.insert(std::move(node)).position;
    }
    order.counts[parent].push_back(count);
  }
  const std::uint32_t bit = d - topology_->domain(parent).first_child;
  it->bits[bit / 64] |= std::uint64_t{1} << (bit % 64);
  ++it->members;
  order.count[d] = count;
}

void FitIndex::remove(Order& order, DomainId d) const {
  const Domain& dom = topology_->domain(d);
  const DomainId parent = dom.parent;
  const std::uint32_t count = order.count[d];
  std::set<Group>& set = order.levels[dom.level];
  auto it = set.find(Group{count, order.group_count[parent], parent, {}, 0});
  if (it == set.end()) return;  // never: every domain of a level is in one group
  const std::uint32_t bit = d - topology_->domain(parent).first_child;
  it->bits[bit / 64] &= ~(std::uint64_t{1} << (bit % 64));
  if (--it->members > 0) return;
  order.spare.nodes.push_back(set.extract(it));
  std::vector<std::uint32_t>& counts = order.counts[parent];
  auto c = std::find(counts.begin(), counts.end(), count);
  *c = counts.back();
  counts.pop_back();
}

void FitIndex::regroup(Order& order, DomainId parent, std::uint32_t parent_count) const {
  std::uint32_t& was = order.group_count[parent];
  if (was == parent_count) return;
  std::set<Group>& set = order.levels[topology_->domain(parent).level + 1];
  for (std::uint32_t count : order.counts[parent]) {
    std::set<Group>::node_type node = set.extract(Group{count, was, parent, {}, 0});
    if (node.empty()) continue;  // never
    node.value().parent_count = parent_count;
    set.insert(std::move(node));
  }
  was = parent_count;
}

const FitIndex::Order& FitIndex::refreshed(const Occupancy& occ, bool nodes) const {
  const Topology& t = *topology_;
  for (bool which : {false, true}) {
    Order& order = which ? nodes_ : accelerators_;
    if (!order.built) continue;
    for (DomainId d : dirty_) {
      if (d == t.root()) continue;
      const std::uint32_t now = count_of(occ, which, d);
      if (now == order.count[d]) continue;
      remove(order, d);
      add(order, d, now);
    }
    // A domain's children order by its count too: its groups move.
    for (DomainId d : dirty_)
      if (d != t.root() && t.domain(d).child_count > 0) regroup(order, d, count_of(occ, which, d));
  }
  for (DomainId d : dirty_) dirty_flag_[d] = 0;
  dirty_.clear();
  Order& order = nodes ? nodes_ : accelerators_;
  if (!order.built) {
    order.levels.assign(t.host_level() + 1, {});
    order.count.assign(t.domain_count(), 0);
    order.group_count.assign(t.domain_count(), 0);
    order.counts.assign(t.domain_count(), {});
    // Children of the root share it: its count is left out of their order.
    for (DomainId d = 1; d < t.domain_count(); ++d) order.group_count[d] = count_of(occ, nodes, d);
    for (DomainId d = 1; d < t.domain_count(); ++d) add(order, d, count_of(occ, nodes, d));
    order.built = true;
  }
  return order;
}

}  // namespace topoplan
