// Kubernetes resources: quantities ("500m", "1.5Gi"), lists of them (a node's
// allocatable, a pod's requests) and what a node offers a scheduler besides
// its accelerators (allocatable, taints, whether it takes new work).
//
// Values are integers in the units Kueue counts in (pkg/resources/requests.go
// ResourceValue @ff69552e): millicores for cpu, the whole unit (bytes,
// pods, devices) for everything else, rounded up as Quantity.Value() and
// MilliValue() round.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace topoplan {

enum class DeviceState : std::uint8_t;

/// The value of a Kubernetes quantity for `resource` (cpu in millicores,
/// anything else in units), rounded up, or nullopt when `text` is not a
/// quantity (k8s.io/apimachinery resource.Quantity syntax: a decimal with an
/// optional SI (n u m k M G T P E), binary (Ki Mi Gi Ti Pi Ei) or e-exponent
/// suffix). Negative values and values beyond 2^62 are refused.
std::optional<std::int64_t> parse_quantity(std::string_view resource, std::string_view text);

/// The shortest exact quantity text for a value: "250m" or "4" for cpu,
/// "16Gi" where a binary suffix is exact, else the plain number.
std::string format_quantity(std::string_view resource, std::int64_t value);

/// Resource name -> value, sorted by name, names unique.
class ResourceList {
 public:
  using Entry = std::pair<std::string, std::int64_t>;

  ResourceList() = default;
  ResourceList(std::initializer_list<Entry> entries);

  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

  /// The value of `name`, or nullopt when the list does not have it.
  std::optional<std::int64_t> get(std::string_view name) const;
  /// The value of `name`, 0 when absent.
  std::int64_t value(std::string_view name) const { return get(name).value_or(0); }
  void set(std::string_view name, std::int64_t value);
  void erase(std::string_view name);
  /// Adds `other` times `factor` entry by entry (saturating at +-2^62).
  void add(const ResourceList& other, std::int64_t factor = 1);

  bool operator==(const ResourceList& other) const = default;

 private:
  std::vector<Entry> entries_;
};

/// How often `requests` fit into `capacity`: the smallest floor(capacity /
/// request) over the requested resources (a resource `capacity` lacks
/// counts 0, a request of 0 never limits, a negative capacity fits nothing),
/// and the resource that gave it, the alphabetically first on a tie. Kueue's
/// CountInWithLimitingResource (pkg/resources/requests.go @ff69552e).
/// Empty requests fit 0 times.
struct FitCount {
  std::int64_t count = 0;
  std::string limiting;
};
FitCount fit_count(const ResourceList& requests, const ResourceList& capacity);

/// A Kubernetes node taint.
struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule or NoExecute

  /// `key=value:effect`, or `key:effect` without a value (corev1 Taint.ToString).
  std::string str() const;
  bool operator==(const Taint& other) const = default;
};

/// What a node offers a scheduler besides its accelerators. Nodes read from
/// a Kubernetes node list have all of it; others have none (an empty
/// allocatable means "not known": only the accelerators count).
struct NodeResources {
  ResourceList allocatable;   // status.allocatable without the accelerator resources
  std::vector<Taint> taints;  // spec.taints
  DeviceState state{};        // up; drain when cordoned; down when not Ready

  bool operator==(const NodeResources& other) const = default;
};

}  // namespace topoplan
