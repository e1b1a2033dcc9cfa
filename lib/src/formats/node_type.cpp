#include "topoplan/formats/node_type.hpp"

#include <map>

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
  for (int i = 0; i < gpus; ++i) {
    t.devices_.push_back({DeviceKind::nic, fmt::format("nic{}", i), "", 0, 1.0f, {}});
    t.links_.push_back({0, t.devices_.size() - 1, pcie, 1, -1, -1});
  }
  t.accelerators_ = gpus;
  t.description_ = fmt::format("{} x {} (generic: PCIe only, one NIC per GPU)", gpus, model);
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
    t.links_.push_back({a->second, b->second, topology.link_type(link), link.count, link.bandwidth, link.latency_us});
  }
  if (t.accelerators_ == 0)
    throw InputError({topology.name(), 0, 0},
                     fmt::format("node '{}' of the node type has no accelerator", topology.domain_name(node)));
  t.description_ = fmt::format("{} x {} from {}", t.accelerators_, accel_model.empty() ? "accelerator" : accel_model,
                               topology.name());
  return t;
}

std::vector<DeviceId> NodeType::instantiate(TopologyBuilder& builder, DomainId node) const {
  std::vector<DeviceId> ids;
  ids.reserve(devices_.size());
  std::vector<DeviceId> nics;
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
  return nics;
}

}  // namespace topoplan
