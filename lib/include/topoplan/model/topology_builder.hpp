// Builds a Topology piece by piece and checks its invariants once at the end.
// The YAML loader, the importers and unit tests all build through this class.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "topoplan/model/topology.hpp"

namespace topoplan {

/// Properties of a device other than its kind and name.
struct DeviceProperties {
  std::string_view model;
  float memory_gib = 0;
  float speed = 1.0f;
  DeviceState state = DeviceState::up;
  Labels labels;
};

/// Why `name` cannot name a topology, domain, node or device ("" when it
/// can): empty, longer than 253 bytes, or holding a space, a control
/// character or a character the native format and hostlists reserve
/// (`/ * ? [ ] , { } " ' \ : =`). Every Topology holds only such names, so
/// that any of them can be written in the native format and read back.
std::string name_problem(std::string_view name);

class TopologyBuilder {
 public:
  /// `levels` coarsest first; the last is the host level. The root domain (the
  /// only domain of level 0) is created at once and named after the topology.
  TopologyBuilder(std::string name, std::vector<std::string> levels);

  void set_description(std::string description);
  void set_parameters(std::vector<TopologyParameter> parameters);
  void set_nccl_environment(NcclEnvironment environment);

  /// Records where something was defined; returns the index to pass as `origin`.
  std::uint32_t add_origin(SourceLocation where);

  DomainId root() const { return 0; }
  /// A child of `parent` at the next level; `origin` says where it came from.
  DomainId add_domain(DomainId parent, std::string_view local_name, std::uint32_t origin = 0);
  void set_hostname(DomainId node, std::string_view hostname);
  void set_domain_labels(DomainId domain, Labels labels);
  /// What node `node` offers besides its accelerators (a Kubernetes node's
  /// allocatable, taints and state).
  void set_node_resources(DomainId node, NodeResources resources);
  /// Records that a rebuild changed what `domain` owns (Topology::altered).
  void mark_altered(DomainId domain);
  const NodeResources& node_resources(DomainId node) const { return node_resources_[domains_[node].resources]; }
  LevelIndex level_of(DomainId domain) const { return domains_[domain].level; }
  std::size_t level_count() const { return levels_.size(); }
  std::size_t domain_count() const { return domains_.size(); }
  DomainId parent(DomainId domain) const { return domains_[domain].parent; }
  const std::vector<DomainId>& children(DomainId domain) const { return domains_[domain].children; }
  std::string_view domain_local_name(DomainId domain) const { return strings_[domains_[domain].name]; }
  std::string_view hostname(DomainId node) const { return strings_[domains_[node].hostname]; }
  std::string_view device_local_name(DeviceId device) const { return strings_[devices_[device].name]; }
  DeviceKind device_kind(DeviceId device) const { return devices_[device].kind; }
  DomainId device_domain(DeviceId device) const { return devices_[device].domain; }
  std::size_t link_count() const { return links_.size(); }

  DeviceId add_device(DomainId owner, DeviceKind kind, std::string_view local_name,
                      const DeviceProperties& properties, std::uint32_t origin = 0);
  /// Changes the mutable properties of a device already added (overrides).
  void set_device_state(DeviceId device, DeviceState state);
  void set_device_speed(DeviceId device, float speed);
  void set_device_memory(DeviceId device, float memory_gib);
  void add_device_labels(DeviceId device, const Labels& labels);
  std::size_t device_count() const { return devices_.size(); }

  /// `count` parallel links of `type`; bandwidth (GB/s per direction, per link)
  /// and latency default to the type's when negative.
  LinkId add_link(DeviceId a, DeviceId b, const LinkType& type, int count = 1,
                  double bandwidth = -1, double latency_us = -1, std::uint32_t origin = 0);
  /// The index of `type` among the types used so far (adding it if new), for
  /// the faster add_link overload below.
  std::uint16_t link_type_index(const LinkType& type);
  LinkId add_link(DeviceId a, DeviceId b, std::uint16_t type, int count, double bandwidth, double latency_us,
                  std::uint32_t origin);
  /// Appends a copy of links [first, last) with both ends `device_offset`
  /// devices further on: the links of a repeated subtree, whose devices were
  /// added in the same order as those of the subtree the links belong to.
  void repeat_links(std::size_t first, std::size_t last, std::uint32_t device_offset);
  /// Whether domains [a, a + n) and [b, b + n) have the same local names,
  /// pairwise.
  bool same_local_names(DomainId a, DomainId b, std::size_t n) const;

  /// Checks the invariants documented in topology.hpp, reporting every
  /// violation to `sink`, and returns the finished topology. Throws InputError
  /// when anything was reported.
  Topology finish(DiagnosticSink& sink);

 private:
  StringId intern(std::string_view text);

  struct PendingDomain {
    StringId name = 0;
    StringId hostname = 0;
    DomainId parent = kNone;
    LevelIndex level = 0;
    std::uint32_t labels = 0;
    std::uint32_t origin = 0;
    std::uint32_t resources = 0;
    std::vector<DomainId> children;
  };

  std::string name_;
  std::string description_;
  std::vector<TopologyParameter> parameters_;
  NcclEnvironment nccl_environment_;
  std::vector<std::string> levels_;
  std::vector<PendingDomain> domains_;
  std::vector<Device> devices_;
  std::vector<Link> links_;
  std::vector<LinkType> link_types_;
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> strings_;
  std::unordered_map<std::string, StringId, StringHash, std::equal_to<>> string_ids_;
  std::vector<Labels> labels_;
  std::vector<NodeResources> node_resources_;
  std::vector<std::uint8_t> altered_;  // per domain, once one is marked
  std::vector<SourceLocation> origins_;
};

}  // namespace topoplan
