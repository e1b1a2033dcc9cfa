#include "topoplan/model/topology_validation.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "topoplan/model/fabric.hpp"

namespace topoplan {

namespace {

// Which device kinds a link family may join.
bool may_join(LinkFamily family, DeviceKind kind) {
  switch (family) {
    case LinkFamily::nvlink:
      return kind == DeviceKind::gpu || kind == DeviceKind::nvswitch || kind == DeviceKind::cpu;
    case LinkFamily::nvlink_c2c:  // Grace to Hopper/Blackwell
    case LinkFamily::xgmi:        // AMD GPUs and EPYC sockets
      return kind == DeviceKind::gpu || kind == DeviceKind::cpu;
    case LinkFamily::groq_c2c:
      return kind == DeviceKind::lpu;
    case LinkFamily::pcie:
      return kind != DeviceKind::network_switch && kind != DeviceKind::nvswitch;
    case LinkFamily::cpu_link:
      return kind == DeviceKind::cpu;
    case LinkFamily::infiniband:
    case LinkFamily::roce:
    case LinkFamily::ethernet:
      // Some accelerators (Gaudi, Groq hosts) carry their own network ports.
      return kind == DeviceKind::nic || kind == DeviceKind::network_switch || is_accelerator(kind);
  }
  return false;
}

}  // namespace

std::vector<Diagnostic> validate_topology(const Topology& topology) {
  std::vector<Diagnostic> problems;
  auto report = [&](std::uint32_t origin, std::string message) {
    problems.push_back({topology.origin(origin), std::move(message)});
  };

  for (LinkId id = 0; id < topology.link_count(); ++id) {
    const Link& link = topology.link(id);
    const LinkType& type = topology.link_type(link);
    for (DeviceId end : {link.a, link.b}) {
      const Device& d = topology.device(end);
      if (!may_join(type.family, d.kind))
        report(link.origin, fmt::format("a link of type {} cannot end at {} '{}'", type.name, kind_name(d.kind),
                                        topology.device_name(end)));
    }
  }

  // Devices without links, and a fabric that falls apart.
  std::vector<std::uint32_t> component(topology.device_count(), kNone);
  std::uint32_t components_with_accelerators = 0;
  DeviceId first_stranded = kNone;
  DeviceId first_accelerator = kNone;
  for (DeviceId start : topology.accelerators()) {
    if (component[start] != kNone) continue;
    std::uint32_t c = components_with_accelerators++;
    if (c == 0) first_accelerator = start;
    if (c == 1) first_stranded = start;
    std::vector<DeviceId> stack{start};
    component[start] = c;
    while (!stack.empty()) {
      DeviceId x = stack.back();
      stack.pop_back();
      for (LinkId id : topology.links_of(x)) {
        DeviceId y = topology.link(id).other(x);
        if (component[y] == kNone) {
          component[y] = c;
          stack.push_back(y);
        }
      }
    }
  }
  std::uint32_t isolated = 0;
  for (DeviceId id = 0; id < topology.device_count(); ++id) {
    if (!topology.links_of(id).empty()) continue;
    const Device& d = topology.device(id);
    if (is_accelerator(d.kind) && topology.accelerators().size() == 1) continue;
    if (++isolated <= 20)
      report(d.origin, fmt::format("{} '{}' has no links", kind_name(d.kind), topology.device_name(id)));
  }
  if (isolated > 20)
    problems.push_back({{}, fmt::format("{} more devices have no links", isolated - 20)});
  if (components_with_accelerators > 1 && first_stranded != kNone)
    report(topology.device(first_stranded).origin,
           fmt::format("the fabric falls apart into {} parts: '{}' cannot reach '{}'", components_with_accelerators,
                       topology.device_name(first_stranded), topology.device_name(first_accelerator)));

  // Within an island every accelerator should have the same bandwidth into
  // its switched fabric and to its node peers; fewer links usually means a
  // typo in a link rule (or a failed link). Direct links that leave the node
  // (dragonfly global links) are spread unevenly by design and not compared.
  ScaleUpIslands islands = find_scale_up_islands(topology);
  auto accels = topology.accelerators();
  std::vector<double> bw(accels.size(), 0);
  for (std::size_t i = 0; i < accels.size(); ++i) {
    DomainId node = topology.device(accels[i]).domain;
    for (LinkId id : topology.links_of(accels[i])) {
      const Link& link = topology.link(id);
      const Device& peer = topology.device(link.other(accels[i]));
      bool local = peer.kind == DeviceKind::nvswitch || (is_accelerator(peer.kind) && peer.domain == node);
      if (local && is_scale_up(topology.link_type(link).family)) bw[i] += link.total_bandwidth();
    }
  }
  std::vector<double> best(islands.size.size(), 0);
  for (std::size_t i = 0; i < accels.size(); ++i)
    if (islands.island_of[i] != kNone) best[islands.island_of[i]] = std::max(best[islands.island_of[i]], bw[i]);
  std::uint32_t weak = 0;
  for (std::size_t i = 0; i < accels.size(); ++i) {
    std::uint32_t island = islands.island_of[i];
    if (island == kNone || bw[i] >= best[island] * (1 - 1e-9)) continue;
    if (++weak <= 20)
      report(topology.device(accels[i]).origin,
             fmt::format("'{}' has {} GB/s of scale-up bandwidth while others in its island have {}",
                         topology.device_name(accels[i]), bw[i], best[island]));
  }
  if (weak > 20) problems.push_back({{}, fmt::format("{} more accelerators have less scale-up bandwidth", weak - 20)});
  return problems;
}

}  // namespace topoplan
