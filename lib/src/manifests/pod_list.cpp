#include "topoplan/manifests/pod_list.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "../io/kubernetes_list.hpp"
#include "../io/yaml_support.hpp"
#include "pod_spec.hpp"

namespace topoplan {

namespace {

// The Pods of a document: itself, or the items of a List or PodList.
std::vector<yaml::Node> pods_of(const yaml::Node& doc) {
  std::vector<yaml::Node> out;
  if (!doc.IsDefined() || !doc.IsMap()) return out;
  std::string kind = doc["kind"].Scalar();
  if (kind == "Pod") {
    out.push_back(doc);
  } else if (kind == "List" || kind == "PodList") {
    yaml::Node items = doc["items"];
    if (items.IsSequence())
      for (const yaml::Node& item : items) out.push_back(item);
  }
  return out;
}

}  // namespace

bool is_pod_list(std::string_view text) { return yaml::is_object_list(text, "Pod"); }

RunningPods read_pod_list(const std::vector<ManifestInput>& inputs, const Topology& topology,
                          std::vector<Diagnostic>& warnings) {
  // Pods name nodes by their Kubernetes name: a node's own name in a
  // topology imported from a node list, else its hostname.
  std::map<std::string, DomainId, std::less<>> nodes;
  auto [first, last] = topology.domains_at(topology.host_level());
  for (DomainId n = first; n < last; ++n) nodes.emplace(std::string(topology.hostname(n)), n);
  for (DomainId n = first; n < last; ++n) nodes[std::string(topology.str(topology.domain(n).name))] = n;

  DiagnosticSink sink(100);
  std::map<DomainId, RunningPods::OnNode> on;
  RunningPods out;
  std::vector<std::string> unknown;
  for (const ManifestInput& in : inputs) {
    for (const yaml::Node& doc : yaml::parse_all(in.text, in.file)) {
      for (const yaml::Node& pod : pods_of(doc)) {
        if (!pod.IsMap()) {
          sink.error(yaml::where(in.file, pod), "a Pod must be a mapping");
          continue;
        }
        std::string phase = pod["status"]["phase"].Scalar();
        PodSpecInfo info = read_pod_spec(pod["spec"], in.file, sink, false);
        if (info.node_name.empty() || phase == "Succeeded" || phase == "Failed") continue;
        auto it = nodes.find(info.node_name);
        if (it == nodes.end()) {
          unknown.push_back(info.node_name);
          continue;
        }
        RunningPods::OnNode& n = on[it->second];
        n.node = it->second;
        n.requests.add(info.requests);
        n.requests.set("pods", n.requests.value("pods") + 1);
        ++out.pods;
      }
    }
  }
  sink.throw_if_any();
  for (auto& [node, n] : on) {
    std::int64_t accelerators = n.requests.value("nvidia.com/gpu") + n.requests.value("amd.com/gpu");
    n.accelerators = static_cast<std::uint32_t>(std::clamp<std::int64_t>(accelerators, 0, 1'000'000));
    out.nodes.push_back(std::move(n));
  }
  if (!unknown.empty()) {
    std::sort(unknown.begin(), unknown.end());
    unknown.erase(std::unique(unknown.begin(), unknown.end()), unknown.end());
    warnings.push_back({{inputs.empty() ? std::string() : inputs.front().file, 0, 0},
                        fmt::format("pods on {} node{} the topology lacks are not counted: {}{}", unknown.size(),
                                    unknown.size() == 1 ? "" : "s",
                                    fmt::join(unknown.begin(), unknown.begin() + static_cast<std::ptrdiff_t>(
                                                                                     std::min<std::size_t>(10, unknown.size())),
                                              ", "),
                                    unknown.size() > 10 ? ", ..." : "")});
  }
  return out;
}

}  // namespace topoplan
