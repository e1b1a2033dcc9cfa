#include "topoplan/placement/node_usage.hpp"

namespace topoplan {

NodeUsage::NodeUsage(const Topology& topology) : topology_(&topology) {
  auto [first, last] = topology.domains_at(topology.host_level());
  first_node_ = first;
  used_.resize(last - first);
}

void NodeUsage::add(DomainId node, const ResourceList& per_pod, std::int64_t pods) {
  ResourceList& u = used_[node - first_node_];
  u.add(per_pod, pods);
  u.set("pods", u.value("pods") + pods);
  ++version_;
}

void NodeUsage::add_total(DomainId node, const ResourceList& usage) {
  used_[node - first_node_].add(usage);
  ++version_;
}

}  // namespace topoplan
