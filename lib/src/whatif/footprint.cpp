#include "topoplan/whatif/footprint.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

namespace topoplan {

namespace {

bool host_kind(DeviceKind k) { return k == DeviceKind::cpu || k == DeviceKind::pcie_switch; }

class FootprintBuilder {
 public:
  FootprintBuilder(const Topology& t, const ScaleUpIslands& islands, std::span<const DeviceId> replica)
      : t_(t), islands_(islands), mine_(replica.begin(), replica.end()) {
    std::sort(mine_.begin(), mine_.end());
    mine_.erase(std::unique(mine_.begin(), mine_.end()), mine_.end());
    mine_.erase(std::remove_if(mine_.begin(), mine_.end(),
                               [&](DeviceId d) { return t.accelerator_index(d) == kNone; }),
                mine_.end());
  }

  Footprint build() {
    std::set<std::pair<bool, std::uint32_t>> groups;  // (plain node, island or node id)
    for (DeviceId d : mine_) {
      std::uint32_t island = islands_.island_of[t_.accelerator_index(d)];
      DomainId node = t_.device(d).domain;
      if (island != kNone) {
        groups.insert({false, island});
        ++per_island_[island];
      } else {
        groups.insert({true, node});
        ++per_plain_node_[node];
      }
      nodes_.insert(node);
    }
    const bool network = groups.size() > 1;
    for (DomainId node : nodes_) host(node);
    for (DeviceId d : mine_) {
      scale_up(d);
      if (network) nearest(d, DeviceKind::nic);
    }
    // Links between NVSwitch tiers the replica uses.
    for (DeviceId s : nvswitches_)
      for (LinkId l : t_.links_of(s))
        if (nvswitches_.count(t_.link(l).other(s))) links_.push_back(l);
    if (network) switches();
    std::sort(devices_.begin(), devices_.end());
    devices_.erase(std::unique(devices_.begin(), devices_.end()), devices_.end());
    std::sort(links_.begin(), links_.end());
    links_.erase(std::unique(links_.begin(), links_.end()), links_.end());
    return {std::move(devices_), std::move(links_)};
  }

 private:
  bool is_mine(DeviceId d) const { return std::binary_search(mine_.begin(), mine_.end(), d); }

  // Every CPU of the node and the socket links between them; the shortest
  // paths from each of the replica's accelerators to a CPU; and for a node
  // without scale-up links that holds two or more of them, its PCIe tree.
  void host(DomainId node) {
    std::vector<DeviceId> tree;  // the node's CPUs and PCIe switches reachable from its accelerators
    std::set<DeviceId> seen;
    std::deque<DeviceId> queue;
    for (DeviceId d : mine_)
      if (t_.device(d).domain == node) {
        queue.push_back(d);
        seen.insert(d);
      }
    while (!queue.empty()) {
      DeviceId d = queue.front();
      queue.pop_front();
      for (LinkId l : t_.links_of(d)) {
        DeviceId o = t_.link(l).other(d);
        if (t_.device(o).domain != node || !host_kind(t_.device(o).kind) || !seen.insert(o).second) continue;
        tree.push_back(o);
        queue.push_back(o);
      }
    }
    for (DeviceId d : tree)
      if (t_.device(d).kind == DeviceKind::cpu) {
        devices_.push_back(d);
        for (LinkId l : t_.links_of(d))
          if (t_.device(t_.link(l).other(d)).kind == DeviceKind::cpu) links_.push_back(l);
      }
    for (DeviceId d : mine_)
      if (t_.device(d).domain == node) nearest(d, DeviceKind::cpu);
    auto plain = per_plain_node_.find(node);
    if (plain != per_plain_node_.end() && plain->second > 1) {
      std::set<DeviceId> inside(tree.begin(), tree.end());
      for (DeviceId d : tree) {
        devices_.push_back(d);
        for (LinkId l : t_.links_of(d)) {
          DeviceId o = t_.link(l).other(d);
          if (inside.count(o) || is_mine(o)) links_.push_back(l);
        }
      }
    }
  }

  // Marks the shortest paths from accelerator `from` to the nearest devices
  // of `kind` (CPUs or NICs) in its node, through CPUs and PCIe switches.
  void nearest(DeviceId from, DeviceKind kind) {
    const DomainId node = t_.device(from).domain;
    std::map<DeviceId, std::uint32_t> dist{{from, 0}};
    std::map<DeviceId, std::vector<std::pair<DeviceId, LinkId>>> parents;
    std::vector<DeviceId> frontier{from}, found;
    for (std::uint32_t depth = 1; !frontier.empty() && found.empty() && depth <= 8; ++depth) {
      std::vector<DeviceId> next;
      for (DeviceId d : frontier)
        for (LinkId l : t_.links_of(d)) {
          DeviceId o = t_.link(l).other(d);
          const Device& od = t_.device(o);
          if (od.domain != node) continue;
          if (od.kind != kind && !host_kind(od.kind)) continue;
          auto it = dist.find(o);
          if (it == dist.end()) {
            dist.emplace(o, depth);
            parents[o].push_back({d, l});
            next.push_back(o);
            if (od.kind == kind) found.push_back(o);
          } else if (it->second == depth) {
            parents[o].push_back({d, l});
          }
        }
      // Only the nearest CPUs or NICs count; paths do not pass through them.
      next.erase(std::remove_if(next.begin(), next.end(), [&](DeviceId o) { return t_.device(o).kind == kind; }),
                 next.end());
      frontier = std::move(next);
    }
    // Walk back from what was found along every shortest path.
    std::vector<DeviceId> walk = found;
    std::set<DeviceId> done;
    while (!walk.empty()) {
      DeviceId d = walk.back();
      walk.pop_back();
      if (d == from || !done.insert(d).second) continue;
      devices_.push_back(d);
      for (auto [parent, link] : parents[d]) {
        links_.push_back(link);
        walk.push_back(parent);
      }
      if (kind == DeviceKind::nic && t_.device(d).kind == DeviceKind::nic) nics_.push_back(d);
    }
  }

  // NVSwitches and direct scale-up links inside the islands where the
  // replica has two or more accelerators.
  void scale_up(DeviceId d) {
    std::uint32_t island = islands_.island_of[t_.accelerator_index(d)];
    if (island == kNone || per_island_[island] < 2) return;
    for (LinkId l : t_.links_of(d)) {
      if (!is_scale_up(t_.link_type(t_.link(l)).family)) continue;
      DeviceId o = t_.link(l).other(d);
      DeviceKind k = t_.device(o).kind;
      if (k == DeviceKind::nvswitch) {
        links_.push_back(l);
        devices_.push_back(o);
        nvswitches_.insert(o);
      } else if (is_accelerator(k) && is_mine(o)) {
        links_.push_back(l);
      }
    }
  }

  // Whether traffic of the replica crosses the switch tier of `domain`: the
  // domain holds part of it, and not all of it inside one child.
  bool crosses(DomainId domain) {
    auto it = crosses_.find(domain);
    if (it != crosses_.end()) return it->second;
    const LevelIndex level = t_.domain(domain).level;
    bool inside = false;
    std::set<DomainId> children;
    for (DeviceId d : mine_) {
      DomainId node = t_.device(d).domain;
      if (!t_.contains(domain, node)) {
        children.insert(kNone);  // part of it is outside: traffic leaves the domain
        continue;
      }
      inside = true;
      children.insert(level == t_.host_level() ? node : t_.ancestor(node, level + 1));
    }
    bool result = inside && children.size() > 1;
    crosses_.emplace(domain, result);
    return result;
  }

  // The network switches reached from the replica's NICs whose tier its
  // traffic crosses, and the links between them.
  void switches() {
    std::set<DeviceId> used;
    std::deque<DeviceId> queue;
    std::sort(nics_.begin(), nics_.end());
    nics_.erase(std::unique(nics_.begin(), nics_.end()), nics_.end());
    // Traffic climbs to the tier that joins its parts and comes down at the
    // other NICs' own switches: from a switch it goes on only to switches of
    // the same domain or one above (a spine does not lead to other leaves).
    auto visit = [&](DeviceId from) {
      const bool from_switch = t_.device(from).kind == DeviceKind::network_switch;
      for (LinkId l : t_.links_of(from)) {
        DeviceId o = t_.link(l).other(from);
        if (t_.device(o).kind != DeviceKind::network_switch || !crosses(t_.device(o).domain)) continue;
        if (from_switch && !t_.contains(t_.device(o).domain, t_.device(from).domain)) continue;
        links_.push_back(l);
        if (used.insert(o).second) queue.push_back(o);
      }
    };
    for (DeviceId nic : nics_) visit(nic);
    while (!queue.empty()) {
      DeviceId s = queue.front();
      queue.pop_front();
      devices_.push_back(s);
      visit(s);
    }
  }

  const Topology& t_;
  const ScaleUpIslands& islands_;
  std::vector<DeviceId> mine_;  // its accelerators, sorted
  std::map<std::uint32_t, std::uint32_t> per_island_;
  std::map<DomainId, std::uint32_t> per_plain_node_;
  std::set<DomainId> nodes_;
  std::set<DeviceId> nvswitches_;
  std::vector<DeviceId> nics_;
  std::map<DomainId, bool> crosses_;
  std::vector<DeviceId> devices_;
  std::vector<LinkId> links_;
};

}  // namespace

Footprint replica_footprint(const Topology& t, const ScaleUpIslands& islands, std::span<const DeviceId> replica) {
  return FootprintBuilder(t, islands, replica).build();
}

}  // namespace topoplan
