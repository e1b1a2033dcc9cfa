// The topology model: a hierarchy of named levels (every level a failure
// domain) and a graph of devices joined by links.
//
// Invariants (established by TopologyBuilder::finish):
// - levels are ordered coarsest first; the last level is the host level, whose
//   domains are nodes with hostnames; accelerators belong to nodes;
// - there is exactly one root domain (level 0), and every domain's parent is at
//   the level just above it;
// - domain ids are ordered by (level, depth-first position), so the domains of a
//   level, and the children of any domain, form contiguous id ranges;
// - accelerators() lists accelerators in depth-first order, so every domain owns
//   a contiguous range of it;
// - ids are dense and stable; iteration in id order is deterministic.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "topoplan/model/link_type.hpp"
#include "topoplan/model/nccl_environment.hpp"
#include "topoplan/model/resources.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

using DeviceId = std::uint32_t;
using LinkId = std::uint32_t;
using DomainId = std::uint32_t;
using LevelIndex = std::uint32_t;
using StringId = std::uint32_t;
inline constexpr std::uint32_t kNone = 0xffffffffu;

enum class DeviceKind : std::uint8_t { gpu, lpu, cpu, nic, pcie_switch, nvswitch, network_switch };
inline constexpr int kDeviceKindCount = 7;

std::string_view kind_name(DeviceKind kind);
std::optional<DeviceKind> parse_device_kind(std::string_view text);
std::vector<std::string> device_kind_names();
/// GPUs and LPUs: the devices jobs are placed on.
bool is_accelerator(DeviceKind kind);
/// NVSwitches and network switches: devices that only forward.
bool is_switch(DeviceKind kind);

enum class DeviceState : std::uint8_t { up, down, drain };
std::string_view state_name(DeviceState state);
std::optional<DeviceState> parse_device_state(std::string_view text);

/// Free-form key/value labels, sorted by key, keys unique.
using Labels = std::vector<std::pair<std::string, std::string>>;

struct Device {
  DeviceKind kind = DeviceKind::gpu;
  DeviceState state = DeviceState::up;
  DomainId domain = kNone;  // the domain that owns it; a node for node devices
  StringId name = 0;        // local name, unique within its domain
  StringId model = 0;       // model name; 0 is the empty string
  float memory_gib = 0;     // accelerator memory
  float speed = 1.0f;       // relative speed factor of an accelerator
  std::uint32_t labels = 0; // index into Topology::labels(); 0 = no labels
  std::uint32_t origin = 0; // index into Topology::origin(); where it was defined
};

struct Link {
  DeviceId a = kNone;
  DeviceId b = kNone;
  std::uint16_t type = 0;    // index into Topology::link_types()
  std::uint16_t count = 1;   // parallel links of this type between a and b
  float bandwidth = 0;       // GB/s per direction of ONE of the parallel links
  float latency_us = 0;      // one-way latency of one traversal
  std::uint32_t origin = 0;

  /// GB/s per direction of all parallel links together.
  double total_bandwidth() const { return static_cast<double>(bandwidth) * count; }
  DeviceId other(DeviceId end) const { return end == a ? b : a; }
};

struct Level {
  std::string name;
};

struct Domain {
  StringId name = 0;          // local name, unique among its siblings
  StringId hostname = 0;      // nodes only; 0 elsewhere
  DomainId parent = kNone;    // kNone for the root
  LevelIndex level = 0;
  DomainId first_child = kNone;
  std::uint32_t child_count = 0;
  std::uint32_t accel_begin = 0;  // [accel_begin, accel_end) in accelerators()
  std::uint32_t accel_end = 0;
  std::uint32_t labels = 0;
  std::uint32_t origin = 0;
  std::uint32_t resources = 0;    // nodes: index into the node resources; 0 = none known

  std::uint32_t accelerator_count() const { return accel_end - accel_begin; }
};

/// A named, user-settable parameter of a topology file (`racks`, `nodes`, ...).
struct TopologyParameter {
  std::string name;
  long long value = 0;
  long long default_value = 0;
  long long min = 1;
  long long max = 1;
  std::string help;
};

class TopologyBuilder;

/// The accelerators' speeds for jobs of one workload class (what the rows of
/// that class of a `--device-perf` file say, over its class-less rows).
struct SpeedClass {
  std::string name;
  std::vector<float> speed;  // relative, 1.0 = nominal; one per accelerator, in accelerators() order
};

/// An immutable topology. Build one with TopologyBuilder or load one with
/// load_topology (io/topology_source.hpp).
class Topology {
 public:
  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  const std::vector<TopologyParameter>& parameters() const { return parameters_; }
  /// The NCCL environment the platform sets (a topology file's `nccl:`);
  /// empty when the file sets none.
  const NcclEnvironment& nccl_environment() const { return nccl_environment_; }

  std::span<const Level> levels() const { return levels_; }
  LevelIndex host_level() const { return static_cast<LevelIndex>(levels_.size() - 1); }
  /// The level with this name, or nullopt.
  std::optional<LevelIndex> find_level(std::string_view name) const;

  std::size_t device_count() const { return devices_.size(); }
  const Device& device(DeviceId id) const { return devices_[id]; }
  std::span<const Device> devices() const { return devices_; }

  std::size_t link_count() const { return links_.size(); }
  const Link& link(LinkId id) const { return links_[id]; }
  std::span<const Link> links() const { return links_; }
  /// Links with `device` at either end, in link id order.
  std::span<const LinkId> links_of(DeviceId device) const;
  std::span<const LinkType> link_types() const { return link_types_; }
  const LinkType& link_type(const Link& link) const { return link_types_[link.type]; }

  std::size_t domain_count() const { return domains_.size(); }
  const Domain& domain(DomainId id) const { return domains_[id]; }
  DomainId root() const { return 0; }
  /// The domain ids at `level`: [first, last).
  std::pair<DomainId, DomainId> domains_at(LevelIndex level) const {
    return {level_begin_[level], level_begin_[level + 1]};
  }
  std::uint32_t domain_count_at(LevelIndex level) const {
    return level_begin_[level + 1] - level_begin_[level];
  }
  /// The ancestor of `domain` at `level` (itself when already at that level).
  /// `level` must not be finer than the domain's own level.
  DomainId ancestor(DomainId domain, LevelIndex level) const;
  /// Whether `inner` is `outer` or lies below it.
  bool contains(DomainId outer, DomainId inner) const;
  /// The domains at `level` below (or equal to) `domain`: a contiguous id
  /// range [first, last), empty when `level` is coarser than the domain's.
  std::pair<DomainId, DomainId> descendants_at(DomainId domain, LevelIndex level) const;

  /// Accelerators (GPUs, LPUs) in hierarchy order.
  std::span<const DeviceId> accelerators() const { return accelerators_; }
  /// Position of an accelerator in accelerators(); kNone for other devices.
  std::uint32_t accelerator_index(DeviceId device) const { return accel_index_[device]; }

  std::string_view str(StringId id) const { return strings_[id]; }
  const Labels& labels(std::uint32_t index) const { return labels_[index]; }
  const SourceLocation& origin(std::uint32_t index) const { return origins_[index]; }

  /// The workload classes with speeds of their own, by name; empty without
  /// a per-class performance file.
  std::span<const SpeedClass> speed_classes() const { return speed_classes_; }
  /// The class named `name`, or null (a job of that class sees `speed`).
  const SpeedClass* speed_class(std::string_view name) const;
  /// The speed of `device` for a job of class `workload` (null: the
  /// device's own `speed`, which is what jobs of the default class see).
  float speed(DeviceId device, const SpeedClass* workload) const {
    return workload && accel_index_[device] != kNone ? workload->speed[accel_index_[device]] : devices_[device].speed;
  }

  /// The node's hostname (nodes only).
  std::string_view hostname(DomainId node) const { return strings_[domains_[node].hostname]; }
  /// What a node offers besides its accelerators (allocatable, taints,
  /// state); empty allocatable and state up when nothing is known.
  const NodeResources& node_resources(DomainId node) const { return node_resources_[domains_[node].resources]; }
  /// Whether any node has resources recorded (a Kubernetes node list).
  bool has_node_resources() const { return node_resources_.size() > 1; }
  /// Whether a rebuild (without_links, with_device_overrides) changed a
  /// device or link this domain owns, so that its fabric may no longer be
  /// that of the other domains of its definition. False everywhere in a
  /// topology as loaded.
  bool altered(DomainId domain) const { return !altered_.empty() && altered_[domain] != 0; }
  /// `a/b/c`: local names from below the root down to `domain`; "" for the root.
  std::string domain_path(DomainId domain) const;
  /// The name by which users and other tools refer to a domain: the hostname
  /// for nodes, the path elsewhere, the topology name for the root.
  std::string domain_name(DomainId domain) const;
  /// `HOST/local` for devices in a node, `PATH/local` elsewhere, `local` at the root.
  std::string device_name(DeviceId device) const;

 private:
  friend class TopologyBuilder;
  friend Topology with_speed_classes(Topology topology, std::vector<SpeedClass> classes);
  friend Topology with_nccl_setting(Topology topology, NcclSetting setting);

  std::string name_;
  std::string description_;
  std::vector<TopologyParameter> parameters_;
  NcclEnvironment nccl_environment_;
  std::vector<Level> levels_;
  std::vector<Device> devices_;
  std::vector<Link> links_;
  std::vector<LinkType> link_types_;
  std::vector<Domain> domains_;
  std::vector<DomainId> level_begin_;      // size levels + 1
  std::vector<DeviceId> accelerators_;
  std::vector<std::uint32_t> accel_index_; // per device
  std::vector<std::uint32_t> adjacency_begin_;  // CSR, size devices + 1
  std::vector<LinkId> adjacency_;
  std::vector<std::string> strings_;       // strings_[0] == ""
  std::vector<Labels> labels_;             // labels_[0] is empty
  std::vector<NodeResources> node_resources_;  // [0] is the default
  std::vector<std::uint8_t> altered_;          // per domain (altered()); empty when none is
  std::vector<SourceLocation> origins_;    // origins_[0] is unknown
  std::vector<SpeedClass> speed_classes_;  // sorted by name, names unique
};

/// Finds devices and domains by the names Topology prints. Building it costs a
/// pass over the topology, so commands build one when they need lookups. It
/// keeps a pointer to `topology`, which must outlive the index (and not move).
class TopologyIndex {
 public:
  explicit TopologyIndex(const Topology& topology);

  std::optional<DeviceId> find_device(std::string_view name) const;
  /// A node by hostname, or any domain by path (or the root by topology name).
  std::optional<DomainId> find_domain(std::string_view name) const;

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  const Topology* topology_;
  std::vector<DeviceId> devices_;            // by owning domain, then local name
  std::vector<std::uint32_t> device_begin_;  // per domain: its first entry in devices_
  std::unordered_map<std::string, DomainId, NameHash, std::equal_to<>> domains_;  // by path, hostname
  std::unordered_map<std::string, DomainId, NameHash, std::equal_to<>> owners_;   // by the prefix of device names
};

}  // namespace topoplan
