#include "slurm_leaf_index.hpp"

#include <algorithm>

namespace topoplan {

SlurmLeafIndex::SlurmLeafIndex(const Occupancy& occupancy)
    : occupancy_(&occupancy), leaf_level_(occupancy.topology().host_level() - 1) {
  const Topology& t = occupancy.topology();
  domains_ = t.domain_count();
  auto [first_node, last_node] = t.domains_at(t.host_level());
  nodes_ = last_node - first_node;
  auto [first, last] = t.domains_at(leaf_level_);
  first_leaf_ = first;
  leaves_ = last - first;
  while (width_ < leaves_) width_ *= 2;
  orders_.resize(occupancy.max_node_accelerators());
}

std::uint32_t SlurmLeafIndex::read(std::uint32_t k, DomainId leaf) const {
  std::uint32_t n = 0;
  for (std::uint32_t c = k; c <= occupancy_->max_node_accelerators(); ++c) n += occupancy_->nodes_with_free(leaf, c);
  return n;
}

void SlurmLeafIndex::set(Order& o, std::uint32_t offset, std::uint64_t key) {
  std::size_t i = width_ + offset;
  o.tree[i] = key;
  for (i /= 2; i > 0; i /= 2) o.tree[i] = std::min(o.tree[2 * i], o.tree[2 * i + 1]);
}

SlurmLeafIndex::Order& SlurmLeafIndex::order(std::uint32_t k) {
  Order& o = orders_[k - 1];
  if (!o.tree.empty()) return o;
  if (counts_.size() < std::size_t{k} * leaves_) counts_.resize(orders_.size() * std::size_t{leaves_}, 0);
  o.tree.assign(2 * std::size_t{width_}, kEmpty);
  o.total = 0;
  std::uint32_t* counts = counts_.data() + std::size_t{k - 1} * leaves_;
  for (std::uint32_t i = 0; i < leaves_; ++i) {
    counts[i] = read(k, first_leaf_ + i);
    o.total += counts[i];
    o.tree[width_ + i] = key(counts[i], i);
  }
  for (std::size_t i = width_; i-- > 1;) o.tree[i] = std::min(o.tree[2 * i], o.tree[2 * i + 1]);
  return o;
}

void SlurmLeafIndex::refresh(const std::vector<DomainId>& nodes) {
  std::vector<DomainId> leaves;
  leaves.reserve(nodes.size());
  const Topology& t = occupancy_->topology();
  for (DomainId n : nodes) leaves.push_back(t.domain(n).parent);
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  for (std::uint32_t k = 1; k <= orders_.size(); ++k) {
    Order& o = orders_[k - 1];
    if (o.tree.empty()) continue;
    std::uint32_t* counts = counts_.data() + std::size_t{k - 1} * leaves_;
    for (DomainId leaf : leaves) {
      const std::uint32_t i = leaf - first_leaf_;
      const std::uint32_t now = read(k, leaf);
      if (now == counts[i]) continue;
      o.total = o.total - counts[i] + now;
      counts[i] = now;
      set(o, i, key(now, i));
    }
  }
}

bool SlurmLeafIndex::consistent() const {
  const DomainId root = occupancy_->topology().root();
  for (std::uint32_t k = 1; k <= orders_.size(); ++k)
    if (!orders_[k - 1].tree.empty() && orders_[k - 1].total != read(k, root)) return false;
  return true;
}

std::uint32_t SlurmLeafIndex::count(std::uint32_t k, DomainId leaf) const {
  if (!orders_[k - 1].tree.empty()) return counts_[std::size_t{k - 1} * leaves_ + (leaf - first_leaf_)];
  return read(k, leaf);
}

DomainId SlurmLeafIndex::best(std::uint32_t k, DomainId first, DomainId last) {
  const Order& o = order(k);
  std::uint64_t m = kEmpty;
  for (std::size_t lo = width_ + (first - first_leaf_), hi = width_ + (last - first_leaf_); lo < hi;
       lo /= 2, hi /= 2) {
    if (lo & 1) m = std::min(m, o.tree[lo++]);
    if (hi & 1) m = std::min(m, o.tree[--hi]);
  }
  return m == kEmpty ? kNone : first_leaf_ + static_cast<DomainId>(m & 0xffffffffu);
}

void SlurmLeafIndex::mask(std::uint32_t k, DomainId leaf) { set(order(k), leaf - first_leaf_, kEmpty); }

void SlurmLeafIndex::unmask(std::uint32_t k, DomainId leaf) {
  Order& o = order(k);
  const std::uint32_t i = leaf - first_leaf_;
  set(o, i, key(counts_[std::size_t{k - 1} * leaves_ + i], i));
}

}  // namespace topoplan
