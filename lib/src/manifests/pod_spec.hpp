// What a scheduler takes from a Kubernetes PodSpec: the pod's effective
// resource requests and its node constraints (node selector, node affinity,
// tolerations). Shared by the workload reader (pod templates) and the pod
// list reader (running pods). Private to lib/.
#pragma once

#include <string>
#include <vector>

#include "../io/yaml_tree.hpp"

#include "topoplan/placement/kueue_workload.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

struct PodSpecInfo {
  ResourceList requests;  // effective requests of one pod (see read_pod_spec)
  Labels node_selector;
  std::vector<NodeSelectorTerm> required_affinity;
  std::vector<PreferredTerm> preferred_affinity;
  std::vector<Toleration> tolerations;
  std::string node_name;             // spec.nodeName
  std::vector<std::string> ignored;  // fields read but not honoured (pod affinity, spread constraints)
  std::vector<std::string> args;     // the containers' command and args, in order (an engine's flags)
};

/// Reads `spec` (a PodSpec; absent or null is an empty one). Requests are
/// Kubernetes' effective pod requests (k8s.io/component-helpers resource
/// PodRequests, as Kueue computes them): the sum over containers, init
/// containers one at a time (each with the sidecars started before it), the
/// sidecars (init containers with restartPolicy Always) alongside the
/// containers, the larger of the two per resource, plus spec.overhead. With
/// `limits_as_requests` a container's limits stand in for requests it does
/// not give (Kueue's UseLimitsAsMissingRequestsInPod, applied to a
/// workload's pod templates; the API server has done it for real pods).
/// Malformed values are reported to `sink` at their position.
PodSpecInfo read_pod_spec(const yaml::Node& spec, const std::string& file, DiagnosticSink& sink,
                          bool limits_as_requests);
/// One container (a Container, such as Dynamo's extraPodSpec.mainContainer)
/// as a pod of its own: its requests and its command and args.
PodSpecInfo read_container(const yaml::Node& container, const std::string& file, DiagnosticSink& sink,
                           bool limits_as_requests);

}  // namespace topoplan
