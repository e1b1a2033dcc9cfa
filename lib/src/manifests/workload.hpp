// What every scheduler's manifest boils down to before it becomes a Job: groups
// of identical pods (or Slurm nodes) with the topology each scheduler was asked
// for. Kubernetes and Slurm readers fill it; to_job decides how topoplan places
// it (topoplan-formats(5), JOB MANIFESTS). Private to lib/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "level_map.hpp"
#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/model/node_size.hpp"
#include "topoplan/placement/kueue_workload.hpp"

namespace topoplan {

/// A level a manifest asks for, with where and how it asked (for messages).
struct LevelRequest {
  LevelIndex level = 0;
  SourceLocation where;
  std::string source;  // e.g. "kueue.x-k8s.io/podset-required-topology", "--switches"
};

/// Identical pods of one template (a Kueue PodSet), or the nodes of an sbatch job.
struct PodSet {
  std::string name;
  std::uint64_t pods = 0;
  std::uint32_t accelerators = 0;  // per pod (nvidia.com/gpu, amd.com/gpu, or Slurm GPUs per node)
  SourceLocation where;
  std::optional<LevelRequest> required;
  std::optional<LevelRequest> preferred;
  std::optional<LevelRequest> slice;  // every `slice_size` pods in one domain of this level
  std::uint64_t slice_size = 0;
  // Kubernetes pods, as Kueue sees them (kueue_workload.hpp): the effective
  // requests and node constraints, and the Kueue topology request with the
  // labels as written (mapped onto the flavor's levels by to_job).
  bool kubernetes = false;
  ResourceList requests;
  kueue::TopologyRequest kueue_request;
  std::optional<std::string> group;
  Labels node_selector;
  std::vector<NodeSelectorTerm> required_affinity;
  std::vector<PreferredTerm> preferred_affinity;
  std::vector<Toleration> tolerations;
};

/// The annotation (Kubernetes) and --comment word (sbatch) that name a job's
/// workload class of --device-perf: topoplan's own key, read by no scheduler.
inline constexpr std::string_view kPerfClass = "topoplan.io/perf-class";

struct WorkloadSpec {
  std::string name;
  std::string what;          // "Job", "JobSet", "sbatch script": for messages
  JobKind kind = JobKind::training;
  std::uint32_t groups = 1;  // LWS groups, Deployment replicas, exclusive JobSet jobs: replicas of the Job
  std::vector<PodSet> pod_sets;  // of one group
  std::optional<LevelRequest> required;   // the whole group (Volcano hard tier, KAI, --switches=1)
  std::optional<LevelRequest> preferred;  // (Volcano soft, KAI)
  std::optional<LevelRequest> exclusive;  // one group per domain of this level (LWS, JobSet)
  bool whole_nodes = false;  // every pod takes whole nodes (sbatch --exclusive, or no GPUs)
  bool count_pods = true;    // pods without accelerators count one each (Kubernetes); else whole nodes
  std::string queue;
  std::string priority_class;
  std::int64_t priority = 0;
  std::string model;         // accelerator model glob, or ""
  std::string perf_class;    // workload class of --device-perf (topoplan.io/perf-class), or ""
  SourceLocation perf_class_where;
  bool kueue_groups_are_workloads = false;  // each group is a Kueue workload of its own (LWS, Deployment)
  const KueueFlavor* flavor = nullptr;      // the TAS flavor Kueue admits it to; null: the topology's levels
  SourceLocation where;
  std::vector<Diagnostic> rejections;  // found while reading: the scheduler would refuse it
};

/// The job topoplan plans for `w`, or nullopt (with a reason in
/// `out.rejections`) when the scheduler would refuse it or it can never run.
std::optional<Job> to_job(const WorkloadSpec& w, const LevelMap& levels, ManifestJobs& out);


}  // namespace topoplan
