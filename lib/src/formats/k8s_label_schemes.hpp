// The node labels that describe accelerator topology on Kubernetes: which
// levels to use when the user names none, and the names topoplan gives levels
// made from label keys. Sources are cited in k8s_label_schemes.cpp and in
// topoplan-formats(5), section KUBERNETES NODES.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace topoplan::formats {

/// Resource names in status.capacity that count accelerators.
inline constexpr std::string_view kNvidiaGpuResource = "nvidia.com/gpu";
inline constexpr std::string_view kAmdGpuResource = "amd.com/gpu";
/// The hostname label kubelet sets; Kueue's lowest level.
inline constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";
/// NVIDIA GPU feature discovery: model, memory per GPU (MiB), NVLink partition.
inline constexpr std::string_view kNvidiaProductLabel = "nvidia.com/gpu.product";
inline constexpr std::string_view kNvidiaMemoryLabel = "nvidia.com/gpu.memory";
inline constexpr std::string_view kNvidiaCliqueLabel = "nvidia.com/gpu.clique";
/// AMD's node labeller: model.
inline constexpr std::string_view kAmdProductLabel = "amd.com/gpu.product-name";

/// A well-known set of level labels, coarsest first.
struct LabelScheme {
  std::string name;                 // e.g. "GKE", for messages
  std::vector<std::string> levels;  // the keys of this scheme that some node carries
};

/// The default levels when --levels is not given: the first scheme (Topograph,
/// Topograph 0.x, GKE, EKS, then topology.kubernetes.io region/zone) of
/// which some node carries a label, keeping only the keys some node carries.
/// `has_label(key)` says whether any node carries `key`. An empty scheme (no
/// levels) when none applies.
LabelScheme default_label_scheme(const std::function<bool(std::string_view)>& has_label);

/// A level name (letters, digits, '_') for a label key: the key's name part
/// without a vendor's topology prefix (`gce-topology-`, `network-node-`,
/// `topology-`) or `-id` suffix, e.g. `cloud.google.com/gce-topology-block` ->
/// `block`, `topology.k8s.aws/network-node-layer-1` -> `layer_1`.
std::string level_name_for_label(std::string_view key);

}  // namespace topoplan::formats
