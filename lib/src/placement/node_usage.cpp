#include "topoplan/placement/node_usage.hpp"

namespace topoplan {

NodeUsage::NodeUsage(const Topology& topology) : topology_(&topology) {
  auto [first, last] = topology.domains_at(topology.host_level());
  first_node_ = first;
  nodes_ = last - first;
}

std::int64_t NodeUsage::used(DomainId node, std::string_view resource) const {
  const std::vector<std::int64_t>* c = column(resource);
  return c ? (*c)[node - first_node_] : 0;
}

const std::vector<std::int64_t>* NodeUsage::column(std::string_view resource) const {
  auto it = columns_.find(resource);
  return it == columns_.end() ? nullptr : &it->second;
}

std::vector<std::int64_t>& NodeUsage::column_for(std::string_view resource) {
  auto it = columns_.find(resource);
  if (it == columns_.end()) it = columns_.emplace(std::string(resource), std::vector<std::int64_t>(nodes_, 0)).first;
  return it->second;
}

void NodeUsage::add(DomainId node, const ResourceList& per_pod, std::int64_t pods) {
  for (const auto& [name, value] : per_pod) column_for(name)[node - first_node_] += value * pods;
  column_for("pods")[node - first_node_] += pods;
  ++version_;
}

void NodeUsage::add_total(DomainId node, const ResourceList& usage) {
  for (const auto& [name, value] : usage) column_for(name)[node - first_node_] += value;
  ++version_;
}

}  // namespace topoplan
