// What pods use on each node besides accelerators: cpu, memory, pods and the
// other resources of a Kubernetes node's allocatable. Accelerators are
// counted by the Occupancy; this is the rest, for the policies that place
// pods (kueue). It holds the pods already running (`--occupied` with a pod
// list) and the pods the planner places.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/resources.hpp"
#include "topoplan/model/topology.hpp"

namespace topoplan {

class NodeUsage {
 public:
  explicit NodeUsage(const Topology& topology);

  const Topology& topology() const { return *topology_; }
  /// What pods on `node` (a host-level domain) use of `resource`; `pods`
  /// counts them.
  std::int64_t used(DomainId node, std::string_view resource) const;
  /// The same for every node, indexed from the first host-level domain, or
  /// null when no pod uses the resource: a policy reads it node by node.
  const std::vector<std::int64_t>* column(std::string_view resource) const;
  /// `pods` pods requesting `per_pod` each (and one `pods` each) on `node`;
  /// a negative `pods` takes them away.
  void add(DomainId node, const ResourceList& per_pod, std::int64_t pods);
  /// Adds `usage` as it is (a running pod's requests, `pods` included).
  void add_total(DomainId node, const ResourceList& usage);
  /// Counts every change, so that a cache can tell whether it is stale.
  std::uint64_t version() const { return version_; }

 private:
  std::vector<std::int64_t>& column_for(std::string_view resource);

  const Topology* topology_;
  DomainId first_node_ = 0;
  std::size_t nodes_ = 0;
  std::map<std::string, std::vector<std::int64_t>, std::less<>> columns_;  // per resource, per node
  std::uint64_t version_ = 0;
};

/// Pods already running on the nodes (kubectl get pods): per node, the
/// requests of the scheduled pods that are not finished, `pods` included,
/// and the accelerators among them.
struct RunningPods {
  struct OnNode {
    DomainId node = kNone;
    ResourceList requests;          // all resources, `pods` and accelerators included
    std::uint32_t accelerators = 0;  // nvidia.com/gpu and amd.com/gpu among them
  };
  std::vector<OnNode> nodes;  // in node order, each node once
  std::size_t pods = 0;       // pods counted
};

}  // namespace topoplan
