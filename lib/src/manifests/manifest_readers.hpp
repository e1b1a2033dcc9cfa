// The readers behind read_job_manifests, one per ecosystem. Private to lib/.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../io/yaml_tree.hpp"

#include "level_map.hpp"
#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/placement/kueue_workload.hpp"

namespace topoplan {

/// Kubernetes PriorityClass and Kueue WorkloadPriorityClass values by name.
struct PriorityClasses {
  std::map<std::string, std::int64_t> pod;       // scheduling.k8s.io PriorityClass
  std::map<std::string, std::int64_t> workload;  // kueue.x-k8s.io WorkloadPriorityClass
  std::optional<std::string> global_default;     // the PriorityClass with globalDefault: true
};

/// Collects the priority classes of `documents` (every input's, before any
/// workload is read, so that a class may be defined in another file).
void collect_priority_classes(const std::vector<yaml::Node>& documents, const std::string& file,
                              PriorityClasses& classes, DiagnosticSink& sink);

/// Kueue's configuration among the inputs (kueue.x-k8s.io Topology,
/// ResourceFlavor, ClusterQueue, LocalQueue), which says where a workload's
/// pods may go: the levels of its Topology and its flavor's node labels.
struct KueueConfig {
  struct RawTopology {
    std::vector<std::string> levels;
    SourceLocation where;
  };
  struct RawFlavor {
    std::string topology;
    Labels node_labels;
    std::vector<Toleration> tolerations;
    SourceLocation where;
  };
  std::map<std::string, RawTopology> topologies;
  std::map<std::string, RawFlavor> raw_flavors;  // with spec.topologyName
  std::vector<std::string> flavor_order;         // as defined
  std::map<std::string, std::vector<std::string>> cluster_queues;  // flavors, in resource group order
  std::map<std::string, std::string> local_queues;                 // LocalQueue -> ClusterQueue
  std::map<std::string, KueueFlavor> flavors;                      // resolved by resolve_kueue_config

  /// The TAS flavor Kueue admits a workload of LocalQueue `queue` to: its
  /// ClusterQueue's first TAS flavor, else the only TAS flavor defined, else
  /// the first one defined (`ambiguous` is then set); null without any.
  const KueueFlavor* flavor_for(std::string_view queue, bool& ambiguous) const;
};

/// Collects the Kueue configuration objects of `documents`.
void collect_kueue_config(const std::vector<yaml::Node>& documents, const std::string& file, KueueConfig& config,
                          DiagnosticSink& sink);
/// Resolves the TAS flavors' levels once every input is read; a flavor whose
/// Topology the inputs lack keeps the topology's own levels (a warning).
void resolve_kueue_config(KueueConfig& config, const LevelMap& levels, ManifestJobs& out, DiagnosticSink& sink);

/// NVIDIA Grove's ClusterTopologyBinding objects (ClusterTopology before
/// Grove renamed it, as Dynamo's docs still call it) among the inputs: the
/// domain names a PodCliqueSet packs in (zone, block, rack, host...), coarsest
/// first, each with the node label that defines its domains.
struct GroveTopologies {
  struct Level {
    std::string domain;
    std::string key;  // node label
    SourceLocation where;  // of the key, for label errors
  };
  struct Binding {
    std::vector<Level> levels;
    SourceLocation where;
  };
  std::map<std::string, Binding> bindings;  // by metadata.name
};

/// Collects the ClusterTopologyBinding and ClusterTopology objects of `documents`.
void collect_grove_topologies(const std::vector<yaml::Node>& documents, const std::string& file,
                              GroveTopologies& topologies, DiagnosticSink& sink);

/// Reads one Grove PodCliqueSet (grove.io/v1alpha1) as a service
/// (grove_podcliqueset.cpp): its replicas are slices, its cliques roles.
void read_grove_podcliqueset(const yaml::Node& doc, const std::string& file, const LevelMap& levels,
                             const GroveTopologies& topologies, ManifestJobs& out, DiagnosticSink& sink);

/// Reads one LWS DisaggregatedSet (disaggregatedset.x-k8s.io/v1) as a
/// service (disaggregated_set.cpp): slices of roles, each role's replicas
/// LeaderWorkerSet groups.
void read_disaggregated_set(const yaml::Node& doc, const std::string& file, const LevelMap& levels,
                            ManifestJobs& out, DiagnosticSink& sink);

/// Reads one NVIDIA Dynamo DynamoGraphDeployment (nvidia.com/v1alpha1 or
/// v1beta1) as a service of one slice (dynamo_graph_deployment.cpp): its GPU
/// components are roles, its packDomain and kvTransferPolicy the service's.
void read_dynamo_graph_deployment(const yaml::Node& doc, const std::string& file, const LevelMap& levels,
                                  const GroveTopologies& topologies, ManifestJobs& out, DiagnosticSink& sink);

/// Reads the workloads of Kubernetes `documents` into `out`; input errors go to `sink`.
void read_kubernetes_documents(const std::vector<yaml::Node>& documents, const std::string& file,
                               const LevelMap& levels, const PriorityClasses& classes, const KueueConfig& kueue,
                               const GroveTopologies& grove, ManifestJobs& out, DiagnosticSink& sink);

/// Reads an sbatch script's `#SBATCH` options into `out`; input errors go to `sink`.
void read_sbatch_script(std::string_view text, const std::string& file, const LevelMap& levels, ManifestJobs& out,
                        DiagnosticSink& sink);

}  // namespace topoplan
