// Pods already running on a cluster (`kubectl get pods -A -o json|yaml`), as
// capacity they hold: `--occupied` takes such a list as well as a plan.
#pragma once

#include <string_view>
#include <vector>

#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/model/topology.hpp"
#include "topoplan/placement/node_usage.hpp"

namespace topoplan {

/// Whether `text` is a Kubernetes pod list: a List or PodList whose items
/// are Pods, or Pod documents, with no other kind.
bool is_pod_list(std::string_view text);

/// What the pods of `inputs` hold on the nodes of `topology`: every pod bound
/// to a node (spec.nodeName) that has not finished (status.phase neither
/// Succeeded nor Failed), with its effective requests and one `pods`; the
/// rest is skipped, as Kueue's pod usage cache skips it
/// (pkg/controller/tas/pod_usage_controller.go, tas_non_tas_pod_cache.go
/// @ff69552e). Kueue keeps pods of TAS workloads apart because their
/// workloads account for them; a pod list has no workloads, so it counts
/// them too. Pods on nodes the topology lacks are warned about. Malformed
/// input throws InputError.
RunningPods read_pod_list(const std::vector<ManifestInput>& inputs, const Topology& topology,
                          std::vector<Diagnostic>& warnings);

}  // namespace topoplan
