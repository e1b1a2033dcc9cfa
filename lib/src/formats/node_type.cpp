#include "topoplan/formats/node_type.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "topoplan/support/error.hpp"

namespace topoplan {

NodeType NodeType::generic(int gpus, std::string model) {
  NodeType t;
  t.devices_.push_back({DeviceKind::cpu, "cpu0", "", 0, 1.0f, {}});
  LinkType pcie = *find_link_type("pcie5x16");
  for (int i = 0; i < gpus; ++i) {
    t.devices_.push_back({DeviceKind::gpu, fmt::format("gpu{}", i), model, 0, 1.0f, {}});
    t.links_.push_back({0, t.devices_.size() - 1, pcie, 1, -1, -1});
  }
  // One NIC per GPU; a node without GPUs (a CPU node) still has one.
  for (int i = 0; i < std::max(gpus, 1); ++i) {
    t.devices_.push_back({DeviceKind::nic, fmt::format("nic{}", i), "", 0, 1.0f, {}});
    t.links_.push_back({0, t.devices_.size() - 1, pcie, 1, -1, -1});
  }
  t.accelerators_ = gpus;
  t.description_ = gpus > 0 ? fmt::format("{} x {} (generic: PCIe only, one NIC per GPU)", gpus, model)
                            : std::string("CPU only (generic: one NIC)");
  return t;
}

NodeType NodeType::copy_of(const Topology& topology) {
  NodeType t;
  auto [first, last] = topology.domains_at(topology.host_level());
  if (first == last) throw InputError({topology.name(), 0, 0}, "the node type has no node");
  DomainId node = first;
  std::map<DeviceId, std::size_t> index;
  std::string accel_model;
  for (DeviceId d = 0; d < topology.device_count(); ++d) {
    const Device& dev = topology.device(d);
    if (dev.domain != node) continue;
    index[d] = t.devices_.size();
    t.devices_.push_back({dev.kind, std::string(topology.str(dev.name)), std::string(topology.str(dev.model)),
                          dev.memory_gib, dev.speed, topology.labels(dev.labels)});
    if (is_accelerator(dev.kind)) {
      ++t.accelerators_;
      accel_model = topology.str(dev.model);
    }
  }
  for (const Link& link : topology.links()) {
    auto a = index.find(link.a), b = index.find(link.b);
    if (a == index.end() || b == index.end()) continue;
    t.links_.push_back({a->second, b->second, topology.link_type(link), link.count, static_cast<double>(link.bandwidth),
                        static_cast<double>(link.latency_us)});
  }
  if (t.accelerators_ == 0)
    throw InputError({topology.name(), 0, 0},
                     fmt::format("node '{}' of the node type has no accelerator", topology.domain_name(node)));
  // A scale-up fabric that leaves the node (NVL72's NVLink switch trays sit
  // in the rack): remember its switches and the node's links to them, and
  // count the nodes they serve.
  std::map<DeviceId, std::size_t> island_index;
  for (const auto& [d, i] : index) {
    for (LinkId l : topology.links_of(d)) {
      const Link& link = topology.link(l);
      DeviceId other = link.other(d);
      if (!is_scale_up(topology.link_type(link).family) || index.count(other)) continue;
      auto [it, fresh] = island_index.try_emplace(other, t.island_.size());
      if (fresh) {
        const Device& dev = topology.device(other);
        t.island_.push_back({dev.kind, std::string(topology.str(dev.name)), std::string(topology.str(dev.model)),
                             dev.memory_gib, dev.speed, topology.labels(dev.labels)});
      }
      t.island_links_.push_back({i, it->second, topology.link_type(link), link.count,
                                 static_cast<double>(link.bandwidth), static_cast<double>(link.latency_us)});
    }
  }
  if (!island_index.empty()) {
    std::set<DomainId> nodes;
    for (const auto& [sw, i] : island_index)
      for (LinkId l : topology.links_of(sw)) {
        DomainId owner = topology.device(topology.link(l).other(sw)).domain;
        if (topology.domain(owner).level == topology.host_level()) nodes.insert(owner);
      }
    t.island_nodes_ = static_cast<int>(nodes.size());
  }
  t.description_ = fmt::format("{} x {} from {}", t.accelerators_, accel_model.empty() ? "accelerator" : accel_model,
                               topology.name());
  if (t.island_nodes_ > 1) t.description_ += fmt::format(", {}-node scale-up islands", t.island_nodes_);
  return t;
}

NodeType::Instance NodeType::instantiate_node(TopologyBuilder& builder, DomainId node) const {
  Instance instance;
  std::vector<DeviceId>& ids = instance.devices;
  ids.reserve(devices_.size());
  std::vector<DeviceId>& nics = instance.nics;
  for (const DeviceSpec& d : devices_) {
    DeviceProperties p;
    p.model = d.model;
    p.memory_gib = d.memory_gib;
    p.speed = d.speed;
    p.labels = d.labels;
    ids.push_back(builder.add_device(node, d.kind, d.name, p));
    if (d.kind == DeviceKind::nic) nics.push_back(ids.back());
  }
  for (const LinkSpec& l : links_) builder.add_link(ids[l.a], ids[l.b], l.type, l.count, l.bandwidth, l.latency_us);
  return instance;
}

void NodeType::instantiate_island(TopologyBuilder& builder, DomainId domain, const std::vector<Instance>& nodes,
                                  std::string_view prefix) const {
  if (island_.empty() || nodes.empty()) return;
  std::vector<DeviceId> switches;
  for (const DeviceSpec& d : island_) {
    DeviceProperties p;
    p.model = d.model;
    p.labels = d.labels;
    switches.push_back(builder.add_device(domain, d.kind, std::string(prefix) + d.name, p));
  }
  for (const Instance& node : nodes)
    for (const LinkSpec& l : island_links_)
      builder.add_link(node.devices[l.a], switches[l.b], l.type, l.count, l.bandwidth, l.latency_us);
}

}  // namespace topoplan
