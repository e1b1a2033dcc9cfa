#include "topoplan/model/fabric.hpp"

#include <algorithm>
#include <numeric>

#include "support/disjoint_sets.hpp"

namespace topoplan {

namespace {

bool scale_up_device(DeviceKind kind) { return is_accelerator(kind) || kind == DeviceKind::nvswitch; }

}  // namespace

ScaleUpIslands find_scale_up_islands(const Topology& topology) {
  ScaleUpIslands out;
  const std::size_t n = topology.device_count();
  DisjointSets<std::uint32_t> uf(n);
  std::vector<bool> linked(n, false);
  for (const Link& link : topology.links()) {
    if (!is_scale_up(topology.link_type(link).family)) continue;
    if (!scale_up_device(topology.device(link.a).kind) || !scale_up_device(topology.device(link.b).kind)) continue;
    uf.join(link.a, link.b);
    linked[link.a] = linked[link.b] = true;
  }
  auto accels = topology.accelerators();
  out.island_of.assign(accels.size(), kNone);
  std::vector<std::uint32_t> id_of_root(n, kNone);
  for (std::size_t i = 0; i < accels.size(); ++i) {
    DeviceId dev = accels[i];
    if (!linked[dev]) continue;
    std::uint32_t root = uf.find(dev);
    if (id_of_root[root] == kNone) {
      id_of_root[root] = static_cast<std::uint32_t>(out.size.size());
      out.size.push_back(0);
    }
    out.island_of[i] = id_of_root[root];
    ++out.size[id_of_root[root]];
  }

  // The finest level at which no island crosses a domain boundary.
  LevelIndex finest = topology.host_level();
  std::vector<DomainId> domain_of_island(out.size.size(), kNone);
  for (LevelIndex level = topology.host_level() + 1; level-- > 0;) {
    std::fill(domain_of_island.begin(), domain_of_island.end(), kNone);
    bool whole = true;
    for (std::size_t i = 0; i < accels.size() && whole; ++i) {
      std::uint32_t island = out.island_of[i];
      if (island == kNone) continue;
      DomainId d = topology.ancestor(topology.device(accels[i]).domain, level);
      if (domain_of_island[island] == kNone)
        domain_of_island[island] = d;
      else if (domain_of_island[island] != d)
        whole = false;
    }
    if (whole) {
      finest = level;
      break;
    }
    finest = 0;
  }
  out.level = finest;
  // Is each domain of that level exactly one island (and fully linked)?
  bool exact = !out.size.empty();
  auto [first, last] = topology.domains_at(finest);
  for (DomainId d = first; d < last && exact; ++d) {
    const Domain& dom = topology.domain(d);
    if (dom.accelerator_count() == 0) continue;
    std::uint32_t island = out.island_of[dom.accel_begin];
    if (island == kNone || out.size[island] != dom.accelerator_count()) exact = false;
  }
  out.level_is_island = exact;
  return out;
}

std::vector<Egress> domain_egress(const Topology& topology) {
  std::vector<Egress> out(topology.domain_count());
  for (const Link& link : topology.links()) {
    DomainId a = topology.device(link.a).domain;
    DomainId b = topology.device(link.b).domain;
    if (a == b) continue;  // inside one domain: it leaves none
    const LinkFamily family = topology.link_type(link).family;
    const double bw = link.total_bandwidth();
    auto add = [&](DomainId d) {
      Egress& e = out[d];
      if (is_scale_up(family) || family == LinkFamily::nvlink_c2c)
        e.scale_up += bw;
      else if (is_network(family))
        e.network += bw;
      else
        e.other += bw;
    };
    // Climb from both ends to where they meet: every domain passed on the
    // way holds one end and not the other, so the link leaves it.
    while (a != b) {
      const LevelIndex la = topology.domain(a).level;
      const LevelIndex lb = topology.domain(b).level;
      if (la >= lb) {
        add(a);
        a = topology.domain(a).parent;
      }
      if (lb >= la) {
        add(b);
        b = topology.domain(b).parent;
      }
    }
  }
  return out;
}

std::vector<SwitchLoad> switch_loads(const Topology& topology) {
  std::vector<SwitchLoad> out;
  for (DeviceId dev = 0; dev < topology.device_count(); ++dev) {
    const Device& d = topology.device(dev);
    if (d.kind != DeviceKind::network_switch) continue;
    SwitchLoad load;
    load.device = dev;
    LevelIndex own = topology.domain(d.domain).level;
    for (LinkId id : topology.links_of(dev)) {
      const Link& link = topology.link(id);
      const Device& peer = topology.device(link.other(dev));
      LevelIndex peer_level = topology.domain(peer.domain).level;
      if (peer_level > own)
        load.down += link.total_bandwidth();
      else
        load.up += link.total_bandwidth();
    }
    out.push_back(load);
  }
  return out;
}

}  // namespace topoplan
