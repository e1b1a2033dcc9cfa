#include "topoplan/placement/fit_index.hpp"

#include "topoplan/placement/occupancy.hpp"

namespace topoplan {

void FitIndex::reset(const Topology& topology) {
  topology_ = &topology;
  accelerators_ = Order();
  nodes_ = Order();
  dirty_.clear();
  dirty_flag_.assign(topology.domain_count(), 0);
}

FitIndex::Entry FitIndex::entry_of(const Occupancy& occ, bool nodes, DomainId d) const {
  const DomainId parent = topology_->domain(d).parent;
  auto count = [&](DomainId x) { return nodes ? occ.free_nodes_in(x) : occ.free_in(x); };
  return {count(d), parent == kNone || parent == topology_->root() ? 0 : count(parent), d};
}

void FitIndex::rekey(const Occupancy& occ, bool nodes, Order& order, DomainId d) const {
  const Entry now = entry_of(occ, nodes, d);
  Entry& was = order.key[d];
  if (was.count == now.count && was.parent_count == now.parent_count) return;
  std::set<Entry>& set = order.levels[topology_->domain(d).level];
  // The node moves to its new place: no free and allocation per change.
  auto node = set.extract(was);
  if (node.empty()) {  // never: every domain of the level is in its set
    set.insert(now);
  } else {
    node.value() = now;
    set.insert(std::move(node));
  }
  was = now;
}

const FitIndex::Order& FitIndex::refreshed(const Occupancy& occ, bool nodes) const {
  const Topology& t = *topology_;
  for (bool which : {false, true}) {
    Order& order = which ? nodes_ : accelerators_;
    if (!order.built) continue;
    for (DomainId d : dirty_) {
      if (d == t.root()) continue;
      rekey(occ, which, order, d);
    }
    // A domain's children order by its count too.
    for (DomainId d : dirty_) {
      if (d == t.root()) continue;
      const Domain& dom = t.domain(d);
      for (std::uint32_t c = 0; c < dom.child_count; ++c) rekey(occ, which, order, dom.first_child + c);
    }
  }
  for (DomainId d : dirty_) dirty_flag_[d] = 0;
  dirty_.clear();
  Order& order = nodes ? nodes_ : accelerators_;
  if (!order.built) {
    order.levels.assign(t.host_level() + 1, {});
    order.key.resize(t.domain_count());
    for (DomainId d = 1; d < t.domain_count(); ++d) {
      order.key[d] = entry_of(occ, nodes, d);
      order.levels[t.domain(d).level].insert(order.key[d]);
    }
    order.built = true;
  }
  return order;
}

}  // namespace topoplan
