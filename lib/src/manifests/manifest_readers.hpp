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

/// Reads the workloads of Kubernetes `documents` into `out`; input errors go to `sink`.
void read_kubernetes_documents(const std::vector<yaml::Node>& documents, const std::string& file,
                               const LevelMap& levels, const PriorityClasses& classes, ManifestJobs& out,
                               DiagnosticSink& sink);

/// Reads an sbatch script's `#SBATCH` options into `out`; input errors go to `sink`.
void read_sbatch_script(std::string_view text, const std::string& file, const LevelMap& levels, ManifestJobs& out,
                        DiagnosticSink& sink);

}  // namespace topoplan
