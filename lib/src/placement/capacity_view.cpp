#include "topoplan/placement/capacity_view.hpp"

#include <algorithm>
#include <tuple>

namespace topoplan {

CapacityView::CapacityView(const Occupancy& occupancy, bool whole_nodes)
    : occupancy_(&occupancy), whole_nodes_(whole_nodes) {}

void CapacityView::only_classes(const std::vector<std::uint8_t>& wanted) {
  if (std::all_of(wanted.begin(), wanted.end(), [](std::uint8_t w) { return w != 0; })) return;
  if (filtered_) {
    const Occupancy& occ = *occupancy_;
    restrict([&](std::uint32_t a) { return occ.class_of(a) < wanted.size() && wanted[occ.class_of(a)] != 0; });
    return;
  }
  simple_ = false;
  classes_ = wanted;
  classes_.resize(occupancy_->models().size(), 0);
  if (tenant_rule_) materialize();
}

void CapacityView::for_tenant(std::uint32_t tenant) {
  if (filtered_) {
    const Occupancy& occ = *occupancy_;
    restrict([&](std::uint32_t a) {
      std::uint32_t owner = occ.node_tenant(occ.node_of(a));
      return owner == kNone || owner == tenant;
    });
    return;
  }
  simple_ = false;
  tenant_rule_ = true;
  tenant_ = tenant;
  if (!classes_.empty()) materialize();
}

void CapacityView::inside(DomainId domain) {
  if (filtered_) {
    const Domain& d = topology().domain(domain);
    restrict([&](std::uint32_t a) { return a >= d.accel_begin && a < d.accel_end; });
    return;
  }
  if (inside_ != kNone && !topology().contains(inside_, domain)) {
    // Two insides that are not nested leave nothing: keep the inner one
    // of a nested pair, else exclude everything.
    if (!topology().contains(domain, inside_)) exclude(topology().root());
    return;
  }
  simple_ = false;
  inside_ = domain;
}

void CapacityView::exclude(DomainId domain) {
  const Domain& d = topology().domain(domain);
  if (filtered_) {
    restrict([&](std::uint32_t a) { return a < d.accel_begin || a >= d.accel_end; });
    return;
  }
  if (d.accel_begin == d.accel_end) return;
  simple_ = false;
  excluded_.push_back({d.accel_begin, d.accel_end, domain});
  prepared_ = false;
}

void CapacityView::restrict(const std::function<bool(std::uint32_t accel)>& usable) {
  if (!filtered_) materialize();
  const std::size_t n = usable_.size();
  for (std::uint32_t a = 0; a < n; ++a)
    if (usable_[a] && !usable(a)) usable_[a] = 0;
  recount();
}

void CapacityView::prepare() const {
  if (prepared_) return;
  auto& ex = const_cast<std::vector<Range>&>(excluded_);
  std::sort(ex.begin(), ex.end(), [](const Range& x, const Range& y) {
    return x.begin != y.begin ? x.begin < y.begin : x.end > y.end;
  });
  // Domains nest, so a range either contains the next one or ends before it.
  std::vector<Range> disjoint;
  for (const Range& r : ex)
    if (disjoint.empty() || r.begin >= disjoint.back().end) disjoint.push_back(r);
  ex = std::move(disjoint);
  excluded_accels_.assign(ex.size() + 1, 0);
  excluded_nodes_.assign(ex.size() + 1, 0);
  for (std::size_t i = 0; i < ex.size(); ++i) {
    excluded_accels_[i + 1] = excluded_accels_[i] + base_accelerators(ex[i].domain);
    excluded_nodes_[i + 1] = excluded_nodes_[i] + base_nodes(ex[i].domain);
  }
  prepared_ = true;
}

std::pair<std::size_t, std::size_t> CapacityView::excluded_within(std::uint32_t begin, std::uint32_t end,
                                                                  bool& covered) const {
  covered = false;
  auto first = std::upper_bound(excluded_.begin(), excluded_.end(), begin,
                                [](std::uint32_t b, const Range& r) { return b < r.end; });
  if (first != excluded_.end() && first->begin <= begin && first->end >= end) {
    covered = true;
    return {0, 0};
  }
  auto last = std::lower_bound(first, excluded_.end(), end, [](const Range& r, std::uint32_t e) { return r.begin < e; });
  return {static_cast<std::size_t>(first - excluded_.begin()), static_cast<std::size_t>(last - excluded_.begin())};
}

std::uint32_t CapacityView::base_accelerators(DomainId domain) const {
  const Occupancy& occ = *occupancy_;
  std::uint32_t n = 0;
  if (classes_.empty()) {
    n = occ.free_in(domain);
  } else {
    for (std::uint32_t k = 0; k < classes_.size(); ++k)
      if (classes_[k]) n += occ.class_free_in(domain, k);
  }
  if (tenant_rule_) {
    std::uint32_t others = occ.tenanted_free_in(domain) - (tenant_ == kNone ? 0 : occ.tenant_free_in(domain, tenant_));
    n -= std::min(n, others);
  }
  return n;
}

std::uint32_t CapacityView::base_nodes(DomainId domain) const {
  const Occupancy& occ = *occupancy_;
  if (classes_.empty()) return occ.free_nodes_in(domain);
  std::uint32_t n = 0;
  for (std::uint32_t k = 0; k < classes_.size(); ++k)
    if (classes_[k]) n += occ.class_free_nodes_in(domain, k);
  return n;
}

bool CapacityView::base_usable(std::uint32_t accel) const {
  const Occupancy& occ = *occupancy_;
  if (!occ.is_free(accel)) return false;
  if (!classes_.empty() && !classes_[occ.class_of(accel)]) return false;
  if (tenant_rule_) {
    std::uint32_t owner = occ.node_tenant(occ.node_of(accel));
    if (owner != kNone && owner != tenant_) return false;
  }
  return true;
}

std::uint32_t CapacityView::adjusted(DomainId domain, bool in_nodes) const {
  const Domain& d = topology().domain(domain);
  if (d.accel_begin == d.accel_end) return 0;
  if (inside_ != kNone && domain != inside_) {
    const Domain& in = topology().domain(inside_);
    const bool within = d.accel_begin >= in.accel_begin && d.accel_end <= in.accel_end;
    if (!within) {
      const bool around = in.accel_begin >= d.accel_begin && in.accel_end <= d.accel_end;
      return around ? adjusted(inside_, in_nodes) : 0;
    }
  }
  std::uint32_t base = in_nodes ? base_nodes(domain) : base_accelerators(domain);
  if (excluded_.empty()) return base;
  prepare();
  bool covered = false;
  auto [i, j] = excluded_within(d.accel_begin, d.accel_end, covered);
  if (covered) return 0;
  const std::vector<std::uint64_t>& sums = in_nodes ? excluded_nodes_ : excluded_accels_;
  const auto taken = static_cast<std::uint32_t>(sums[j] - sums[i]);
  return base - std::min(base, taken);
}

bool CapacityView::usable(std::uint32_t accel) const {
  if (simple_) return occupancy_->is_free(accel);
  if (filtered_) return usable_[accel] != 0;
  if (!base_usable(accel)) return false;
  if (inside_ != kNone) {
    const Domain& in = topology().domain(inside_);
    if (accel < in.accel_begin || accel >= in.accel_end) return false;
  }
  if (!excluded_.empty()) {
    prepare();
    bool covered = false;
    excluded_within(accel, accel + 1, covered);
    if (covered) return false;
  }
  return true;
}

bool CapacityView::exact(DomainId domain) const {
  if (simple_) return true;
  if (filtered_ || !classes_.empty()) return false;
  const Occupancy& occ = *occupancy_;
  if (tenant_rule_ && occ.tenanted_free_in(domain) != (tenant_ == kNone ? 0 : occ.tenant_free_in(domain, tenant_)))
    return false;
  const Domain& d = topology().domain(domain);
  if (inside_ != kNone) {
    const Domain& in = topology().domain(inside_);
    if (!(d.accel_begin >= in.accel_begin && d.accel_end <= in.accel_end)) return false;
  }
  if (excluded_.empty()) return true;
  prepare();
  bool covered = false;
  auto [i, j] = excluded_within(d.accel_begin, d.accel_end, covered);
  return !covered && i == j;
}

std::vector<std::uint8_t> CapacityView::exact_at(LevelIndex level) const {
  const Topology& t = topology();
  auto [first, last] = t.domains_at(level);
  std::vector<std::uint8_t> out(last - first, simple_ ? 1 : 0);
  if (simple_ || filtered_ || !classes_.empty()) return out;
  const Occupancy& occ = *occupancy_;
  prepare();
  const Domain* in = inside_ == kNone ? nullptr : &t.domain(inside_);
  // The first exclusion ending after a domain's first accelerator, found by
  // walking on while the level's domains go up (as they do) and searched
  // again otherwise.
  std::size_t e = 0;
  std::uint32_t previous = 0;
  for (DomainId d = first; d < last; ++d) {
    const Domain& dom = t.domain(d);
    if (tenant_rule_ && occ.tenanted_free_in(d) != (tenant_ == kNone ? 0 : occ.tenant_free_in(d, tenant_))) continue;
    if (in && !(dom.accel_begin >= in->accel_begin && dom.accel_end <= in->accel_end)) continue;
    if (dom.accel_begin < previous)
      e = static_cast<std::size_t>(
          std::upper_bound(excluded_.begin(), excluded_.end(), dom.accel_begin,
                           [](std::uint32_t b, const Range& r) { return b < r.end; }) -
          excluded_.begin());
    previous = dom.accel_begin;
    while (e < excluded_.size() && excluded_[e].end <= dom.accel_begin) ++e;
    if (e < excluded_.size()) {
      const Range& r = excluded_[e];
      const bool covered = r.begin <= dom.accel_begin && r.end >= dom.accel_end;
      if (covered || r.begin < dom.accel_end) continue;
    }
    out[d - first] = 1;
  }
  return out;
}

std::optional<CapacityView::LevelCut> CapacityView::cut_at(LevelIndex level) const {
  const Topology& t = topology();
  LevelCut cut;
  std::tie(cut.first, cut.last) = t.domains_at(level);
  if (simple_) return cut;
  if (!by_domains()) return std::nullopt;
  // The domains of `level` that a domain covers, or the one holding it.
  auto span = [&](DomainId d) {
    if (t.domain(d).level >= level) {
      DomainId a = t.ancestor(d, level);
      return std::pair<DomainId, DomainId>{a, a + 1};
    }
    return t.descendants_at(d, level);
  };
  if (inside_ != kNone) {
    std::tie(cut.first, cut.last) = span(inside_);
    // A domain holding the inside one is cut by it.
    if (t.domain(inside_).level > level) cut.inexact.push_back(cut.first);
  }
  prepare();
  for (const Range& r : excluded_) {
    auto [from, to] = span(r.domain);
    for (DomainId d = std::max(from, cut.first); d < std::min(to, cut.last); ++d) cut.inexact.push_back(d);
  }
  std::sort(cut.inexact.begin(), cut.inexact.end());
  cut.inexact.erase(std::unique(cut.inexact.begin(), cut.inexact.end()), cut.inexact.end());
  return cut;
}

bool CapacityView::by_domains() const {
  if (simple_) return true;
  if (filtered_ || !classes_.empty()) return false;
  if (!tenant_rule_) return true;
  const Occupancy& occ = *occupancy_;
  const DomainId root = topology().root();
  return occ.tenanted_free_in(root) == (tenant_ == kNone ? 0 : occ.tenant_free_in(root, tenant_));
}

namespace {

// Best-fit order: the fewest units, then the busiest parent, then id.
using Fit = FitIndex::Entry;

void keep_best(std::vector<Fit>& best, const Fit& fit, std::size_t limit) {
  if (best.size() == limit && !(fit < best.back())) return;
  best.insert(std::upper_bound(best.begin(), best.end(), fit), fit);
  if (best.size() > limit) best.pop_back();
}

}  // namespace

std::vector<DomainId> CapacityView::tightest(LevelIndex level, std::uint32_t units, std::size_t limit) const {
  const Topology& t = topology();
  std::vector<Fit> best;
  auto parent_count = [&](DomainId d) {
    DomainId p = t.domain(d).parent;
    return p == kNone || p == t.root() ? 0u : count(p);
  };
  auto consider = [&](DomainId d) {
    const std::uint32_t c = count(d);
    if (c >= units && units > 0) keep_best(best, {c, parent_count(d), d}, limit);
  };
  auto done = [&]() {
    std::vector<DomainId> out;
    for (const Fit& f : best) out.push_back(f.domain);
    return out;
  };
  if (limit == 0) return {};
  if (level == 0 || !by_domains()) {
    auto [first, last] = t.domains_at(level);
    for (DomainId d = first; d < last; ++d) consider(d);
    return done();
  }
  if (inside_ != kNone) {
    // Only what lies inside (or, coarser, the one domain holding it).
    if (level <= t.domain(inside_).level) {
      consider(t.ancestor(inside_, level));
      return done();
    }
    auto [first, last] = t.descendants_at(inside_, level);
    for (DomainId d = first; d < last; ++d) consider(d);
    return done();
  }
  // Domains whose count or parent's count the exclusions change are
  // considered apart; the rest come from the index in order, skipping those
  // an exclusion covers (the view counts them 0).
  std::vector<DomainId> affected;
  for (const Range& e : excluded_) {
    const LevelIndex le = t.domain(e.domain).level;
    if (le > level) affected.push_back(t.ancestor(e.domain, level));
    if (level >= 2 && le > level - 1) {
      const Domain& p = t.domain(t.ancestor(e.domain, level - 1));
      for (std::uint32_t c = 0; c < p.child_count; ++c) affected.push_back(p.first_child + c);
    }
  }
  std::sort(affected.begin(), affected.end());
  affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
  for (DomainId d : affected) consider(d);
  std::size_t taken = 0;
  occupancy_->fit_index().visit(*occupancy_, level, whole_nodes_, units, [&](const Fit& f) {
    if (std::binary_search(affected.begin(), affected.end(), f.domain)) return true;
    if (count(f.domain) != f.count) return true;  // inside an excluded domain
    keep_best(best, f, limit);
    return ++taken < limit;
  });
  return done();
}

void CapacityView::materialize() {
  const std::size_t n = topology().accelerators().size();
  usable_.assign(n, 0);
  for (std::uint32_t a = 0; a < n; ++a) usable_[a] = usable(a) ? 1 : 0;
  filtered_ = true;
  simple_ = false;
  recount();
}

void CapacityView::recount() {
  const Topology& t = topology();
  free_.assign(t.domain_count(), 0);
  free_nodes_.assign(t.domain_count(), 0);
  auto [first_node, last_node] = t.domains_at(t.host_level());
  for (DomainId n = first_node; n < last_node; ++n) {
    const Domain& node = t.domain(n);
    std::uint32_t up = 0;
    for (std::uint32_t a = node.accel_begin; a < node.accel_end; ++a) up += usable_[a];
    free_[n] = up;
    free_nodes_[n] = (up == node.accelerator_count() && up > 0) ? 1u : 0u;
  }
  for (LevelIndex l = t.host_level(); l-- > 0;) {
    auto [first, last] = t.domains_at(l);
    for (DomainId d = first; d < last; ++d) {
      const Domain& dom = t.domain(d);
      for (std::uint32_t c = 0; c < dom.child_count; ++c) {
        free_[d] += free_[dom.first_child + c];
        free_nodes_[d] += free_nodes_[dom.first_child + c];
      }
    }
  }
}

}  // namespace topoplan
