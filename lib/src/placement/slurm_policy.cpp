// The `slurm` and `slurm-22.05` peer policies: Slurm's select/cons_tres with
// TopologyPlugin=topology/tree, read in SchedMD/slurm at slurm-22-05-8-1
// (src/plugins/select/cons_tres/job_test.c, src/plugins/topology/tree/
// topology_tree.c) and at 284c3b95f08a (26.11-dev, src/plugins/topology/
// tree/eval_nodes_tree.c). bench/slurm_agreement.sh compares the results with
// a real slurmctld.
//
// Mapping of our model onto Slurm's:
// - The switch tree is our domain tree above the host level: one SwitchName
//   per domain, in domain id order (the root first), `Nodes=` on the domains
//   just above the host level (the leaf switches), `Switches=` elsewhere.
//   Slurm numbers switch levels from the leaves (leaf = 0, a parent = 1 + its
//   highest child, topology_tree.c) and measures hops between switches with
//   Floyd-Warshall over the parent/child edges (switches_dist,
//   _check_better_path): two leaves are 2 x (levels up to their common
//   ancestor) apart.
// - Nodes are in our node order (slurm.conf order = bitmap order) and all have
//   the same Weight; node features, reservations and partitions are not
//   modelled.
// - A whole-node job (`nodes: K`, `exclusive`) is `sbatch -N K --exclusive`.
//   A job counted in accelerators is `sbatch --gpus=N` (GPUs per job): Slurm
//   then asks for one node at least (rem_nodes = MIN(min_nodes, req_nodes)
//   when gres_sched_init finds a per-job GRES) and keeps adding nodes, each
//   with all of its free GPUs (gres_sched_add), until the total suffices
//   (gres_sched_test). Which GPUs of the last node the job gets is decided
//   later by Slurm; we give every node all of its usable GPUs up to the
//   remainder, in device order. With tensor-parallel groups (granule) only
//   whole groups of a node's free GPUs count, as with
//   `--ntasks=N/tp --gpus-per-task=tp` where a task never spans nodes.
// - required: the level of the leaf switches is `--switches=1` with the wait
//   not yet expired: an allocation over more than one leaf switch leaves the
//   job pending (the `fini:` block of _eval_nodes_topo sets best_switch =
//   false), so it is not placed. Slurm does not look for another allocation
//   that would fit one leaf (it retries only for -N min-max ranges).
//   required: node is `-N 1`: only nodes with enough free GPUs qualify, and a
//   whole-node job must ask for one node. required at the root is always met.
//   Slurm cannot express the other levels (e.g. one SU of several leaf
//   switches); they and `preferred` are ignored, and `topoplan check`
//   reports the violations.
//
// Rules (_eval_nodes_topo; names of the 22.05 file, the same in
// eval_nodes_tree.c unless noted):
// 1. Top switch: scanning switches in index order, each switch with at least
//    the remaining node count (_enough_nodes) replaces the current pick when
//    its level is at least as high; so the top switch is the highest (the
//    root when it has enough) — the doc's "lowest level switch that can
//    satisfy the request" is what rule 3's comparison achieves, not this step.
//    No such switch: the job does not fit. Only nodes below it are used.
// 2. Candidate nodes: every usable node below the top switch (one weight
//    group); each switch counts its candidate nodes.
// 3. Leaf choice (_topo_choose_best_switch over the leaf switches in index
//    order): the first leaf with candidates starts as the best; a later leaf
//    i replaces the best b when
//      - 22.05: dist[i] < dist[b] and compare(i, b) >= 0, or dist[i] ==
//        dist[b] and compare(i, b) > 0;
//      - current: dist[i] < dist[b] and i "fits" (the last fit test of the
//        comparison), or dist[i] == dist[b] and compare(i, b) > 0.
//    dist[x] is the sum of hops from x to the leaves chosen so far
//    (_topo_add_dist), 0 for the first choice.
//    compare(i, j) (_topo_compare_switches), with fit = count >= remaining
//    nodes: both fit -> fewer nodes wins (equal: go to the tail); one fits ->
//    it wins; neither -> if their parents differ, compare the parents the
//    same way, else go to the tail. Tail: more nodes wins, then the lower
//    switch level, else a tie (0).
// 4. Nodes of the chosen leaf are taken in bitmap order (the code's own
//    NOTE: "Ideally we would add nodes in order of resource availability")
//    until the request is met; a leaf whose nodes are all taken counts 0 from
//    then on. Current rules also subtract its nodes from every ancestor
//    switch (_decrement_node_cnt, 24.05.3); 22.05 leaves the ancestors'
//    counts as they were, which matters for rule 3's parent comparison.
// 5. Ranks: Slurm lays tasks out over the job's nodes in bitmap order, so
//    ranks follow our node order whatever order the leaves were chosen in.
#include "topoplan/placement/slurm_policy.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "slurm_leaf_index.hpp"

namespace topoplan {

namespace {

// One evaluation of _eval_nodes_topo.
class TreeEvaluation {
 public:
  TreeEvaluation(const Topology& t, SlurmTreeRules rules) : t_(t), rules_(rules), leaf_level_(t.host_level() - 1) {}

  // Candidate nodes per switch (domains above the host level):
  // `candidates_in(leaf)` for the leaf switches, sums above them.
  template <typename Leaf>
  void count(const Leaf& candidates_in) {
    auto [first_node, last_node] = t_.domains_at(t_.host_level());
    count_.assign(first_node, 0);
    auto [first_leaf, last_leaf] = t_.domains_at(leaf_level_);
    for (DomainId s = first_leaf; s < last_leaf; ++s) count_[s] = candidates_in(s);
    for (LevelIndex l = leaf_level_; l-- > 0;) {
      auto [first, last] = t_.domains_at(l);
      for (DomainId d = first; d < last; ++d) {
        const Domain& dom = t_.domain(d);
        for (std::uint32_t c = 0; c < dom.child_count; ++c) count_[d] += count_[dom.first_child + c];
      }
    }
  }

  // Rule 1.
  DomainId top_switch(std::int64_t rem_nodes) const {
    // The root comes first and alone at the highest level: when it has
    // enough, no later switch can replace it.
    if (count_[t_.root()] > 0 && count_[t_.root()] >= rem_nodes) return t_.root();
    DomainId top = kNone;
    for (DomainId s = 0; s < count_.size(); ++s) {
      if (count_[s] == 0 || count_[s] < rem_nodes) continue;
      if (top == kNone || switch_level(s) >= switch_level(top)) top = s;
    }
    return top;
  }

  // Rule 3, one scan; kNone when no leaf has candidates left.
  DomainId choose_leaf(const std::vector<DomainId>& leaves, const std::vector<std::uint64_t>& dist,
                       std::int64_t rem_nodes) const {
    DomainId best = kNone;
    std::size_t best_i = 0;
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      DomainId leaf = leaves[i];
      if (best == kNone || count_[leaf] == 0) {
        if (count_[leaf] > 0) {
          best = leaf;
          best_i = i;
        }
        continue;
      }
      bool i_fit = false;
      int tcs = compare(leaf, best, rem_nodes, i_fit);
      bool closer = dist[i] < dist[best_i];
      bool replace = rules_ == SlurmTreeRules::v22_05 ? ((closer && tcs >= 0) || (dist[i] == dist[best_i] && tcs > 0))
                                                      : ((closer && i_fit) || (dist[i] == dist[best_i] && tcs > 0));
      if (replace) {
        best = leaf;
        best_i = i;
      }
    }
    return best;
  }

  // Rule 4: a leaf used up.
  void exhaust(DomainId leaf) {
    if (rules_ == SlurmTreeRules::current) {
      std::int64_t taken = count_[leaf];
      for (DomainId s = t_.domain(leaf).parent; s != kNone; s = t_.domain(s).parent)
        count_[s] = count_[s] <= taken ? 0 : count_[s] - taken;
    }
    count_[leaf] = 0;
  }

 private:
  // Slurm's switch level: 0 for leaf switches, counting up to the root.
  std::uint32_t switch_level(DomainId s) const { return leaf_level_ - t_.domain(s).level; }
  // Slurm's parent of the root is the root (index 0; 22.05 leaves it 0).
  DomainId parent_switch(DomainId s) const { return s == t_.root() ? s : t_.domain(s).parent; }

  // Rule 3's _topo_compare_switches: 1 when i is the better fit, -1 when j is.
  int compare(DomainId i, DomainId j, std::int64_t rem_nodes, bool& i_fit_out) const {
    while (true) {
      bool i_fit = count_[i] >= rem_nodes;
      bool j_fit = count_[j] >= rem_nodes;
      i_fit_out = i_fit;
      if (i_fit && j_fit) {
        if (count_[i] < count_[j]) return 1;
        if (count_[i] > count_[j]) return -1;
        break;
      }
      if (i_fit) return 1;
      if (j_fit) return -1;
      DomainId pi = parent_switch(i);
      DomainId pj = parent_switch(j);
      if ((pi != i || pj != j) && pi != pj) {
        i = pi;
        j = pj;
        continue;
      }
      break;
    }
    if (count_[i] > count_[j]) return 1;
    if (count_[i] < count_[j]) return -1;
    if (switch_level(i) < switch_level(j)) return 1;
    if (switch_level(i) > switch_level(j)) return -1;
    return 0;
  }

  const Topology& t_;
  SlurmTreeRules rules_;
  LevelIndex leaf_level_;
  std::vector<std::int64_t> count_;  // per switch (domain id < first node)
};

}  // namespace

SlurmPolicy::SlurmPolicy(SlurmTreeRules rules, SlurmSearch search) : rules_(rules), search_(search) {}

SlurmPolicy::~SlurmPolicy() = default;

void SlurmPolicy::nodes_changed(const std::vector<DomainId>& nodes) const {
  if (index_) touched_.insert(touched_.end(), nodes.begin(), nodes.end());
}

SlurmLeafIndex& SlurmPolicy::leaf_index(const Occupancy& occupancy) const {
  if (index_ && &index_->occupancy() == &occupancy &&
      index_->topology_domains() == occupancy.topology().domain_count() && touched_.size() <= index_->nodes()) {
    index_->refresh(touched_);
    touched_.clear();
    if (index_->consistent()) return *index_;
  }
  // First use, another occupancy, or more changes than nodes: read it all.
  index_ = std::make_unique<SlurmLeafIndex>(occupancy);
  touched_.clear();
  return *index_;
}

std::string_view SlurmPolicy::name() const { return rules_ == SlurmTreeRules::v22_05 ? "slurm-22.05" : "slurm"; }

std::vector<std::uint32_t> SlurmPolicy::place(const CapacityView& view, const PlaceRequest& request) const {
  return allocate(view, request, nullptr);
}

std::string SlurmPolicy::why_not(const CapacityView& view, const PlaceRequest& request) const {
  // allocate() words one refusal only, --switches=1's spill (one leaf
  // switch); any other would be allocated a second time to say nothing.
  const LevelIndex host = view.topology().host_level();
  if (!request.required || host == 0 || *request.required != host - 1) return {};
  std::string why;
  if (allocate(view, request, &why).empty()) return why;
  return {};
}

std::vector<std::uint32_t> SlurmPolicy::allocate(const CapacityView& view, const PlaceRequest& request,
                                                 std::string* why) const {
  const Topology& t = view.topology();
  if (request.units == 0) return {};
  const LevelIndex host = t.host_level();
  const bool whole = view.whole_nodes();
  const std::uint32_t group = !whole && request.granule > 1 && request.units % request.granule == 0 ? request.granule : 1;
  const bool one_node = request.required && *request.required == host;
  const bool one_leaf = request.required && host > 0 && *request.required == host - 1;
  if (one_node && whole && request.units > 1) return {};

  // What a node offers: a whole free node, or its usable accelerators in
  // whole groups (with -N 1, only a node that holds the whole request).
  // Nodes of exactly c free accelerators offer offer_of(c), so the
  // occupancy's per-switch histograms count candidates without visiting
  // nodes wherever the view counts as the occupancy does.
  const Occupancy& occ = view.occupancy();
  auto offer_of = [&](std::uint32_t free) {
    std::uint32_t o = free / group * group;
    return one_node && o < request.units ? 0u : o;
  };
  auto offer = [&](DomainId n) -> std::uint32_t {
    if (whole) return view.node_free(n) ? 1u : 0u;
    return offer_of(view.accelerators(n));
  };
  const std::uint32_t max_node = occ.max_node_accelerators();
  // The free counts that offer something, and what: the histogram walk below
  // runs once per leaf switch and job, so it skips the rest.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> offers;  // (free, offer)
  for (std::uint32_t c = 1; c <= max_node; ++c)
    if (std::uint32_t o = offer_of(c); o > 0) offers.emplace_back(c, o);
  // Candidate nodes, and their offers summed, below a switch: from the
  // histograms where the view counts as the occupancy does, else from the
  // switches below, else (a leaf switch) from its nodes.
  const bool simple = !view.narrowed();
  // Which leaf switches the view counts as the occupancy does, found at once.
  const LevelIndex leaf_level = host > 0 ? host - 1 : 0;
  const DomainId first_leaf_id = t.domains_at(leaf_level).first;
  std::vector<std::uint8_t> exact_leaf;  // filled for the scan
  auto exact = [&](DomainId s) {
    return !exact_leaf.empty() && t.domain(s).level == leaf_level ? exact_leaf[s - first_leaf_id] != 0
                                                                  : view.exact(s);
  };
  auto below_in = [&](auto& self, DomainId s, bool sum_offers) -> std::uint64_t {
    if (whole) return view.nodes(s);
    std::uint64_t n = 0;
    if (simple || exact(s)) {
      for (const auto& [c, o] : offers)
        n += static_cast<std::uint64_t>(occ.nodes_with_free(s, c)) * (sum_offers ? o : 1);
      return n;
    }
    const Domain& d = t.domain(s);
    if (d.level + 1 < host) {
      for (std::uint32_t c = 0; c < d.child_count; ++c)
        if (view.accelerators(d.first_child + c) > 0) n += self(self, d.first_child + c, sum_offers);
      return n;
    }
    for (std::uint32_t c = 0; c < d.child_count; ++c)
      if (std::uint32_t o = offer(d.first_child + c); o > 0) n += sum_offers ? o : 1;
    return n;
  };
  auto below = [&](DomainId s, bool sum_offers) { return below_in(below_in, s, sum_offers); };

  std::int64_t rem_nodes = whole ? request.units : 1;
  std::uint32_t rem_accels = whole ? 0 : request.units;
  std::vector<std::pair<DomainId, std::uint32_t>> taken;  // node, accelerators (0 = whole node)
  auto take_from = [&](DomainId n) {
    std::uint32_t o = offer(n);
    if (o == 0) return false;
    --rem_nodes;
    std::uint32_t amount = whole ? 0 : std::min(o, rem_accels);
    rem_accels -= amount;
    taken.emplace_back(n, amount);
    return rem_nodes <= 0 && rem_accels == 0;
  };

  // The index finds rule 3's choice where every leaf with a candidate
  // "fits": a request counted in accelerators asks for one node
  // (rem_nodes = 1, then less), and the current rules then take the closest
  // leaf, the fewest candidates first, the first of equals. The 22.05 rules
  // depend on the scan's order, and whole-node requests on the parents'
  // counts: both scan.
  std::optional<CapacityView::LevelCut> cut;
  if (search_ == SlurmSearch::indexed && rules_ == SlurmTreeRules::current && !whole && host > 0)
    cut = view.cut_at(leaf_level);

  bool done = false;
  if (host == 0) {
    // No switch above the only node: it fits or it does not.
    done = take_from(t.domains_at(host).first);
  } else if (cut) {
    // Rule 1: the root comes first and is the top switch once it has one
    // candidate node; then it must be "sufficient".
    const DomainId root = t.root();
    if (below(root, false) == 0 || below(root, true) < request.units) return {};
    // A candidate node has at least k free accelerators (see offer_of).
    const std::uint32_t k = one_node ? request.units : group;
    SlurmLeafIndex& index = leaf_index(occ);
    // Leaves out of the index for this request: those the view counts its
    // own way (their candidates counted through the view, 0 once chosen)
    // and those chosen. Put back on the way out.
    std::vector<DomainId> masked;
    struct Unmask {
      SlurmLeafIndex& index;
      std::uint32_t k;
      const std::vector<DomainId>& leaves;
      ~Unmask() {
        for (DomainId l : leaves) index.unmask(k, l);
      }
    } unmask{index, k, masked};
    std::vector<std::pair<DomainId, std::uint64_t>> odd;  // leaf, candidate nodes
    for (DomainId leaf : cut->inexact) {
      index.mask(k, leaf);
      masked.push_back(leaf);
      odd.emplace_back(leaf, below(leaf, false));
    }
    // The best candidate (fewest nodes, then lowest id) in a range of leaves.
    auto best_in = [&](DomainId from, DomainId to, std::uint64_t& best) {
      from = std::max(from, cut->first);
      to = std::min(to, cut->last);
      if (from >= to) return;
      if (DomainId l = index.best(k, from, to); l != kNone)
        best = std::min(best, (std::uint64_t{index.count(k, l)} << 32) | l);
      auto it = std::lower_bound(odd.begin(), odd.end(), std::pair<DomainId, std::uint64_t>{from, 0});
      for (; it != odd.end() && it->first < to; ++it)
        if (it->second > 0) best = std::min(best, (it->second << 32) | it->first);
    };
    // Chosen leaves below each domain under the root that holds some, by
    // domain id (a parent before its children). Rule 3's distance of a
    // leaf falls by 2 for every chosen leaf below each of its ancestors
    // under the top switch, so the closest leaves are those whose
    // ancestors' counts sum highest.
    std::vector<std::pair<DomainId, std::uint64_t>> under;
    auto chosen_below = [&](DomainId d) -> std::uint64_t& {
      auto it = std::lower_bound(under.begin(), under.end(), std::pair<DomainId, std::uint64_t>{d, 0});
      if (it == under.end() || it->first != d) it = under.insert(it, {d, 0});
      return it->second;
    };
    constexpr std::uint64_t kNoLeaf = ~std::uint64_t{0};
    auto choose = [&]() -> DomainId {
      std::vector<std::uint64_t> score(under.size(), 0);
      std::vector<std::pair<std::uint64_t, DomainId>> by_score;
      for (std::size_t i = 0; i < under.size(); ++i) {
        const DomainId d = under[i].first;
        const DomainId p = t.domain(d).parent;
        score[i] = under[i].second;
        if (p != root) {
          auto it = std::lower_bound(under.begin(), under.begin() + static_cast<std::ptrdiff_t>(i),
                                     std::pair<DomainId, std::uint64_t>{p, 0});
          score[i] += score[static_cast<std::size_t>(it - under.begin())];
        }
        by_score.emplace_back(score[i], d);
      }
      // Highest score first; a leaf below a domain of a higher score would
      // have been found there, so what a domain yields scores its own.
      std::sort(by_score.begin(), by_score.end(), [](const auto& x, const auto& y) {
        return x.first != y.first ? x.first > y.first : x.second < y.second;
      });
      for (std::size_t i = 0; i < by_score.size();) {
        std::uint64_t best = kNoLeaf;
        std::size_t j = i;
        for (; j < by_score.size() && by_score[j].first == by_score[i].first; ++j) {
          auto [from, to] = t.descendants_at(by_score[j].second, leaf_level);
          best_in(from, to, best);
        }
        if (best != kNoLeaf) return static_cast<DomainId>(best & 0xffffffffu);
        i = j;
      }
      std::uint64_t best = kNoLeaf;
      best_in(cut->first, cut->last, best);
      return best == kNoLeaf ? kNone : static_cast<DomainId>(best & 0xffffffffu);
    };
    while (!done) {
      const DomainId leaf = choose();
      if (leaf == kNone) break;
      auto it = std::lower_bound(odd.begin(), odd.end(), std::pair<DomainId, std::uint64_t>{leaf, 0});
      if (it != odd.end() && it->first == leaf) {
        it->second = 0;
      } else {
        index.mask(k, leaf);
        masked.push_back(leaf);
      }
      for (DomainId a = leaf; a != root; a = t.domain(a).parent) ++chosen_below(a);
      const Domain& d = t.domain(leaf);
      for (std::uint32_t c = 0; c < d.child_count && !done; ++c) done = take_from(d.first_child + c);
    }
  } else {
    if (!simple && !whole) exact_leaf = view.exact_at(leaf_level);
    TreeEvaluation eval(t, rules_);
    eval.count([&](DomainId leaf) { return static_cast<std::int64_t>(below(leaf, false)); });
    DomainId top = eval.top_switch(rem_nodes);
    if (top == kNone) return {};
    std::vector<DomainId> leaves;
    auto [first_leaf, last_leaf] = t.descendants_at(top, host - 1);
    for (DomainId leaf = first_leaf; leaf < last_leaf; ++leaf) leaves.push_back(leaf);
    if (!whole && below(top, true) < request.units) return {};  // not "sufficient" below the top switch
    std::vector<std::uint64_t> dist(leaves.size(), 0);
    while (!done) {
      DomainId leaf = eval.choose_leaf(leaves, dist, rem_nodes);
      if (leaf == kNone) break;
      // Hops from `leaf` to every leaf below the top switch: two per level
      // up to their common ancestor, so 2 x (levels from the leaves to the
      // top) for all, less 2 for the leaves below each of the chosen leaf's
      // ancestors under the top (and below the leaf itself).
      const std::uint64_t span = 2ull * (host - 1 - t.domain(top).level);
      for (std::uint64_t& x : dist) x += span;
      for (DomainId a = leaf; a != top; a = t.domain(a).parent) {
        auto [from, to] = t.descendants_at(a, host - 1);
        for (DomainId l = from; l < to; ++l) dist[l - first_leaf] -= 2;
      }
      const Domain& d = t.domain(leaf);
      for (std::uint32_t c = 0; c < d.child_count && !done; ++c) done = take_from(d.first_child + c);
      if (!done) eval.exhaust(leaf);
    }
  }
  if (!done) return {};
  if (one_leaf) {
    DomainId leaf = t.domain(taken.front().first).parent;
    for (const auto& [n, amount] : taken) {
      if (t.domain(n).parent == leaf) continue;
      // Pending on --switches=1. Asked for accelerators, Slurm counts one
      // node (rule 3's fit), so the best fit is the leaf with the fewest
      // candidate nodes even when another leaf holds the whole job.
      if (why) {
        std::vector<DomainId> leaves;
        for (const auto& [node, used] : taken)
          if (leaves.empty() || leaves.back() != t.domain(node).parent) leaves.push_back(t.domain(node).parent);
        std::vector<std::string> names;
        for (std::size_t i = 1; i < leaves.size(); ++i) names.push_back(fmt::format("'{}'", t.domain_name(leaves[i])));
        const std::string level = t.levels()[host - 1].name;
        *why = whole ? fmt::format("Slurm leaves it pending on --switches=1: its nodes would fill '{}' and spill "
                                   "into {}",
                                   t.domain_name(leaves.front()), fmt::join(names, ", "))
                     : fmt::format("Slurm leaves it pending on --switches=1: asked for GPUs, it fills the {} with "
                                   "the fewest free nodes ('{}') and spills into {} (whole nodes, -N, go to a {} that "
                                   "holds them all)",
                                   level, t.domain_name(leaves.front()), fmt::join(names, ", "), level);
      }
      return {};
    }
  }

  // Rule 5: ranks in node order.
  std::sort(taken.begin(), taken.end());
  if (index_)
    for (const auto& [n, amount] : taken) touched_.push_back(n);
  std::vector<std::uint32_t> out;
  for (const auto& [n, amount] : taken) {
    const Domain& node = t.domain(n);
    std::uint32_t left = whole ? node.accelerator_count() : amount;
    for (std::uint32_t a = node.accel_begin; a < node.accel_end && left > 0; ++a)
      if (view.usable(a)) {
        out.push_back(a);
        --left;
      }
  }
  return out;
}

}  // namespace topoplan
