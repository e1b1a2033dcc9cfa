// What an importer puts inside each host it finds. Fabric-only formats
// (Slurm topology files, ibnetdiscover, Kubernetes node lists) name hosts and
// switches but say little or nothing about a host's insides; a NodeType fills
// them in, either generic or copied from a preset such as dgx-h100.
#pragma once

#include <string>
#include <vector>

#include "topoplan/model/link_type.hpp"
#include "topoplan/model/topology.hpp"
#include "topoplan/model/topology_builder.hpp"

namespace topoplan {

class NodeType {
 public:
  /// `gpus` GPUs and as many NICs, all on PCIe Gen5 x16 to one CPU. NVLink
  /// and NIC affinity are unknown, so nothing faster is assumed.
  static NodeType generic(int gpus, std::string model = "GPU");
  /// The first host (a domain of the host level) of `topology`: its devices
  /// and the links among them. Throws InputError when it has no accelerator.
  static NodeType copy_of(const Topology& topology);

  /// One node as added to a builder.
  struct Instance {
    std::vector<DeviceId> devices;  // every device, in the node type's order
    std::vector<DeviceId> nics;     // the ends to attach to the fabric
  };

  /// Adds the devices and links under `node`.
  Instance instantiate_node(TopologyBuilder& builder, DomainId node) const;
  /// The same, returning only the NICs (empty when the node type has none).
  std::vector<DeviceId> instantiate(TopologyBuilder& builder, DomainId node) const {
    return instantiate_node(builder, node).nics;
  }

  /// How many nodes share one scale-up island in the node type's source: 18
  /// for gb200-nvl72, whose GPUs reach the rack's NVLink switch trays; 1 when
  /// the scale-up fabric ends at the node (DGX, MI300X).
  int island_nodes() const { return island_nodes_; }
  /// Builds one multi-node island as the source has it: adds the island's
  /// switches (NVLink switch trays) under `domain`, their names prefixed by
  /// `prefix` (several islands in one domain need distinct names), and
  /// links the devices of `nodes` to them. Does nothing when island_nodes()
  /// is 1.
  void instantiate_island(TopologyBuilder& builder, DomainId domain, const std::vector<Instance>& nodes,
                          std::string_view prefix = {}) const;

  int accelerators() const { return accelerators_; }
  /// What it is, for comments in imported files ("8 x H100 from dgx-h100").
  const std::string& description() const { return description_; }

 private:
  struct DeviceSpec {
    DeviceKind kind;
    std::string name;
    std::string model;
    float memory_gib;
    float speed;
    Labels labels;
  };
  struct LinkSpec {
    std::size_t a, b;  // indices into devices_
    LinkType type;
    int count;
    double bandwidth;
    double latency_us;
  };
  std::vector<DeviceSpec> devices_;
  std::vector<LinkSpec> links_;
  // The multi-node island: its switches, and links from node devices
  // (LinkSpec::a indexes devices_) to them (LinkSpec::b indexes island_).
  std::vector<DeviceSpec> island_;
  std::vector<LinkSpec> island_links_;
  int island_nodes_ = 1;
  int accelerators_ = 0;
  std::string description_;
};

}  // namespace topoplan
