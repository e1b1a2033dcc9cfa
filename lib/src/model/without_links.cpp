#include "topoplan/model/without_links.hpp"

#include "topoplan/model/device_overrides.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "topoplan/model/topology_builder.hpp"

namespace topoplan {

namespace {

// The same topology through the builder, without the `removed` links and
// with the `overrides` applied.
Topology rebuild(const Topology& t, std::span<const LinkId> removed, std::span<const DeviceOverride> overrides) {
  std::vector<std::string> levels;
  for (const Level& level : t.levels()) levels.push_back(level.name);
  TopologyBuilder b(t.name(), std::move(levels));
  b.set_description(t.description());
  b.set_parameters(t.parameters());
  b.set_nccl_environment(t.nccl_environment());
  // Origins keep their indices (0 is the builder's own "unknown"): every
  // index up to the largest one in use is copied in order.
  std::uint32_t last_origin = 0;
  for (const Device& d : t.devices()) last_origin = std::max(last_origin, d.origin);
  for (const Link& l : t.links()) last_origin = std::max(last_origin, l.origin);
  for (DomainId d = 0; d < t.domain_count(); ++d) last_origin = std::max(last_origin, t.domain(d).origin);
  for (std::uint32_t i = 1; i <= last_origin; ++i) b.add_origin(t.origin(i));

  // Domain ids are (level, depth-first position): adding them in id order
  // gives the builder the same tree in the same order, hence the same ids.
  for (DomainId d = 1; d < t.domain_count(); ++d) {
    const Domain& dom = t.domain(d);
    b.add_domain(dom.parent, t.str(dom.name), dom.origin);
    if (dom.level == t.host_level()) b.set_hostname(d, t.str(dom.hostname));
    if (dom.resources) b.set_node_resources(d, t.node_resources(d));
    if (t.altered(d)) b.mark_altered(d);
  }
  for (DomainId d = 0; d < t.domain_count(); ++d)
    if (t.domain(d).labels) b.set_domain_labels(d, t.labels(t.domain(d).labels));
  std::vector<const DeviceOverride*> changed(t.device_count(), nullptr);
  for (const DeviceOverride& o : overrides)
    if (o.device < changed.size()) changed[o.device] = &o;
  for (DeviceId id = 0; id < t.device_count(); ++id) {
    const Device& dev = t.device(id);
    DeviceProperties p;
    p.model = t.str(dev.model);
    p.memory_gib = dev.memory_gib;
    p.speed = dev.speed;
    p.state = dev.state;
    p.labels = t.labels(dev.labels);
    if (changed[id]) {
      p.speed = changed[id]->speed;
      p.state = changed[id]->state;
      b.mark_altered(dev.domain);
    }
    b.add_device(dev.domain, dev.kind, t.str(dev.name), p, dev.origin);
  }
  for (const LinkType& type : t.link_types()) b.link_type_index(type);
  std::vector<std::uint8_t> gone(t.link_count(), 0);
  // A removed link alters the domains owning its two ends: a switch's rack
  // and a GPU's node no longer match their unaltered twins.
  for (LinkId l : removed)
    if (l < gone.size()) {
      gone[l] = 1;
      b.mark_altered(t.device(t.link(l).a).domain);
      b.mark_altered(t.device(t.link(l).b).domain);
    }
  for (LinkId id = 0; id < t.link_count(); ++id) {
    if (gone[id]) continue;
    const Link& l = t.link(id);
    b.add_link(l.a, l.b, l.type, l.count, static_cast<double>(l.bandwidth), static_cast<double>(l.latency_us),
               l.origin);
  }
  DiagnosticSink sink;
  std::vector<SpeedClass> classes(t.speed_classes().begin(), t.speed_classes().end());
  return with_speed_classes(b.finish(sink), std::move(classes));
}

}  // namespace

Topology without_links(const Topology& t, std::span<const LinkId> removed) { return rebuild(t, removed, {}); }

Topology with_device_overrides(const Topology& t, std::span<const DeviceOverride> overrides) {
  return rebuild(t, {}, overrides);
}

Topology with_speed_classes(Topology t, std::vector<SpeedClass> classes) {
  std::sort(classes.begin(), classes.end(), [](const SpeedClass& a, const SpeedClass& b) { return a.name < b.name; });
  t.speed_classes_ = std::move(classes);
  return t;
}

}  // namespace topoplan
