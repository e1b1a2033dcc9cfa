// Sources of the label schemes (all summarised in
// shared/reference/schedulers.md section 5):
//  [topograph]  NVIDIA/topograph docs/reference/node-labels.md @ e2b62507
//               (v1.1): fabric.topograph.run/tier-N, "tier 0 is the switch
//               closest to the node", no fixed depth; before v1.0 the keys
//               were network.topology.nvidia.com/{core,spine,leaf} (v0.3-0.5)
//               and /{datacenter,spine,block} (v0.1-0.2), plus /accelerator
//               (docs/engines/k8s.md at those tags).
//  [gke]        "Schedule GKE workloads with Topology Aware Scheduling"
//               (cloud.google.com/ai-hypercomputer/docs/workloads/
//               schedule-gke-workloads-tas): cloud.google.com/gce-topology-
//               block, -subblock, -host; a block holds sub-blocks.
//  [eks]        "Place distributed AI/ML workloads with network topology
//               labels" (docs.aws.amazon.com/eks/latest/userguide/
//               ml-workload-topology.html): topology.k8s.aws/network-node-
//               layer-1 (top) .. -layer-3, -layer-4 on four-layer types.
//  [k8s]        Well-known labels: topology.kubernetes.io/region, zone.
#include "k8s_label_schemes.hpp"

#include <cctype>

#include <fmt/format.h>

#include "topoplan/support/ascii.hpp"

namespace topoplan::formats {

namespace {

// Topograph's fabric tiers go as deep as the fabric; deeper than this would
// exceed topoplan's 16 levels anyway.
constexpr int kMaxTopographTier = 13;

}  // namespace

LabelScheme default_label_scheme(const std::function<bool(std::string_view)>& has_label) {
  auto pick = [&](std::string name, std::vector<std::string> keys) {
    LabelScheme s{std::move(name), {}};
    for (std::string& k : keys)
      if (has_label(k)) s.levels.push_back(std::move(k));
    return s;
  };
  {
    std::vector<std::string> tiers;
    for (int n = kMaxTopographTier; n >= 0; --n) tiers.push_back(fmt::format("fabric.topograph.run/tier-{}", n));
    LabelScheme s = pick("Topograph", std::move(tiers));
    if (!s.levels.empty()) return s;
  }
  const std::vector<std::pair<std::string, std::vector<std::string>>> schemes = {
      // 0.3-0.5 named the tiers core/spine/leaf, 0.1-0.2 datacenter/spine/block
      // (topograph commit 3abaae8 "rename backend switch tiers"); a cluster
      // carries one generation.
      {"Topograph 0.x",
       {"network.topology.nvidia.com/core", "network.topology.nvidia.com/datacenter",
        "network.topology.nvidia.com/spine", "network.topology.nvidia.com/leaf", "network.topology.nvidia.com/block"}},
      // The -host label names a physical host, which holds one node on the
      // accelerator machine types: as a level it would only repeat the nodes.
      {"GKE", {"cloud.google.com/gce-topology-block", "cloud.google.com/gce-topology-subblock"}},
      {"EKS",
       {"topology.k8s.aws/network-node-layer-1", "topology.k8s.aws/network-node-layer-2",
        "topology.k8s.aws/network-node-layer-3", "topology.k8s.aws/network-node-layer-4"}},
      {"topology.kubernetes.io", {"topology.kubernetes.io/region", "topology.kubernetes.io/zone"}},
  };
  for (const auto& [name, keys] : schemes) {
    LabelScheme s = pick(name, keys);
    if (!s.levels.empty()) return s;
  }
  return {"none", {}};
}

std::string level_name_for_label(std::string_view key) {
  std::string_view name = key.substr(key.rfind('/') == std::string_view::npos ? 0 : key.rfind('/') + 1);
  for (std::string_view prefix : {"gce-topology-", "network-node-", "topology-"})
    if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix) {
      name.remove_prefix(prefix.size());
      break;
    }
  for (std::string_view suffix : {"-id", "_id"})
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) {
      name.remove_suffix(suffix.size());
      break;
    }
  std::string out;
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      out += ascii_lower(c);
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "l" + out;
  return out;
}

}  // namespace topoplan::formats
