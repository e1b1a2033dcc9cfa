// A workload as Kueue's topology-aware scheduling sees it: its PodSets (pods
// of one template with their resource requests, node constraints and
// topology annotations) and the flavor it is admitted to (the Kueue Topology's
// levels and the ResourceFlavor's node labels and tolerations). The Kubernetes
// manifest reader fills it (topoplan-formats(5)); `--policy kueue` places it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/resources.hpp"
#include "topoplan/model/topology.hpp"
#include "topoplan/placement/kueue_tas.hpp"

namespace topoplan {

/// corev1.NodeSelectorRequirement: `key` compared with `op` (In, NotIn,
/// Exists, DoesNotExist, Gt, Lt) against `values`.
struct NodeSelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
};

/// corev1.NodeSelectorTerm: every requirement holds; `fields` may only name
/// metadata.name.
struct NodeSelectorTerm {
  std::vector<NodeSelectorRequirement> expressions;
  std::vector<NodeSelectorRequirement> fields;
};

/// corev1.PreferredSchedulingTerm.
struct PreferredTerm {
  std::int32_t weight = 0;
  NodeSelectorTerm term;
};

/// corev1.Toleration.
struct Toleration {
  std::string key;
  std::string op = "Equal";  // Equal or Exists
  std::string value;
  std::string effect;        // empty: every effect
};

/// A Kueue PodSet.
struct KueuePodSet {
  std::string name;
  std::uint32_t count = 0;
  ResourceList requests;            // one pod's effective requests, accelerators included
  kueue::TopologyRequest topology;  // level keys are the flavor's (KueueFlavor::levels)
  std::optional<std::string> group;  // kueue.x-k8s.io/podset-group-name
  Labels node_selector;
  std::vector<NodeSelectorTerm> required_affinity;  // any term holds
  std::vector<PreferredTerm> preferred_affinity;
  std::vector<Toleration> tolerations;
};

/// One level of a Kueue Topology: its node label, and the topology level
/// whose domain names are the label's values on nodes that lack the label
/// (nullopt for kubernetes.io/hostname, whose value is the hostname, and for
/// labels that name no level).
struct KueueLevel {
  std::string key;
  std::optional<LevelIndex> level;
};

/// The TAS ResourceFlavor a workload is admitted to, with its Topology.
struct KueueFlavor {
  std::string name;                   // ResourceFlavor name, "" for the implied default
  std::string topology = "default";   // Topology name, for messages
  std::vector<KueueLevel> levels;     // coarsest first
  Labels node_labels;                 // spec.nodeLabels: only nodes with all of them
  std::vector<Toleration> tolerations;  // spec.tolerations, added to every pod's
};

/// What Kueue admits as one Workload, `workloads` times (LeaderWorkerSet
/// groups and Deployment or StatefulSet pods are workloads of their own).
struct KueueWorkload {
  std::vector<KueuePodSet> pod_sets;
  std::uint32_t workloads = 1;
  KueueFlavor flavor;
};

/// Whether a node with `labels` (sorted, keys unique) named `name` satisfies
/// `term`: every requirement holds (k8s.io/component-helpers nodeaffinity;
/// matchFields only know metadata.name).
bool term_matches(const NodeSelectorTerm& term, const Labels& labels, std::string_view name);

/// Whether `tolerations` tolerate `taint` (corev1 Toleration.ToleratesTaint).
bool tolerates(const std::vector<Toleration>& tolerations, const Taint& taint);

/// The Kueue levels of a topology without a Kueue Topology object: every
/// level below the root, the host level as kubernetes.io/hostname, the others
/// by the one label key every domain of the level carries (as a Kubernetes
/// node list import leaves them), else by the level's name.
std::vector<KueueLevel> default_kueue_levels(const Topology& topology);

}  // namespace topoplan
