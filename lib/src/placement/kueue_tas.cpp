// Kueue's TAS assignment (see kueue_tas.hpp). Read in kubernetes-sigs/kueue at
// ff69552e79ad; functions named below are in pkg/cache/scheduler/
// tas_flavor_snapshot.go unless tas_balanced_placement.go or
// tas_topology_tree.go is named. The code is written here; what follows is
// the rules it implements, in Kueue's words where they are Kueue's.
//
// Phase 1, capacity (fillInCounts, fillInCountsHelper). Every leaf has the
// pods that fit on it, whether the leader fits and the pods that fit beside
// the leader. A parent sums its children; with a leader, its "with leader"
// count is the sum less the smallest leader penalty (pods - pods with leader)
// among the children where the leader fits, and it can host the leader when
// any child can. At the slice level a domain holds pods / slice size slices;
// above it, the sum of its children's. With several slice layers, a child at
// a constrained level contributes only whole multiples of that layer's size.
//
// Phase 2a, the level and its domains (findLevelWithFitDomains). The domains
// of the requested level are sorted (sortedDomainsWithLeader): leader first,
// then preferred-affinity score (TASRespectNodeAffinityPreferred), then
// slices descending (BestFit) or ascending (LeastFreeCapacity), then pods
// ascending, then level values. BestFit takes, among the domains that hold
// the request, the first with the fewest slices (findBestFitDomainBy; only
// within the top affinity tier); LeastFreeCapacity the first that holds it.
// Nothing holds it: required fails; preferred retries one level up; at the
// top (and unconstrained at once) domains are taken in order, each whole,
// the leader's first (prioritizeLeaderDomain), and with BestFit the one that
// completes the request is the best fit of those left ("optimize the last
// domain").
//
// Phase 2b, descent (updateCountsToMinimumGeneric). Above the slice level the
// children of all chosen domains are pooled, sorted and filled the same way;
// at and below it each domain's share goes to its own children, in slices of
// the layer's size there (else single pods).
//
// Balanced placement (tas_balanced_placement.go, TASBalancedPlacement, for
// preferred requests only): among the domains one level above the preferred
// one, each one whose children hold the request, the threshold is the most
// slices every used child can get; the best threshold (then the fewest
// children) wins, its children below the threshold are pruned, a minimal set
// of children (fewest, then least capacity; entropy decides between
// balanced candidates) gets the threshold each and the rest is spread. When
// no threshold is positive, or a step fails, BestFit decides.
#include "topoplan/placement/kueue_tas.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <span>

#include <fmt/format.h>

namespace topoplan::kueue {

namespace {

constexpr std::uint32_t kNo = 0xffffffffu;

}  // namespace

Tree::Tree(std::vector<std::string> level_keys) : level_keys_(std::move(level_keys)) {
  hostname_leaves_ = !level_keys_.empty() && level_keys_.back() == kHostnameLabel;
  per_level_.resize(level_keys_.size());
}

std::uint32_t Tree::add_leaf(const std::vector<std::string>& values) {
  // Kueue keys a hostname leaf by the hostname alone (topologyTree.addNode):
  // a second node with that hostname adds its capacity to the first.
  std::uint32_t parent = kNo;
  const std::size_t levels = level_keys_.size();
  std::string id;
  for (std::size_t l = 0; l < levels; ++l) {
    if (l) id += ',';
    id += values[l];
    const bool leaf = l + 1 == levels;
    std::string key = leaf && hostname_leaves_ ? "leaf\n" + values[l] : fmt::format("{}\n{}", l, id);
    auto [it, fresh] = by_id_.try_emplace(key, static_cast<std::uint32_t>(domains_.size()));
    if (fresh) {
      Domain d;
      d.level = static_cast<std::uint32_t>(l);
      d.parent = parent;
      d.values.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(l + 1));
      d.id = leaf && hostname_leaves_ ? values[l] : id;
      if (leaf) {
        d.leaf = static_cast<std::uint32_t>(leaves_.size());
        leaves_.push_back(it->second);
      }
      domains_.push_back(std::move(d));
      if (parent != kNo) domains_[parent].children.push_back(it->second);
      per_level_[l].push_back(it->second);
    }
    if (leaf) return domains_[it->second].leaf;
    parent = it->second;
  }
  return kNo;  // no levels: unreachable for a Topology, which has 1 to 16
}

void Tree::finish() {
  if (finished_) return;
  finished_ = true;
  for (auto& level : per_level_) {
    std::vector<std::uint32_t> sorted = level;
    std::sort(sorted.begin(), sorted.end(),
              [&](std::uint32_t a, std::uint32_t b) { return domains_[a].values < domains_[b].values; });
    for (std::uint32_t i = 0; i < sorted.size(); ++i) domains_[sorted[i]].rank = i;
  }
  rank_.resize(domains_.size());
  parent_.resize(domains_.size());
  for (std::uint32_t d = 0; d < domains_.size(); ++d) {
    rank_[d] = domains_[d].rank;
    parent_[d] = domains_[d].parent;
  }
}

namespace {

// Per-run state of a domain (domainState). Counts are 64-bit where Kueue's
// are 32-bit, so that nodes of unknown capacity cannot overflow a sum.
struct State {
  std::int64_t pods = 0;
  std::int64_t slices = 0;
  std::int64_t pods_wl = 0;    // podCountWithLeader
  std::int64_t slices_wl = 0;  // sliceCountWithLeader
  std::int64_t leaders = 0;    // leaderCount
  std::int64_t affinity = 0;   // affinityScore
};

// A domain of the run: the tree's domains, then copies made by balanced
// placement (cloneDomains), each with a state of its own.
struct Node {
  std::uint32_t level = 0;
  std::uint32_t parent = kNo;
  std::vector<std::uint32_t> children;
  std::uint32_t origin = 0;  // the tree domain it is (a copy of)
};

}  // namespace

// States are kept between runs and stamped with the run that wrote them; a
// state of an earlier run reads as a fresh one (zero, or from the counts).
struct Workspace::Impl {
  std::vector<State> state;
  std::vector<std::uint64_t> stamp;
  std::vector<Node> copies;  // domain tree.domain_count() + i is copies[i]
  std::uint64_t run = 0;
};

struct CountIndex::Impl {
  // Per level, (pods, rank) of each domain; per level, rank -> domain.
  std::vector<std::set<std::pair<std::int64_t, std::uint32_t>>> order;
  std::vector<std::vector<std::uint32_t>> by_rank;
  std::vector<std::int64_t> pods;  // per domain, as in `order`
  std::vector<std::uint32_t> level;
  std::vector<std::uint32_t> rank;
  // Counts set but not yet in `order`.
  std::vector<std::int64_t> want;
  std::vector<std::uint32_t> dirty;
  std::vector<std::uint8_t> flagged;
};

CountIndex::CountIndex(const Tree& tree) : impl_(std::make_unique<Impl>()) {
  Impl& x = *impl_;
  x.order.resize(tree.levels());
  x.by_rank.resize(tree.levels());
  x.pods.assign(tree.domain_count(), 0);
  x.want.assign(tree.domain_count(), 0);
  x.flagged.assign(tree.domain_count(), 0);
  x.level.resize(tree.domain_count());
  x.rank.resize(tree.domain_count());
  for (std::uint32_t l = 0; l < tree.levels(); ++l) {
    x.by_rank[l].resize(tree.at_level(l).size());
    for (std::uint32_t d : tree.at_level(l)) {
      x.level[d] = l;
      x.rank[d] = tree.rank(d);
      x.by_rank[l][tree.rank(d)] = d;
      x.order[l].emplace(0, tree.rank(d));
    }
  }
}

void CountIndex::set(std::uint32_t d, std::int64_t pods) {
  Impl& x = *impl_;
  x.want[d] = pods;
  if (x.flagged[d]) return;
  x.flagged[d] = 1;
  x.dirty.push_back(d);
}

const CountIndex::Impl& CountIndex::impl() const {
  Impl& x = *impl_;
  for (std::uint32_t d : x.dirty) {
    x.flagged[d] = 0;
    const std::int64_t pods = x.want[d];
    if (x.pods[d] == pods) continue;
    auto& order = x.order[x.level[d]];
    // The same tree node, re-keyed: no allocation per change.
    if (auto node = order.extract({x.pods[d], x.rank[d]})) {
      node.value().first = pods;
      order.insert(std::move(node));
    } else {
      order.emplace(pods, x.rank[d]);
    }
    x.pods[d] = pods;
  }
  x.dirty.clear();
  return x;
}

CountIndex::~CountIndex() = default;
CountIndex::CountIndex(CountIndex&&) noexcept = default;
CountIndex& CountIndex::operator=(CountIndex&&) noexcept = default;

Workspace::Workspace() : impl_(std::make_unique<Impl>()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

namespace {

enum class Unit { pods, slices };

class Run {
 public:
  Run(const Tree& tree, Workspace::Impl& ws, const std::vector<LeafFit>* fits, const std::vector<std::int64_t>* counts,
      const CountIndex::Impl* index, const Request& request, const Gates& gates, const Exclusions& exclusions,
      const std::string& topology_name)
      : tree_(tree), ws_(ws), fits_(fits), counts_(counts), index_(index), request_(request), gates_(gates),
        ex_(exclusions), name_(topology_name) {}

  Assignment run();

 private:
  // --- the domain graph: the tree's domains, then copies ------------------
  bool copied(std::uint32_t d) const { return d >= tree_.domain_count(); }
  const Node& copy(std::uint32_t d) const { return ws_.copies[d - tree_.domain_count()]; }
  std::uint32_t level(std::uint32_t d) const { return copied(d) ? copy(d).level : tree_.domain(d).level; }
  const std::vector<std::uint32_t>& children(std::uint32_t d) const {
    return copied(d) ? copy(d).children : tree_.domain(d).children;
  }
  const Tree::Domain& origin(std::uint32_t d) const { return tree_.domain(copied(d) ? copy(d).origin : d); }
  std::uint32_t rank(std::uint32_t d) const { return tree_.rank(copied(d) ? copy(d).origin : d); }
  // A domain's state in this run: from the counts, or zero, until written.
  State& st(std::uint32_t d) const {
    if (ws_.stamp[d] != ws_.run) {
      ws_.stamp[d] = ws_.run;
      State& s = ws_.state[d];
      s = State();
      if (counts_) s.pods = s.slices = s.pods_wl = s.slices_wl = (*counts_)[d];
    }
    return ws_.state[d];
  }

  std::uint32_t clone(std::uint32_t d, std::uint32_t parent);
  std::vector<std::uint32_t> clone_all(const std::vector<std::uint32_t>& ds);

  // --- Kueue's pieces -------------------------------------------------------
  bool best_fit() const { return !least_free_capacity(); }
  bool least_free_capacity() const { return unconstrained_ && gates_.profile_mixed; }
  int compare_values(std::uint32_t a, std::uint32_t b) const;
  bool before_with_leader(std::uint32_t a, std::uint32_t b, bool lfc) const;
  std::vector<std::uint32_t> sorted_with_leader(std::vector<std::uint32_t> ds, bool lfc) const;
  bool before_plain(std::uint32_t a, std::uint32_t b, bool lfc) const;
  std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> ds, bool lfc) const;
  std::optional<std::string> greedy_without_leader(std::uint32_t search, std::int64_t slice_count,
                                                   std::uint32_t& fit_level, std::vector<std::uint32_t>& out);
  std::optional<std::string> find_level_indexed(std::uint32_t search, std::uint32_t& fit_level,
                                                std::vector<std::uint32_t>& out);
  std::span<const std::uint32_t> top_affinity_tier(std::span<const std::uint32_t> ds) const;
  std::uint32_t best_fit_by(std::span<const std::uint32_t> ds, std::int64_t needed, Unit unit,
                            std::int64_t leaders) const;
  std::string not_fit(std::int64_t fit, std::int64_t total) const;
  std::string multi_layer_not_fit(std::uint32_t level, std::int64_t count) const;
  std::string reason_or_multi(std::uint32_t level, std::int64_t fit, std::int64_t total) const;

  void fill_counts();
  void fill_up(std::uint32_t d, std::uint32_t lvl, const std::map<std::uint32_t, std::int64_t>& inner,
               bool leader_required);
  std::optional<std::string> find_level(std::uint32_t search, std::uint32_t& fit_level,
                                        std::vector<std::uint32_t>& out);
  std::vector<std::uint32_t> prioritize_leader(std::vector<std::uint32_t> ds, std::int64_t count,
                                               std::int64_t leaders, std::int64_t slice_size, bool slices) const;
  std::vector<std::uint32_t> distribute(std::vector<std::uint32_t> ds, std::int64_t count, std::int64_t leaders,
                                        std::int64_t slice_size, bool slices);
  std::vector<std::uint32_t> lower(const std::vector<std::uint32_t>& ds) const;

  // --- balanced placement ---------------------------------------------------
  struct Greedy {
    bool fits = false;
    std::int64_t domains = 0;
    std::uint32_t last_with_leader = kNo;
    std::uint32_t last = kNo;
  };
  Greedy greedy(const std::vector<std::uint32_t>& ds, std::int64_t slices, std::int64_t leaders) const;
  std::vector<std::uint32_t> optimal_set(const std::vector<std::uint32_t>& ds, std::int64_t slices,
                                         std::int64_t leaders, bool by_entropy) const;
  double entropy(std::uint32_t d) const;
  int compare_capacity_entropy(std::uint32_t a, std::uint32_t b) const;
  void clear_state(std::uint32_t d);
  void clear_leader(std::uint32_t d);
  void prune_node(std::uint32_t d, std::int64_t threshold, bool leader_required);
  void prune(const std::vector<std::uint32_t>& ds, std::int64_t threshold, bool leader_required);
  std::pair<std::vector<std::uint32_t>, std::int64_t> balanced_domains();
  std::optional<std::string> apply_balanced(std::int64_t threshold, std::vector<std::uint32_t>& current,
                                            std::uint32_t& fit_level);
  std::optional<std::string> place_balanced(std::vector<std::uint32_t>& ds, std::int64_t threshold);

  const Tree& tree_;
  Workspace::Impl& ws_;
  const std::vector<LeafFit>* fits_;          // per leaf; null with counts
  const std::vector<std::int64_t>* counts_;   // pods per domain, or null
  const CountIndex::Impl* index_;             // the counts by level, or null
  const Request& request_;
  const Gates& gates_;
  const Exclusions& ex_;
  const std::string& name_;


  std::int64_t count_ = 0;
  std::int64_t leaders_ = 0;
  std::int64_t slice_size_ = 1;
  std::uint32_t requested_level_ = 0;
  std::uint32_t slice_level_ = 0;
  bool required_ = false;
  bool unconstrained_ = false;
  std::map<std::uint32_t, std::int64_t> size_at_level_;  // inner slice layers (buildSliceSizeAtLevel)
  std::vector<SliceLayer> multi_layers_;                // all layers, when there are inner ones
};

std::uint32_t Run::clone(std::uint32_t d, std::uint32_t parent) {
  auto id = static_cast<std::uint32_t>(tree_.domain_count() + ws_.copies.size());
  Node n;
  n.level = level(d);
  n.parent = parent;
  n.origin = copied(d) ? copy(d).origin : d;
  const std::vector<std::uint32_t> kids_of_d = children(d);
  const State from = st(d);
  ws_.copies.push_back(std::move(n));
  ws_.state.push_back(from);
  ws_.stamp.push_back(ws_.run);
  std::vector<std::uint32_t> kids;
  for (std::uint32_t c : kids_of_d) kids.push_back(clone(c, id));
  ws_.copies[id - tree_.domain_count()].children = std::move(kids);
  return id;
}

std::vector<std::uint32_t> Run::clone_all(const std::vector<std::uint32_t>& ds) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t d : ds) out.push_back(clone(d, kNo));
  return out;
}

// compareDomainLevelValues: level values compared as strings, level by level.
int Run::compare_values(std::uint32_t a, std::uint32_t b) const {
  std::uint32_t ra = rank(a), rb = rank(b);
  return ra < rb ? -1 : ra > rb ? 1 : 0;
}

bool Run::before_with_leader(std::uint32_t a, std::uint32_t b, bool lfc) const {
  const State& x = st(a);
  const State& y = st(b);
  if (x.leaders != y.leaders) return x.leaders > y.leaders;
  if (gates_.respect_affinity_preferred && x.affinity != y.affinity) return x.affinity > y.affinity;
  if (x.slices_wl != y.slices_wl) return lfc ? x.slices_wl < y.slices_wl : x.slices_wl > y.slices_wl;
  if (x.pods_wl != y.pods_wl) return x.pods_wl < y.pods_wl;
  return compare_values(a, b) < 0;
}

std::vector<std::uint32_t> Run::sorted_with_leader(std::vector<std::uint32_t> ds, bool lfc) const {
  std::sort(ds.begin(), ds.end(), [&](std::uint32_t a, std::uint32_t b) { return before_with_leader(a, b, lfc); });
  return ds;
}

bool Run::before_plain(std::uint32_t a, std::uint32_t b, bool lfc) const {
  const State& x = st(a);
  const State& y = st(b);
  if (gates_.respect_affinity_preferred && x.affinity != y.affinity) return x.affinity > y.affinity;
  if (x.slices != y.slices) return lfc ? x.slices < y.slices : x.slices > y.slices;
  if (x.pods != y.pods) return x.pods < y.pods;
  return compare_values(a, b) < 0;
}

std::vector<std::uint32_t> Run::sorted(std::vector<std::uint32_t> ds, bool lfc) const {
  std::sort(ds.begin(), ds.end(), [&](std::uint32_t a, std::uint32_t b) { return before_plain(a, b, lfc); });
  return ds;
}

// The greedy walk of findLevelWithFitDomains without a leader: the level's
// domains in sortedDomains order, each whole, with BestFit the best fit of
// those left for the last. (Without a leader sortedDomainsWithLeader gives
// the same order.) Domains that hold nothing change nothing on that walk and
// are left out; the others come off a heap, so a request that a few domains
// complete costs a pass over the level, not a sort of it.
std::optional<std::string> Run::greedy_without_leader(std::uint32_t search, std::int64_t slice_count,
                                                      std::uint32_t& fit_level, std::vector<std::uint32_t>& out) {
  const bool lfc = least_free_capacity();
  std::vector<std::uint32_t> heap;
  for (std::uint32_t d : tree_.at_level(search))
    if (st(d).slices > 0) heap.push_back(d);
  auto later = [&](std::uint32_t a, std::uint32_t b) { return before_plain(b, a, lfc); };
  std::make_heap(heap.begin(), heap.end(), later);
  std::vector<std::uint32_t> results;
  std::int64_t remaining = slice_count;
  while (remaining > 0 && !heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    std::uint32_t d = heap.back();
    heap.pop_back();
    if (best_fit() && st(d).slices >= remaining) {
      // findBestFitDomainBy over d and the rest: the fewest slices that hold
      // the remainder, first in order, in d's affinity tier.
      std::uint32_t best = d;
      for (std::uint32_t x : heap) {
        if (gates_.respect_affinity_preferred && st(x).affinity != st(d).affinity) continue;
        if (st(x).slices < remaining) continue;
        if (st(x).slices < st(best).slices || (st(x).slices == st(best).slices && before_plain(x, best, lfc))) best = x;
      }
      d = best;
    }
    results.push_back(d);
    remaining -= st(d).slices;
  }
  if (remaining > 0) return reason_or_multi(search, slice_count - remaining, slice_count);
  fit_level = search;
  out = std::move(results);
  return std::nullopt;
}

// topAffinityTierDomains: BestFit never trades a higher affinity for a tighter fit.
std::span<const std::uint32_t> Run::top_affinity_tier(std::span<const std::uint32_t> ds) const {
  if (!gates_.respect_affinity_preferred || ds.empty()) return ds;
  std::int64_t score = st(ds.front()).affinity;
  std::size_t n = 0;
  while (n < ds.size() && st(ds[n]).affinity == score) ++n;
  return ds.first(n);
}

// findBestFitDomainBy: the first domain with the smallest count that still
// holds `needed` (and the leaders), else the first.
std::uint32_t Run::best_fit_by(std::span<const std::uint32_t> ds, std::int64_t needed, Unit unit,
                               std::int64_t leaders) const {
  std::span<const std::uint32_t> candidates = top_affinity_tier(ds);
  std::uint32_t best = candidates.front();
  std::int64_t best_count = std::numeric_limits<std::int64_t>::max();
  bool found = false;
  for (std::uint32_t d : candidates) {
    const State& s = st(d);
    if (s.leaders < leaders) continue;
    std::int64_t c = unit == Unit::slices ? (leaders > 0 ? s.slices_wl : s.slices) : (leaders > 0 ? s.pods_wl : s.pods);
    if (c >= needed && c < best_count) {
      best = d;
      best_count = c;
      found = true;
    }
  }
  return found ? best : candidates.front();
}

std::string exclusion_text(const Exclusions& e) {
  std::vector<std::string> reasons;
  if (e.node_selector > 0) reasons.push_back(fmt::format("nodeSelector: {}", e.node_selector));
  if (e.affinity > 0) reasons.push_back(fmt::format("affinity: {}", e.affinity));
  for (const auto& [taint, n] : e.taints) reasons.push_back(fmt::format("taint \"{}\": {}", taint, n));
  for (const auto& [resource, n] : e.resources) reasons.push_back(fmt::format("resource \"{}\": {}", resource, n));
  if (reasons.empty()) return "";
  std::sort(reasons.begin(), reasons.end());
  return fmt::format(". Total nodes: {}; excluded: {}", e.total, fmt::join(reasons, ", "));
}

// notFitMessage.
std::string Run::not_fit(std::int64_t fit, std::int64_t total) const {
  const char* unit = slice_size_ == 1 ? "pod" : "slice";
  std::string text = fit == 0 ? fmt::format("topology \"{}\" doesn't allow to fit any of {} {}(s)", name_, total, unit)
                              : fmt::format("topology \"{}\" allows to fit only {} out of {} {}(s)", name_, fit,
                                            total, unit);
  return text + exclusion_text(ex_);
}

// multiLayerNotFitMessage: per layer, the slices the domain of the level with
// the most slices holds (ties: the smallest domain id).
std::string Run::multi_layer_not_fit(std::uint32_t lvl, std::int64_t count) const {
  std::string text = fmt::format("topology \"{}\" doesn't allow to fit", name_);
  std::uint32_t best = kNo;
  for (std::uint32_t d : tree_.at_level(lvl)) {
    if (best == kNo || st(d).slices > st(best).slices ||
        (st(d).slices == st(best).slices && origin(d).id < origin(best).id))
      best = d;
  }
  if (best == kNo) return text;
  auto level_index = [&](const std::string& key) -> std::optional<std::uint32_t> {
    const auto& keys = tree_.level_keys();
    auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) return std::nullopt;
    return static_cast<std::uint32_t>(it - keys.begin());
  };
  for (const SliceLayer& layer : multi_layers_) {
    auto target = level_index(layer.topology);
    if (!target) continue;
    // countSlicesInSubtree
    std::int64_t fit = 0;
    std::vector<std::uint32_t> stack{best};
    while (!stack.empty()) {
      std::uint32_t d = stack.back();
      stack.pop_back();
      if (level(d) == *target) {
        fit += st(d).pods / layer.size;
        continue;
      }
      for (std::uint32_t c : children(d)) stack.push_back(c);
    }
    text += fmt::format("; {}/{} slice(s) fit on level {}", fit, count / layer.size, layer.topology);
  }
  return text + exclusion_text(ex_);
}

std::string Run::reason_or_multi(std::uint32_t lvl, std::int64_t fit, std::int64_t total) const {
  if (!multi_layers_.empty()) return multi_layer_not_fit(lvl, count_);
  return not_fit(fit, total);
}

// fillInCounts: leaves from the adapter's fits, then the roll-up.
void Run::fill_counts() {
  if (counts_) return;  // the counts are the roll-up
  for (std::uint32_t leaf = 0; leaf < tree_.leaf_count(); ++leaf) {
    const LeafFit& f = (*fits_)[leaf];
    if (!f.feasible) continue;
    State& s = st(tree_.leaf_domain(leaf));
    s.affinity += f.affinity;
    s.pods = f.pods;
    s.leaders = leaders_ > 0 && f.leader ? 1 : 0;
    s.pods_wl = leaders_ > 0 ? f.pods_with_leader : f.pods;
  }
  for (std::uint32_t root : tree_.at_level(0)) fill_up(root, 0, size_at_level_, leaders_ > 0);
}

// fillInCountsHelper.
void Run::fill_up(std::uint32_t d, std::uint32_t lvl, const std::map<std::uint32_t, std::int64_t>& inner,
                  bool leader_required) {
  State& s = st(d);
  if (children(d).empty()) {
    if (lvl == slice_level_) {
      s.slices = s.pods / slice_size_;
      s.slices_wl = s.pods_wl / slice_size_;
    }
    return;
  }
  std::int64_t pods = 0, slices = 0, leaders = 0, affinity = 0;
  bool contributor = false;
  std::int64_t min_pod_penalty = std::numeric_limits<std::int64_t>::max();
  std::int64_t min_slice_penalty = std::numeric_limits<std::int64_t>::max();
  auto it = inner.find(lvl + 1);
  for (std::uint32_t c : children(d)) {
    fill_up(c, lvl + 1, inner, leader_required);
    const State& cs = st(c);
    std::int64_t cp = cs.pods, cpw = cs.pods_wl;
    if (it != inner.end()) {
      cp = cp / it->second * it->second;
      cpw = cpw / it->second * it->second;
    }
    pods += cp;
    slices += cs.slices;
    if (!leader_required || cs.leaders > 0) {
      contributor = true;
      min_pod_penalty = std::min(min_pod_penalty, cp - cpw);
      min_slice_penalty = std::min(min_slice_penalty, cs.slices - cs.slices_wl);
    }
    leaders = std::max(leaders, cs.leaders);
    affinity += cs.affinity;
  }
  State& t = s;
  t.pods = pods;
  std::int64_t slices_wl = 0;
  if (contributor) {
    t.pods_wl = pods - min_pod_penalty;
    slices_wl = slices - min_slice_penalty;
  } else {
    t.pods_wl = 0;
  }
  t.leaders = leaders;
  t.affinity = affinity;
  if (lvl == slice_level_) {
    slices = t.pods / slice_size_;
    slices_wl = t.pods_wl / slice_size_;
  }
  t.slices = slices;
  t.slices_wl = slices_wl;
}

std::vector<std::uint32_t> Run::lower(const std::vector<std::uint32_t>& ds) const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t d : ds) out.insert(out.end(), children(d).begin(), children(d).end());
  return out;
}

// prioritizeLeaderDomain: the first domain that can host the leader and keep
// enough capacity for the workers moves to the front.
std::vector<std::uint32_t> Run::prioritize_leader(std::vector<std::uint32_t> ds, std::int64_t count,
                                                  std::int64_t leaders, std::int64_t slice_size,
                                                  bool slices) const {
  if (leaders == 0 || ds.size() < 2) return ds;
  std::int64_t required = slices ? count / slice_size : count;
  std::int64_t available = 0;
  for (std::uint32_t d : ds) available += slices ? st(d).slices : st(d).pods;
  for (std::size_t i = 0; i < ds.size(); ++i) {
    const State& s = st(ds[i]);
    if (s.leaders < leaders) continue;
    std::int64_t penalty = slices ? s.slices - s.slices_wl : s.pods - s.pods_wl;
    if (available - penalty < required) continue;
    if (i == 0) return ds;
    std::uint32_t d = ds[i];
    std::copy_backward(ds.begin(), ds.begin() + static_cast<std::ptrdiff_t>(i),
                       ds.begin() + static_cast<std::ptrdiff_t>(i + 1));
    ds[0] = d;
    return ds;
  }
  return ds;
}

// updateCountsToMinimumGeneric with consumeWithLeadersGeneric: hands `count`
// pods (or count / slice_size slices) and the leaders to `ds` in order; each
// domain's state becomes what it got. Empty when they do not suffice.
std::vector<std::uint32_t> Run::distribute(std::vector<std::uint32_t> ds, std::int64_t count, std::int64_t leaders,
                                           std::int64_t slice_size, bool slices) {
  ds = prioritize_leader(std::move(ds), count, leaders, slice_size, slices);
  std::vector<std::uint32_t> out;
  std::int64_t remaining = slices ? count / slice_size : count;
  std::int64_t remaining_leaders = leaders;
  const Unit unit = slices ? Unit::slices : Unit::pods;
  const std::int64_t factor = slices ? slice_size : 1;
  for (std::size_t i = 0; i < ds.size(); ++i) {
    std::uint32_t d = ds[i];
    if (remaining_leaders > 0) {
      auto with_leader = [&](std::uint32_t x) -> std::int64_t& { return slices ? st(x).slices_wl : st(x).pods_wl; };
      auto primary = [&](std::uint32_t x) -> std::int64_t& { return slices ? st(x).slices : st(x).pods; };
      if (best_fit() && with_leader(d) >= remaining && st(d).leaders >= remaining_leaders)
        d = best_fit_by(std::span<const std::uint32_t>(ds).subspan(i), remaining, unit, remaining_leaders);
      State& s = st(d);
      if (with_leader(d) >= remaining && s.leaders >= remaining_leaders) {
        primary(d) = remaining;
        s.leaders = remaining_leaders;
        s.pods = remaining * factor;
        out.push_back(d);
        return out;
      }
      if (with_leader(d) > remaining) with_leader(d) = remaining;
      if (s.leaders > remaining_leaders) s.leaders = remaining_leaders;
      primary(d) = with_leader(d);
      s.pods = with_leader(d) * factor;
      remaining_leaders -= s.leaders;
      remaining -= with_leader(d);
      out.push_back(d);
      continue;
    }
    if (slices) {
      if (best_fit() && st(d).slices >= remaining)
        d = best_fit_by(std::span<const std::uint32_t>(ds).subspan(i), remaining, Unit::slices, 0);
      State& s = st(d);
      s.leaders = 0;
      if (s.slices >= remaining) {
        s.pods = remaining * slice_size;
        s.slices = remaining;
        out.push_back(d);
        return out;
      }
      s.pods = s.slices * slice_size;
      remaining -= s.slices;
      out.push_back(d);
      continue;
    }
    if (best_fit() && st(d).pods >= remaining)
      d = best_fit_by(std::span<const std::uint32_t>(ds).subspan(i), remaining, Unit::pods, 0);
    State& s = st(d);
    s.leaders = 0;
    if (s.pods >= remaining) {
      s.pods = remaining;
      out.push_back(d);
      return out;
    }
    remaining -= s.pods;
    out.push_back(d);
  }
  return {};  // Kueue logs "code assumptions violated"
}

// findLevelWithFitDomains.
std::optional<std::string> Run::find_level(std::uint32_t search, std::uint32_t& fit_level,
                                           std::vector<std::uint32_t>& out) {
  const std::vector<std::uint32_t>& at = tree_.at_level(search);
  if (at.empty()) return fmt::format("no topology domains at level: {}", tree_.level_keys()[search]);
  if (index_ && counts_ && leaders_ == 0) return find_level_indexed(search, fit_level, out);
  // Kueue sorts the level's domains (sortedDomainsWithLeader) and, when one
  // domain will do, takes the first or the best fit in that order: the same
  // domain is found by a scan, and the sort waits until several are needed.
  const bool lfc = least_free_capacity();
  auto before = [&](std::uint32_t a, std::uint32_t b) { return before_with_leader(a, b, lfc); };
  std::uint32_t top = *std::min_element(at.begin(), at.end(), before);
  const std::int64_t slice_count = count_ / slice_size_;
  if (best_fit() && st(top).slices_wl >= slice_count && st(top).leaders >= leaders_) {
    // findBestFitDomainBy: the fewest slices that hold them, first in order,
    // within the top domain's affinity tier.
    const std::int64_t tier = st(top).affinity;
    for (std::uint32_t d : at) {
      const State& s = st(d);
      if (gates_.respect_affinity_preferred && s.affinity != tier) continue;
      if (s.leaders < leaders_) continue;
      const std::int64_t c = leaders_ > 0 ? s.slices_wl : s.slices;
      if (c < slice_count) continue;
      const State& b = st(top);
      const std::int64_t cb = leaders_ > 0 ? b.slices_wl : b.slices;
      if (c < cb || (c == cb && before(d, top))) top = d;
    }
  }

  if (lfc) {
    std::optional<std::uint32_t> first;
    for (std::uint32_t d : at) {
      std::int64_t capacity = st(d).slices;
      if (leaders_ > 0) {
        if (st(d).leaders < leaders_) continue;
        capacity = st(d).slices_wl;
      }
      if (capacity >= slice_count && (!first || before(d, *first))) first = d;
    }
    if (first) {
      fit_level = search;
      out = {*first};
      return std::nullopt;
    }
    if (required_) return reason_or_multi(search, st(*std::max_element(at.begin(), at.end(), before)).pods, slice_count);
  }
  if (st(top).slices_wl < slice_count || st(top).leaders < leaders_) {
    if (required_) {
      if (gates_.respect_affinity_preferred) {
        const std::vector<std::uint32_t> domains = sorted_with_leader(at, lfc);
        for (std::size_t i = 1; i < domains.size(); ++i) {
          std::uint32_t d = domains[i];
          if (st(d).slices_wl >= slice_count && st(d).leaders >= leaders_) {
            fit_level = search;
            out = {best_fit_by(std::span<const std::uint32_t>(domains).subspan(i), slice_count, Unit::slices,
                               leaders_)};
            return std::nullopt;
          }
        }
      }
      return reason_or_multi(search, st(top).slices, slice_count);
    }
    if (search > 0 && !unconstrained_) return find_level(search - 1, fit_level, out);
    if (leaders_ == 0) return greedy_without_leader(search, slice_count, fit_level, out);

    std::vector<std::uint32_t> domains = sorted_with_leader(at, lfc);
    std::vector<std::uint32_t> results;
    std::int64_t remaining = slice_count;
    std::int64_t remaining_leaders = leaders_;
    domains = prioritize_leader(std::move(domains), count_, leaders_, slice_size_, true);
    std::size_t idx = 0;
    for (; remaining_leaders > 0 && idx < domains.size() && st(domains[idx]).leaders > 0; ++idx) {
      std::uint32_t d = domains[idx];
      if (best_fit() && st(domains[idx]).slices_wl >= remaining)
        d = best_fit_by(std::span<const std::uint32_t>(domains).subspan(idx), remaining, Unit::slices,
                        remaining_leaders);
      results.push_back(d);
      remaining_leaders -= st(d).leaders;
      remaining -= st(d).slices_wl;
    }
    if (remaining_leaders > 0) return reason_or_multi(search, leaders_ - remaining_leaders, slice_count);
    std::vector<std::uint32_t> rest = sorted(std::vector<std::uint32_t>(domains.begin() + static_cast<std::ptrdiff_t>(idx),
                                                                        domains.end()),
                                             least_free_capacity());
    for (std::size_t i = 0; remaining > 0 && i < rest.size(); ++i) {
      std::uint32_t d = rest[i];
      if (best_fit() && st(rest[i]).slices >= remaining)
        d = best_fit_by(std::span<const std::uint32_t>(rest).subspan(i), remaining, Unit::slices, 0);
      results.push_back(d);
      remaining -= st(d).slices;
    }
    if (remaining > 0) return reason_or_multi(search, slice_count - remaining, slice_count);
    fit_level = search;
    out = std::move(results);
    return std::nullopt;
  }
  fit_level = search;
  out = {top};
  return std::nullopt;
}

// find_level with the counts' index. With only counts (no leader, no slices,
// no affinity), a domain's slices are its pods and the sort orders are: BestFit
// by pods descending, LeastFreeCapacity ascending, then level values. So the
// first domain in order that holds the request (LeastFreeCapacity) and the
// tightest one that does (BestFit) are both the smallest count at least the
// request, the first by level values: a lookup in (pods, rank) order. The
// greedy walks are walks of that order.
std::optional<std::string> Run::find_level_indexed(std::uint32_t search, std::uint32_t& fit_level,
                                                   std::vector<std::uint32_t>& out) {
  const auto& order = index_->order[search];
  const auto& by_rank = index_->by_rank[search];
  const std::int64_t needed = count_;  // slice size 1
  const std::int64_t most = order.rbegin()->first;
  if (most >= needed) {
    fit_level = search;
    out = {by_rank[order.lower_bound({needed, 0})->second]};
    return std::nullopt;
  }
  if (required_) return reason_or_multi(search, most, needed);
  if (search > 0 && !unconstrained_) return find_level(search - 1, fit_level, out);
  std::vector<std::uint32_t> results;
  std::int64_t remaining = needed;
  if (least_free_capacity()) {
    // Ascending, each whole; domains holding nothing change nothing.
    for (auto it = order.lower_bound({1, 0}); remaining > 0 && it != order.end(); ++it) {
      results.push_back(by_rank[it->second]);
      remaining -= it->first;
    }
  } else {
    // Descending by pods, level values ascending among equals; the domain
    // that completes the request is the tightest left that does.
    auto group_end = order.end();
    while (remaining > 0 && group_end != order.begin()) {
      const std::int64_t pods = std::prev(group_end)->first;
      if (pods <= 0) break;
      auto group_begin = order.lower_bound({pods, 0});
      for (auto it = group_begin; remaining > 0 && it != group_end; ++it) {
        std::uint32_t d = by_rank[it->second];
        if (it->first >= remaining) {
          auto tight = order.lower_bound({remaining, 0});
          if (tight->first < pods) d = by_rank[tight->second];
        }
        results.push_back(d);
        remaining -= index_->pods[d];
      }
      group_end = group_begin;
    }
  }
  if (remaining > 0) return reason_or_multi(search, needed - remaining, needed);
  fit_level = search;
  out = std::move(results);
  return std::nullopt;
}

// --- balanced placement (tas_balanced_placement.go) -------------------------

// evaluateGreedyAssignment: whether greedy BestFit order holds the request,
// with how many domains, and the last domain used with and without leader.
Run::Greedy Run::greedy(const std::vector<std::uint32_t>& ds, std::int64_t slices, std::int64_t leaders) const {
  Greedy g;
  std::int64_t remaining = slices;
  std::int64_t remaining_leaders = leaders;
  std::vector<std::uint32_t> without;
  if (leaders > 0) {
    std::vector<std::uint32_t> with = sorted_with_leader(ds, false);
    std::size_t idx = 0;
    for (; remaining_leaders > 0 && idx < with.size() && st(with[idx]).leaders > 0; ++idx) {
      ++g.domains;
      g.last_with_leader = with[idx];
      remaining_leaders -= st(with[idx]).leaders;
      remaining -= st(with[idx]).slices_wl;
    }
    without = sorted(std::vector<std::uint32_t>(with.begin() + static_cast<std::ptrdiff_t>(idx), with.end()), false);
  } else {
    without = sorted(ds, false);
  }
  if (remaining_leaders > 0) return {};
  for (std::size_t i = 0; remaining > 0 && i < without.size() && st(without[i]).slices > 0; ++i) {
    ++g.domains;
    g.last = without[i];
    remaining -= st(without[i]).slices;
  }
  if (remaining > 0) return {};
  g.fits = true;
  return g;
}

// Go's math.Log2 (frexp, then log), so that equal entropies compare equal as in Kueue.
double go_log2(double x) {
  int exp = 0;
  double frac = std::frexp(x, &exp);
  if (frac == 0.5) return static_cast<double>(exp - 1);
  return std::log(frac) * (1 / std::log(2.0)) + static_cast<double>(exp);
}

// calculateDomainsEntropy over a domain's children; terms are summed in
// ascending order so that the same counts always give the same sum.
double Run::entropy(std::uint32_t d) const {
  std::vector<std::int64_t> pods;
  std::int64_t total = 0;
  for (std::uint32_t c : children(d)) {
    total += st(c).pods;
    if (st(c).pods > 0) pods.push_back(st(c).pods);
  }
  if (total == 0) return 0.0;
  std::sort(pods.begin(), pods.end());
  double e = 0;
  for (std::int64_t p : pods) {
    double pi = static_cast<double>(p) / static_cast<double>(total);
    e += -pi * go_log2(pi);
  }
  return e;
}

// compareDomainCapacityAndEntropy.
int Run::compare_capacity_entropy(std::uint32_t a, std::uint32_t b) const {
  if (st(a).leaders != st(b).leaders) return st(a).leaders > st(b).leaders ? -1 : 1;
  if (st(a).slices_wl != st(b).slices_wl) return st(a).slices_wl > st(b).slices_wl ? -1 : 1;
  double ea = entropy(a), eb = entropy(b);
  if (eb > ea) return 1;
  if (eb < ea) return -1;
  return compare_values(a, b);
}

// selectOptimalDomainSetToFit: among sets of as many domains as greedy needs,
// the first found (in the given order) that leaves the least capacity unused.
std::vector<std::uint32_t> Run::optimal_set(const std::vector<std::uint32_t>& ds, std::int64_t slices,
                                            std::int64_t leaders, bool by_entropy) const {
  Greedy g = greedy(ds, slices, leaders);
  if (!g.fits) return {};
  std::vector<std::uint32_t> ordered = ds;
  std::sort(ordered.begin(), ordered.end(), [&](std::uint32_t a, std::uint32_t b) {
    return by_entropy ? compare_capacity_entropy(a, b) < 0 : compare_values(a, b) < 0;
  });
  const auto n = static_cast<std::size_t>(g.domains);
  if (n == 0 || n > ordered.size()) return {};
  // placements[i][leaders left][pods left] = domains chosen, i domains used.
  using ByPods = std::map<std::int64_t, std::vector<std::uint32_t>>;
  std::vector<std::map<std::int64_t, ByPods>> placements(n + 1);
  placements.front().emplace(leaders, ByPods{{slices * slice_size_, {}}});
  for (std::uint32_t d : ordered) {
    const State& s = st(d);
    for (std::size_t i = n; i > 0; --i) {
      // Reads placements[i - 1] while writing placements[i]: distinct maps.
      for (const auto& [before_leaders, by_pods] : placements[i - 1]) {
        for (const auto& [before_pods, chosen] : by_pods) {
          if (before_leaders <= 0 && before_pods <= 0) continue;
          std::vector<std::uint32_t> next = chosen;
          next.push_back(d);
          if (before_leaders > 0 && s.leaders > 0) {
            auto& slot = placements[i][before_leaders - s.leaders];
            slot.try_emplace(before_pods - s.pods_wl, next);
          }
          if (s.slices > 0) placements[i][before_leaders].try_emplace(before_pods - s.pods, next);
        }
      }
    }
  }
  auto it = placements[n].find(0);
  if (it == placements[n].end()) return {};
  std::vector<std::uint32_t> best;
  std::int64_t best_left = std::numeric_limits<std::int64_t>::min();
  for (const auto& [left, chosen] : it->second)
    if (left > best_left && left <= 0) {
      best_left = left;
      best = chosen;
    }
  return best;
}

void Run::clear_state(std::uint32_t d) {
  std::int64_t affinity = st(d).affinity;
  st(d) = State();
  st(d).affinity = affinity;
  for (std::uint32_t c : children(d)) clear_state(c);
}

void Run::clear_leader(std::uint32_t d) {
  st(d).pods_wl = 0;
  st(d).slices_wl = 0;
  st(d).leaders = 0;
  for (std::uint32_t c : children(d)) clear_leader(c);
}

void Run::prune_node(std::uint32_t d, std::int64_t threshold, bool leader_required) {
  if (st(d).slices < threshold) {
    clear_state(d);
    return;
  }
  if (leader_required && st(d).leaders > 0 && st(d).slices_wl < threshold) clear_leader(d);
}

void Run::prune(const std::vector<std::uint32_t>& ds, std::int64_t threshold, bool leader_required) {
  for (std::uint32_t d : ds)
    for (std::uint32_t c : children(d)) prune_node(c, threshold, leader_required);
  for (std::uint32_t d : ds) {
    fill_up(d, requested_level_, {}, leader_required);
    prune_node(d, threshold, leader_required);
  }
}

// findBestDomainsForBalancedPlacement.
std::pair<std::vector<std::uint32_t>, std::int64_t> Run::balanced_domains() {
  const std::int64_t slice_count = count_ / slice_size_;
  std::vector<std::vector<std::uint32_t>> candidates;
  if (requested_level_ == 0) {
    candidates.push_back(tree_.at_level(0));
  } else {
    std::vector<std::uint32_t> higher = tree_.at_level(requested_level_ - 1);
    std::sort(higher.begin(), higher.end(), [&](std::uint32_t a, std::uint32_t b) { return compare_values(a, b) < 0; });
    for (std::uint32_t h : higher) candidates.push_back(children(h));
  }
  std::int64_t best_threshold = 0;
  std::int64_t best_domains = 0;
  std::vector<std::uint32_t> current;
  for (const std::vector<std::uint32_t>& siblings : candidates) {
    std::vector<std::uint32_t> copies = clone_all(siblings);
    std::vector<std::uint32_t> below = requested_level_ < slice_level_ ? lower(copies) : copies;
    Greedy g = greedy(below, slice_count, leaders_);
    if (!g.fits) continue;
    // balanceThresholdValue
    std::int64_t threshold = slice_count / g.domains;
    if (g.last_with_leader != kNo) threshold = std::min(threshold, st(g.last_with_leader).slices_wl);
    if (g.last != kNo) threshold = std::min(threshold, st(g.last).slices);
    std::int64_t with_reservation = threshold;
    if (leaders_ > 0 && g.last != kNo) with_reservation = std::min(threshold, st(g.last).slices_wl);
    if (threshold < best_threshold) continue;
    prune(copies, threshold, leaders_ > 0);
    Greedy after = greedy(copies, slice_count, leaders_);
    if (!after.fits && with_reservation < threshold) {
      if (with_reservation <= 0 || with_reservation < best_threshold) continue;
      threshold = with_reservation;
      copies = clone_all(siblings);
      prune(copies, threshold, leaders_ > 0);
      after = greedy(copies, slice_count, leaders_);
    }
    if (!after.fits) continue;
    if (threshold > best_threshold || (threshold == best_threshold && after.domains < best_domains)) {
      best_threshold = threshold;
      best_domains = after.domains;
      current = copies;
    }
  }
  return {current, best_threshold};
}

// placeSlicesOnDomainsBalanced.
std::optional<std::string> Run::place_balanced(std::vector<std::uint32_t>& ds, std::int64_t threshold) {
  const std::int64_t slice_count = count_ / slice_size_;
  std::vector<std::uint32_t> result = optimal_set(ds, slice_count, leaders_, false);
  if (result.empty()) return std::string("TAS Balanced Placement: Cannot find optimal domain set to fit the request");
  if (slice_count < static_cast<std::int64_t>(result.size()) * threshold)
    return std::string("TAS Balanced Placement: Not enough slices to meet the threshold");
  result = sorted_with_leader(std::move(result), false);
  std::int64_t extra_left = slice_count - static_cast<std::int64_t>(result.size()) * threshold;
  std::int64_t leaders_left = leaders_;
  for (std::uint32_t d : result) {
    State& s = st(d);
    std::int64_t extra = 0;
    if (leaders_left > 0) {
      extra = std::min(s.slices_wl - threshold, extra_left);
      s.leaders = 1;
      --leaders_left;
    } else if (extra_left > 0) {
      extra = std::min(s.slices - threshold, extra_left);
      s.leaders = 0;
    } else {
      s.leaders = 0;
    }
    s.pods = (threshold + extra) * slice_size_;
    s.slices = threshold + extra;
    s.slices_wl = s.slices;
    s.pods_wl = s.pods - s.leaders;
    extra_left -= extra;
  }
  if (extra_left > 0 || leaders_left > 0)
    return std::string("TAS Balanced Placement: Not all slices or leaders could be placed");
  ds = std::move(result);
  return std::nullopt;
}

// applyBalancedPlacementAlgorithm.
std::optional<std::string> Run::apply_balanced(std::int64_t threshold, std::vector<std::uint32_t>& current,
                                               std::uint32_t& fit_level) {
  const std::int64_t slice_count = count_ / slice_size_;
  if (requested_level_ < slice_level_) {
    std::vector<std::uint32_t> result = optimal_set(current, slice_count, leaders_, true);
    if (result.empty()) return std::string("TAS Balanced Placement: Cannot find optimal domain set to fit the request");
    current = lower(result);
    fit_level = requested_level_ + 1;
  } else {
    fit_level = requested_level_;
  }
  return place_balanced(current, threshold);
}

// findTopologyAssignment.
Assignment Run::run() {
  Assignment a;
  const TopologyRequest& tr = request_.topology;
  count_ = request_.count;
  leaders_ = request_.leader ? 1 : 0;
  const std::vector<std::string>& keys = tree_.level_keys();
  auto index_of = [&](const std::string& key) -> std::optional<std::uint32_t> {
    auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) return std::nullopt;
    return static_cast<std::uint32_t>(it - keys.begin());
  };
  // getSliceSizeWithSinglePodAsDefault
  const std::vector<SliceLayer>& layers = tr.slices;
  slice_size_ = 1;
  if (!layers.empty()) {
    if (layers.front().size <= 0) {
      a.reason = "slice topology requested, but slice size not provided";
      return a;
    }
    slice_size_ = layers.front().size;
  }
  required_ = tr.required.has_value();
  const bool slice_only = !tr.required && !tr.preferred && !layers.empty();
  unconstrained_ = tr.unconstrained || tr.implied || slice_only;
  // levelKeyWithImpliedFallback
  std::optional<std::string> key;
  if (tr.required) key = tr.required;
  else if (tr.preferred) key = tr.preferred;
  else if (slice_only) key = keys.front();
  else if (tr.unconstrained || tr.implied) key = keys.back();
  if (!key) {
    a.reason = "topology level not specified";
    return a;
  }
  auto requested = index_of(*key);
  if (!requested) {
    a.reason = fmt::format("no requested topology level: {}", *key);
    return a;
  }
  requested_level_ = *requested;
  const std::string slice_key = layers.empty() ? keys.back() : layers.front().topology;
  auto slice_level = index_of(slice_key);
  if (!slice_level) {
    a.reason = fmt::format("no requested topology level for slices: {}", slice_key);
    return a;
  }
  slice_level_ = *slice_level;
  if (requested_level_ > slice_level_) {
    a.reason = fmt::format("podset slice topology {} is above the podset topology {}", slice_key, *key);
    return a;
  }
  // buildSliceSizeAtLevel
  std::int64_t previous_size = slice_size_;
  std::uint32_t previous_level = slice_level_;
  for (std::size_t i = 1; i < layers.size(); ++i) {
    const SliceLayer& layer = layers[i];
    auto inner = index_of(layer.topology);
    if (!inner) {
      a.reason = fmt::format("no requested topology level for additional slice layer: {}", layer.topology);
      return a;
    }
    if (*inner <= previous_level) {
      a.reason = fmt::format("additional slice layer topology {} must be at a lower level than {}", layer.topology,
                             keys[previous_level]);
      return a;
    }
    if (layer.size <= 0 || previous_size % layer.size != 0) {
      a.reason = fmt::format("additional slice layer size {} must evenly divide parent layer size {}", layer.size,
                             previous_size);
      return a;
    }
    for (std::uint32_t l = previous_level + 1; l <= *inner; ++l) size_at_level_[l] = layer.size;
    previous_size = layer.size;
    previous_level = *inner;
  }
  if (!size_at_level_.empty()) multi_layers_ = layers;

  // A fresh run over the workspace: earlier states read as new.
  ++ws_.run;
  ws_.copies.clear();
  ws_.state.resize(tree_.domain_count());
  ws_.stamp.resize(tree_.domain_count(), 0);

  // Phase 1.
  fill_counts();

  // Phase 2a.
  std::vector<std::uint32_t> current;
  std::uint32_t fit_level = 0;
  bool balanced = false;
  if (gates_.balanced_placement && !required_ && !unconstrained_) {
    auto [domains, threshold] = balanced_domains();
    if (threshold > 0) {
      current = std::move(domains);
      balanced = !apply_balanced(threshold, current, fit_level).has_value();
    }
  }
  if (!balanced) {
    current.clear();
    if (auto reason = find_level(requested_level_, fit_level, current)) {
      a.reason = *reason;
      return a;
    }
  }

  // Phase 2b.
  current = distribute(std::move(current), count_, leaders_, slice_size_, true);
  const std::uint32_t lowest = static_cast<std::uint32_t>(keys.size() - 1);
  std::uint32_t l = fit_level;
  for (; l < std::min(lowest, slice_level_) && !balanced; ++l)
    current = distribute(sorted(lower(current), least_free_capacity()), count_, leaders_, slice_size_, true);
  for (; l < lowest; ++l) {
    std::int64_t size_here = slice_size_;
    if (l >= slice_level_) {
      size_here = 1;
      if (auto it = size_at_level_.find(l + 1); it != size_at_level_.end()) size_here = it->second;
    }
    std::vector<std::uint32_t> next;
    for (std::uint32_t d : current) {
      std::vector<std::uint32_t> kids = sorted(children(d), least_free_capacity());
      if (size_here > 1)
        for (std::uint32_t k : kids) {
          st(k).slices = st(k).pods / size_here;
          st(k).slices_wl = st(k).pods_wl / size_here;
        }
      std::vector<std::uint32_t> got = distribute(std::move(kids), st(d).pods, st(d).leaders, size_here, size_here > 1);
      next.insert(next.end(), got.begin(), got.end());
    }
    current = std::move(next);
  }

  // buildAssignment: leaves by level values.
  std::sort(current.begin(), current.end(), [&](std::uint32_t x, std::uint32_t y) { return compare_values(x, y) < 0; });
  for (std::uint32_t d : current) {
    std::uint32_t leaf = origin(d).leaf;
    if (leaf == kNo) continue;  // not at the lowest level: Kueue's assumptions were violated
    if (leaders_ > 0 && st(d).leaders > 0) a.leader.push_back({leaf, static_cast<std::int32_t>(st(d).leaders)});
    if (st(d).pods > 0) a.workers.push_back({leaf, static_cast<std::int32_t>(st(d).pods)});
  }
  a.ok = true;
  return a;
}

}  // namespace

Assignment assign(const Tree& tree, const std::vector<LeafFit>& fits, const Request& request, const Gates& gates,
                  const Exclusions& exclusions, const std::string& topology_name) {
  Workspace ws;
  return assign(tree, ws, fits, request, gates, exclusions, topology_name);
}

Assignment assign(const Tree& tree, Workspace& workspace, const std::vector<LeafFit>& fits, const Request& request,
                  const Gates& gates, const Exclusions& exclusions, const std::string& topology_name) {
  return Run(tree, workspace.impl(), &fits, nullptr, nullptr, request, gates, exclusions, topology_name).run();
}

Assignment assign_counts(const Tree& tree, Workspace& workspace, const std::vector<std::int64_t>& pods,
                         const CountIndex* index, const Request& request, const Gates& gates,
                         const Exclusions& exclusions, const std::string& topology_name) {
  Assignment a;
  if (request.leader || !request.topology.slices.empty() || pods.size() != tree.domain_count()) {
    a.reason = "code assumptions violated: assign_counts needs pods per domain of a request without leader or slices";
    return a;
  }
  return Run(tree, workspace.impl(), nullptr, &pods, index ? &index->impl() : nullptr, request, gates, exclusions,
             topology_name)
      .run();
}

}  // namespace topoplan::kueue
