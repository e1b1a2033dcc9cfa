#include "topoplan/placement/chain_finder.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "support/disjoint_sets.hpp"

namespace topoplan {

namespace {

// A chain's quality, smaller is better (see chain_finder.hpp).
using Score = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>;

struct Edge {
  std::uint32_t to;  // accelerator index
  float latency;
};

class Search {
 public:
  Search(const Topology& t, std::span<const std::uint8_t> allowed, const ChainRequest& r,
         std::span<const std::uint8_t> cost)
      : t_(t), allowed_(allowed), r_(r), cost_(cost) {}

  // Builds the cells over the edges of one latency class (all edges when
  // `latency` is empty) and searches them; keeps the best over calls.
  void run(const std::vector<std::vector<Edge>>& edges, std::optional<float> latency) {
    build(edges, latency);
    if (r_.shape == ChainShape::group)
      search_group();
    else
      search_chain();
  }

  bool found() const { return !best_.empty(); }
  const std::vector<std::uint32_t>& best() const { return best_; }
  std::uint32_t longest() const { return longest_; }
  bool exhausted() const { return exhausted_; }
  std::uint32_t joined() const { return joined_; }
  bool searched() const { return searched_; }
  bool pruned() const { return pruned_; }

 private:
  bool linked(std::uint32_t a, std::uint32_t b) const {
    const auto& n = adj_[a];
    return std::binary_search(n.begin(), n.end(), b);
  }

  void build(const std::vector<std::vector<Edge>>& edges, std::optional<float> latency) {
    const std::size_t n = allowed_.size();
    adj_.assign(n, {});
    for (std::uint32_t a = 0; a < n; ++a) {
      for (const Edge& e : edges[a])
        if (!latency || e.latency == *latency) adj_[a].push_back(e.to);
      std::sort(adj_[a].begin(), adj_[a].end());
      adj_[a].erase(std::unique(adj_[a].begin(), adj_[a].end()), adj_[a].end());
    }
    cells_.clear();
    cell_node_.clear();
    cell_of_.assign(n, kNone);
    auto [first, last] = t_.domains_at(t_.host_level());
    for (DomainId node = first; node < last; ++node) {
      const Domain& d = t_.domain(node);
      std::vector<std::uint32_t> members;
      for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a)
        if (allowed_[a]) members.push_back(a);
      bool clique = true;
      for (std::size_t i = 0; i < members.size() && clique; ++i)
        for (std::size_t j = i + 1; j < members.size() && clique; ++j) clique = linked(members[i], members[j]);
      if (clique && !members.empty()) {
        add_cell(node, std::move(members));
      } else {
        for (std::uint32_t a : members) add_cell(node, {a});
      }
    }
    join_cells();
  }

  // The cells joined by links into connected sets, and the chips of each
  // cell's set: no chain or ring of more chips starts in a cell. Also each
  // cell's neighbour cells, for the reachability bound of extend().
  void join_cells() {
    DisjointSets<std::uint32_t> sets(cells_.size());
    cell_adj_.assign(cells_.size(), {});
    for (std::uint32_t a = 0; a < adj_.size(); ++a)
      if (cell_of_[a] != kNone)
        for (std::uint32_t b : adj_[a])
          if (cell_of_[b] != kNone && cell_of_[b] != cell_of_[a]) {
            sets.join(cell_of_[a], cell_of_[b]);
            cell_adj_[cell_of_[a]].push_back(cell_of_[b]);
          }
    for (auto& n : cell_adj_) {
      std::sort(n.begin(), n.end());
      n.erase(std::unique(n.begin(), n.end()), n.end());
    }
    stamp_.assign(cells_.size(), 0);
    stamp_now_ = 0;
    std::vector<std::uint32_t> chips(cells_.size(), 0);
    for (std::uint32_t c = 0; c < cells_.size(); ++c)
      chips[sets.find(c)] += static_cast<std::uint32_t>(cells_[c].size());
    joined_chips_.assign(cells_.size(), 0);
    for (std::uint32_t c = 0; c < cells_.size(); ++c) {
      joined_chips_[c] = chips[sets.find(c)];
      joined_ = std::max(joined_, joined_chips_[c]);
    }
  }

  void add_cell(DomainId node, std::vector<std::uint32_t> members) {
    for (std::uint32_t a : members) cell_of_[a] = static_cast<std::uint32_t>(cells_.size());
    cells_.push_back(std::move(members));
    cell_node_.push_back(node);
  }

  // Levels between two chips' nodes and their common ancestor: 0 in one node.
  std::uint64_t crossing(std::uint32_t a, std::uint32_t b) const {
    DomainId na = cell_node_[cell_of_[a]], nb = cell_node_[cell_of_[b]];
    std::uint64_t levels = 0;
    while (na != nb) {
      na = t_.domain(na).parent;
      nb = t_.domain(nb).parent;
      ++levels;
    }
    return levels;
  }

  Score score(const std::vector<std::uint32_t>& chain) const {
    std::uint64_t taken = 0, hops = 0, left = 0, fit = 0;
    for (std::uint32_t a : chain) taken += cost_.empty() ? 0u : std::uint64_t{cost_[a]};
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) hops += crossing(chain[i], chain[i + 1]);
    if (r_.shape == ChainShape::ring && chain.size() > 2) hops += crossing(chain.back(), chain.front());
    std::vector<std::uint32_t> cells;
    for (std::uint32_t a : chain) cells.push_back(cell_of_[a]);
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    std::vector<DomainId> parents;
    for (std::uint32_t c : cells) {
      left += cells_[c].size();
      if (DomainId p = t_.domain(cell_node_[c]).parent; p != kNone) parents.push_back(p);
    }
    left -= chain.size();
    std::sort(parents.begin(), parents.end());
    parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
    for (DomainId p : parents) {
      const Domain& d = t_.domain(p);
      for (std::uint32_t a = d.accel_begin; a < d.accel_end; ++a) fit += allowed_[a];
    }
    return {taken, hops, left, fit};
  }

  void offer(const std::vector<std::uint32_t>& chain) {
    Score s = score(chain);
    if (best_.empty() || s < best_score_) {
      best_ = chain;
      best_score_ = s;
    }
  }

  void search_group() {
    // A fully connected group lies inside one fully connected cell (chips
    // of different nodes are joined by a few global links, never all pairs).
    searched_ = true;
    for (std::uint32_t c = 0; c < cells_.size(); ++c) {
      std::vector<std::uint32_t> members = cells_[c];
      longest_ = std::max<std::uint32_t>(longest_, static_cast<std::uint32_t>(members.size()));
      if (members.size() < r_.size) continue;
      if (!cost_.empty())
        std::stable_sort(members.begin(), members.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return cost_[a] < cost_[b]; });
      members.resize(r_.size);
      std::sort(members.begin(), members.end());
      offer(members);
    }
  }

  // What every chain of the size must cross: at each level below the root,
  // as many borders as it needs domains of that level, given the most
  // usable chips one of them has (a ring also closes the last border).
  std::uint64_t fewest_crossings() const {
    std::uint64_t total = 0;
    for (LevelIndex l = 1; l <= t_.host_level(); ++l) {
      std::uint64_t most = 0;
      auto [first, last] = t_.domains_at(l);
      for (DomainId d = first; d < last; ++d) {
        std::uint64_t n = 0;
        for (std::uint32_t a = t_.domain(d).accel_begin; a < t_.domain(d).accel_end; ++a) n += allowed_[a];
        most = std::max(most, n);
      }
      if (most == 0) continue;
      const std::uint64_t domains = (r_.size + most - 1) / most;
      total += domains - 1 + (r_.shape == ChainShape::ring && domains > 1 ? 1 : 0);
    }
    return total;
  }

  void search_chain() {
    fewest_crossings_ = fewest_crossings();
    visited_.assign(cells_.size(), 0);
    std::vector<std::uint32_t> starts(cells_.size());
    for (std::uint32_t c = 0; c < starts.size(); ++c) starts[c] = c;
    // No chain takes fewer costly chips than the size less the free ones.
    std::uint64_t free = 0;
    for (std::uint32_t a = 0; a < allowed_.size(); ++a) free += allowed_[a] && (cost_.empty() || cost_[a] == 0);
    const std::uint64_t fewest_taken = free >= r_.size ? 0 : r_.size - free;
    for (std::uint32_t c : starts) {
      // A start whose cells hold too few chips between them cannot begin
      // the shape: skipped without a step, so that a refusal is cheap.
      if (joined_chips_[c] < r_.size) continue;
      if (steps_ >= r_.budget) {
        exhausted_ = true;
        break;
      }
      // A chain whose score cannot improve ends the search: no more chips
      // to free than the free ones leave, no more crossings than any chain
      // needs, no chip left over.
      if (found() && std::get<0>(best_score_) <= fewest_taken && std::get<1>(best_score_) <= fewest_crossings_ &&
          std::get<2>(best_score_) == 0)
        break;
      searched_ = true;
      // Each start gets a share of the budget, so that one hopeless start
      // does not use it all.
      limit_ = std::min<std::uint64_t>(r_.budget, steps_ + std::max<std::uint64_t>(r_.budget / 16, 64));
      visited_[c] = 1;
      if (r_.shape == ChainShape::ring && cells_[c].size() < r_.size) {
        // A ring across cells closes on its first chip: try each.
        for (std::uint32_t s : cells_[c]) {
          ring_start_ = s;
          path_.clear();
          extend(c, s, r_.size);
          if (steps_ >= limit_) break;
        }
      } else {
        ring_start_ = kNone;
        path_.clear();
        extend(c, kNone, r_.size);
      }
      visited_[c] = 0;
      if (steps_ >= limit_ && !found_here_) exhausted_ = true;
      found_here_ = false;
    }
  }

  // Extends path_ through cell `c`, entered at `entry` (kNone: the start of
  // a chain, any chip), with `remaining` chips still to place, offering
  // every complete shape it reaches. True when the search from this start
  // should stop (its share of the budget is spent).
  //
  // A cell is passed whole first (fewest cells, fewest hops), then with
  // fewer chips: a ring must come back to its first chip, which may take
  // fewer chips of a cell on the way (a GroqNode pair has one link, so a
  // ring of 16 spans three nodes), and a chain may have to pass a cell
  // through the one chip linked both ways (entry and exit alike).
  bool extend(std::uint32_t c, std::uint32_t entry, std::uint32_t remaining) {
    ++steps_;
    const std::vector<std::uint32_t>& members = cells_[c];
    const auto m = static_cast<std::uint32_t>(members.size());
    const std::size_t mark = path_.size();
    if (remaining > m && reachable(c, remaining) < remaining) {
      // The path through this whole cell is still a chain.
      longest_ = std::max<std::uint32_t>(longest_, static_cast<std::uint32_t>(mark + m));
      pruned_ = true;
      return steps_ >= limit_;
    }
    if (remaining <= m) {
      longest_ = std::max<std::uint32_t>(longest_, static_cast<std::uint32_t>(mark + remaining));
      if (finish(c, entry, remaining)) {
        offer(path_);
        // Look a little further for a better chain from this start.
        if (!found_here_) limit_ = std::min(limit_, steps_ + kLookFurther);
        found_here_ = true;
      }
      path_.resize(mark);
      if (steps_ >= limit_) return true;
    }
    if (remaining < 2 || steps_ >= limit_ || mark + m > kMaxDepth) return steps_ >= limit_;
    const std::uint32_t most = std::min(m, remaining - 1);
    longest_ = std::max<std::uint32_t>(longest_, static_cast<std::uint32_t>(mark + most));
    // Ways out: a chip x of this cell linked to a chip of a cell not yet
    // visited.
    struct Way {
      std::uint64_t crossing;
      std::uint32_t fit;  // smaller first: the tightest cell that finishes, else the largest
      std::uint32_t cell, exit, next;
    };
    std::vector<Way> ways;
    for (std::uint32_t x : members) {
      for (std::uint32_t y : adj_[x]) {
        std::uint32_t c2 = cell_of_[y];
        if (c2 == kNone || visited_[c2]) continue;
        const auto size = static_cast<std::uint32_t>(cells_[c2].size());
        const std::uint32_t after = remaining - most;
        std::uint32_t fit = size >= after ? size : 0x80000000u - size;
        ways.push_back({crossing(x, y), fit, c2, x, y});
      }
    }
    std::sort(ways.begin(), ways.end(), [](const Way& a, const Way& b) {
      return std::tie(a.crossing, a.fit, a.cell, a.exit, a.next) < std::tie(b.crossing, b.fit, b.cell, b.exit, b.next);
    });
    // Chips used here: all of them (or as many as leave one to place),
    // then fewer, down to one.
    for (std::uint32_t k = most; k > 0; --k) {
      for (const Way& w : ways) {
        if (steps_ >= limit_) break;
        // One chip is both entry and exit; more need the two apart.
        if (k == 1 ? (entry != kNone && w.exit != entry) : w.exit == entry) continue;
        path_.resize(mark);
        std::uint32_t first = k == 1 ? w.exit : entry;
        if (first == kNone)
          for (std::uint32_t a : members)
            if (a != w.exit) {
              first = a;
              break;
            }
        path_.push_back(first);
        for (std::uint32_t a : members) {
          if (path_.size() - mark + 1 >= k) break;
          if (a != first && a != w.exit) path_.push_back(a);
        }
        if (w.exit != first) path_.push_back(w.exit);
        visited_[w.cell] = 1;
        const bool stop = extend(w.cell, w.next, remaining - k);
        visited_[w.cell] = 0;
        if (stop) {
          path_.resize(mark);
          return true;
        }
      }
      if (steps_ >= limit_) break;
    }
    path_.resize(mark);
    return steps_ >= limit_;
  }

  // Chips in cell `c` and the unvisited cells reachable from it, counted
  // until `enough`: fewer than the chips still to place means no way on
  // from here finishes the shape. The walk stops at `enough`, so on a
  // well-linked cluster it costs a few cells, not the cluster.
  std::uint32_t reachable(std::uint32_t c, std::uint32_t enough) {
    if (++stamp_now_ == 0) {
      std::fill(stamp_.begin(), stamp_.end(), 0);
      stamp_now_ = 1;
    }
    queue_.clear();
    queue_.push_back(c);
    stamp_[c] = stamp_now_;
    std::uint32_t chips = 0;
    for (std::size_t i = 0; i < queue_.size() && chips < enough; ++i) {
      chips += static_cast<std::uint32_t>(cells_[queue_[i]].size());
      for (std::uint32_t next : cell_adj_[queue_[i]])
        if (!visited_[next] && stamp_[next] != stamp_now_) {
          stamp_[next] = stamp_now_;
          queue_.push_back(next);
        }
    }
    return chips;
  }

  // The last cell: `count` of its chips, starting at `entry`; a ring that
  // left its first cell must end on a chip linked to that cell's first chip.
  bool finish(std::uint32_t c, std::uint32_t entry, std::uint32_t count) {
    const std::vector<std::uint32_t>& members = cells_[c];
    const std::size_t mark = path_.size();
    const bool closes = r_.shape == ChainShape::ring && ring_start_ != kNone && mark > 0;
    std::uint32_t first = entry != kNone ? entry : members.front();
    std::uint32_t last = kNone;
    if (closes) {
      if (count == 1) {
        if (!linked(first, ring_start_)) return false;
      } else {
        for (std::uint32_t a : members)
          if (a != first && linked(a, ring_start_)) {
            last = a;
            break;
          }
        if (last == kNone) return false;
      }
    }
    path_.push_back(first);
    for (std::uint32_t a : members) {
      if (path_.size() - mark + (last != kNone ? 1 : 0) >= count) break;
      if (a != first && a != last) path_.push_back(a);
    }
    if (last != kNone) path_.push_back(last);
    return path_.size() - mark == count;
  }

  static constexpr std::size_t kMaxDepth = 1u << 20;
  static constexpr std::uint64_t kLookFurther = 256;  // steps after a start's first chain

  const Topology& t_;
  std::span<const std::uint8_t> allowed_;
  const ChainRequest& r_;
  std::span<const std::uint8_t> cost_;
  std::vector<std::vector<std::uint32_t>> adj_;   // per accelerator, sorted
  std::vector<std::vector<std::uint32_t>> cells_;
  std::vector<DomainId> cell_node_;
  std::vector<std::uint32_t> cell_of_;            // per accelerator; kNone when not usable
  std::vector<std::uint8_t> visited_;
  std::vector<std::uint32_t> path_;
  std::uint32_t ring_start_ = kNone;
  std::uint64_t steps_ = 0;
  std::uint64_t limit_ = 0;  // steps_ may grow to this for the current start
  bool found_here_ = false;  // a chain was found from the current start
  std::uint64_t fewest_crossings_ = 0;  // a lower bound on any chain's crossings
  std::vector<std::uint32_t> joined_chips_;           // per cell: chips of the cells linked to it, itself included
  std::vector<std::vector<std::uint32_t>> cell_adj_;  // per cell: other cells linked to it, sorted
  std::vector<std::uint32_t> stamp_;                  // per cell: the reachable() walk that last saw it
  std::uint32_t stamp_now_ = 0;
  std::vector<std::uint32_t> queue_;  // reachable()'s walk
  std::uint32_t longest_ = 0;
  std::uint32_t joined_ = 0;  // the most chips of one connected set of cells
  bool searched_ = false;     // some start was tried
  bool pruned_ = false;       // reachable() cut a way short: longest_ may be short of the longest
  bool exhausted_ = false;
  std::vector<std::uint32_t> best_;
  Score best_score_{};
};

// Leaves out one whole usable node (the last) in each domain of the spare
// level, and every chip of a domain that has none. Returns the spare of each
// domain (kNone where there is none), indexed by domain - first of level.
std::vector<DomainId> set_spares(const Topology& t, LevelIndex level, std::vector<std::uint8_t>& allowed) {
  auto [first, last] = t.domains_at(level);
  std::vector<DomainId> spares(last - first, kNone);
  if (level >= t.host_level()) return spares;  // a node cannot hold a spare node
  for (DomainId d = first; d < last; ++d) {
    auto [n0, n1] = t.descendants_at(d, t.host_level());
    for (DomainId n = n1; n > n0; --n) {
      const Domain& node = t.domain(n - 1);
      bool whole = node.accelerator_count() > 0;
      for (std::uint32_t a = node.accel_begin; a < node.accel_end && whole; ++a) whole = allowed[a] != 0;
      if (whole) {
        spares[d - first] = n - 1;
        break;
      }
    }
    const Domain& dom = t.domain(d);
    if (spares[d - first] == kNone) {
      for (std::uint32_t a = dom.accel_begin; a < dom.accel_end; ++a) allowed[a] = 0;
    } else {
      const Domain& node = t.domain(spares[d - first]);
      for (std::uint32_t a = node.accel_begin; a < node.accel_end; ++a) allowed[a] = 0;
    }
  }
  return spares;
}

}  // namespace

ChainFound find_chain(const Topology& t, std::span<const std::uint8_t> usable, const ChainRequest& r,
                      const ScenarioMask* mask, std::span<const std::uint8_t> cost) {
  ChainFound out;
  const std::size_t n = t.accelerators().size();
  std::vector<std::uint8_t> allowed(usable.begin(), usable.end());
  allowed.resize(n, 0);
  for (std::uint8_t a : allowed) out.usable += a ? 1u : 0u;
  if (r.size == 0) return out;
  std::vector<DomainId> spares;
  if (r.spare) spares = set_spares(t, *r.spare, allowed);

  // Direct links between usable chips, with their latency.
  std::vector<std::vector<Edge>> edges(n);
  std::vector<float> latencies;
  auto accels = t.accelerators();
  for (std::uint32_t a = 0; a < n; ++a) {
    if (!allowed[a]) continue;
    for (LinkId id : t.links_of(accels[a])) {
      const Link& l = t.link(id);
      std::uint32_t b = t.accelerator_index(l.other(accels[a]));
      if (b == kNone || b == a || !allowed[b] || l.count == 0) continue;
      if (mask && mask->link_path(id) != DeviceState::up) continue;
      edges[a].push_back({b, l.latency_us});
      latencies.push_back(l.latency_us);
    }
  }
  std::sort(latencies.begin(), latencies.end());
  latencies.erase(std::unique(latencies.begin(), latencies.end()), latencies.end());

  Search search(t, allowed, r, cost);
  if (out.usable < r.size) {
    // Too few chips for any shape: nothing to search (explain says so).
  } else if (r.size == 1) {
    // One chip is every shape, with no hop.
    for (std::uint32_t a = 0; a < n; ++a)
      if (allowed[a]) {
        out.accelerators = {a};
        break;
      }
  } else if (r.deterministic) {
    // Each latency class on its own: a schedule with one hop latency.
    for (float latency : latencies) search.run(edges, latency);
  } else {
    search.run(edges, std::nullopt);
  }
  if (r.size > 1) out.accelerators = search.best();
  out.searched = search.searched() || (r.size == 1 && out.usable > 0);
  out.longest = out.accelerators.empty() ? std::min(search.longest(), out.usable) : r.size;
  if (out.searched && out.usable > 0 && out.longest == 0) out.longest = 1;  // a single chip is a chain of one
  out.joined = r.shape == ChainShape::group ? out.longest : search.joined();
  if (!out.accelerators.empty()) out.joined = std::max(out.joined, r.size);
  out.exhausted = search.exhausted();
  out.pruned = search.pruned();
  if (r.spare && !out.accelerators.empty()) {
    auto [first, last] = t.domains_at(*r.spare);
    (void)last;
    for (std::uint32_t a : out.accelerators) {
      DomainId d = t.ancestor(t.device(accels[a]).domain, *r.spare);
      DomainId spare = spares[d - first];
      if (spare != kNone && std::find(out.spares.begin(), out.spares.end(), spare) == out.spares.end())
        out.spares.push_back(spare);
    }
    std::sort(out.spares.begin(), out.spares.end());
  }
  return out;
}

}  // namespace topoplan
