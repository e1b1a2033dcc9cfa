#include "pod_spec.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "../io/yaml_support.hpp"

namespace topoplan {

namespace {

class SpecReader {
 public:
  SpecReader(const std::string& file, DiagnosticSink& sink) : file_(file), sink_(sink) {}

  void error(const yaml::Node& at, std::string message) { sink_.error(yaml::where(file_, at), std::move(message)); }

  bool map_or_absent(const yaml::Node& n, std::string_view what) {
    if (!n.IsDefined() || n.IsNull() || n.IsMap()) return true;
    error(n, fmt::format("'{}' must be a mapping", what));
    return false;
  }
  bool list_or_absent(const yaml::Node& n, std::string_view what) {
    if (!n.IsDefined() || n.IsNull() || n.IsSequence()) return true;
    error(n, fmt::format("'{}' must be a list", what));
    return false;
  }
  static yaml::Node child(const yaml::Node& n, std::string_view key) {
    if (!n.IsDefined() || !n.IsMap()) return yaml::Node();
    yaml::Node v = n[std::string(key)];
    return v.IsDefined() ? v : yaml::Node();
  }
  std::string scalar(const yaml::Node& n, std::string_view what) {
    if (!n.IsDefined() || n.IsNull()) return "";
    if (!n.IsScalar()) {
      error(n, fmt::format("'{}' must be a single value", what));
      return "";
    }
    return n.Scalar();
  }

  // A resources.requests or .limits mapping.
  ResourceList quantities(const yaml::Node& map, std::string_view what) {
    ResourceList out;
    if (!map_or_absent(map, what) || !map.IsDefined() || map.IsNull()) return out;
    for (const auto& entry : map) {
      auto name = yaml::scalar(entry.first, file_, sink_, "a resource name");
      if (!name) continue;
      auto text = yaml::scalar(entry.second, file_, sink_, fmt::format("{} {}", what, *name));
      if (!text) continue;
      auto value = parse_quantity(*name, *text);
      if (!value) {
        error(entry.second, fmt::format("{} {} is '{}', not a Kubernetes quantity (such as 500m, 2, 16Gi)", what,
                                        *name, *text));
        continue;
      }
      out.set(*name, *value);
    }
    return out;
  }

  // A container's command and args, in order.
  static void add_words(const yaml::Node& container, std::vector<std::string>& out) {
    for (const char* key : {"command", "args"})
      if (yaml::Node words = child(container, key); words.IsSequence())
        for (const yaml::Node& w : words)
          if (w.IsScalar()) out.push_back(w.Scalar());
  }

  ResourceList container_requests(const yaml::Node& container, bool limits_as_requests) {
    yaml::Node resources = child(container, "resources");
    if (!map_or_absent(resources, "resources")) return {};
    ResourceList requests = quantities(child(resources, "requests"), "resources.requests");
    ResourceList limits = quantities(child(resources, "limits"), "resources.limits");
    if (limits_as_requests)
      for (const auto& [name, value] : limits)
        if (!requests.get(name)) requests.set(name, value);
    return requests;
  }

  std::vector<NodeSelectorRequirement> requirements(const yaml::Node& list, std::string_view what) {
    std::vector<NodeSelectorRequirement> out;
    if (!list_or_absent(list, what) || !list.IsDefined() || list.IsNull()) return out;
    for (const yaml::Node& item : list) {
      if (!item.IsMap()) {
        error(item, fmt::format("'{}' entries must be mappings with key and operator", what));
        continue;
      }
      NodeSelectorRequirement r;
      r.key = scalar(child(item, "key"), "key");
      r.op = scalar(child(item, "operator"), "operator");
      static constexpr std::string_view kOps[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
      if (std::find(std::begin(kOps), std::end(kOps), r.op) == std::end(kOps)) {
        error(child(item, "operator").IsDefined() ? child(item, "operator") : item,
              fmt::format("node selector operator '{}' is not In, NotIn, Exists, DoesNotExist, Gt or Lt", r.op));
        continue;
      }
      yaml::Node values = child(item, "values");
      if (list_or_absent(values, "values") && values.IsDefined() && !values.IsNull())
        for (const yaml::Node& v : values) r.values.push_back(scalar(v, "values"));
      out.push_back(std::move(r));
    }
    return out;
  }

  NodeSelectorTerm term(const yaml::Node& n) {
    NodeSelectorTerm t;
    if (!map_or_absent(n, "a node selector term")) return t;
    t.expressions = requirements(child(n, "matchExpressions"), "matchExpressions");
    t.fields = requirements(child(n, "matchFields"), "matchFields");
    return t;
  }

  PodSpecInfo read(const yaml::Node& spec, bool limits_as_requests) {
    PodSpecInfo info;
    if (!map_or_absent(spec, "spec") || !spec.IsDefined() || spec.IsNull()) return info;
    // Effective requests (PodRequests in k8s.io/component-helpers/resource).
    ResourceList running;
    yaml::Node containers = child(spec, "containers");
    if (list_or_absent(containers, "containers") && containers.IsDefined() && !containers.IsNull())
      for (const yaml::Node& c : containers) {
        running.add(container_requests(c, limits_as_requests));
        add_words(c, info.args);
      }
    ResourceList sidecars;  // restartable init containers started so far
    ResourceList init_peak;
    yaml::Node inits = child(spec, "initContainers");
    if (list_or_absent(inits, "initContainers") && inits.IsDefined() && !inits.IsNull())
      for (const yaml::Node& c : inits) {
        ResourceList r = container_requests(c, limits_as_requests);
        if (scalar(child(c, "restartPolicy"), "restartPolicy") == "Always") {
          running.add(r);
          sidecars.add(r);
          r = sidecars;
        } else {
          r.add(sidecars);
        }
        for (const auto& [name, value] : r) init_peak.set(name, std::max(init_peak.value(name), value));
      }
    for (const auto& [name, value] : init_peak) running.set(name, std::max(running.value(name), value));
    running.add(quantities(child(spec, "overhead"), "overhead"));
    info.requests = std::move(running);

    yaml::Node selector = child(spec, "nodeSelector");
    if (map_or_absent(selector, "nodeSelector") && selector.IsDefined() && !selector.IsNull())
      for (const auto& entry : selector) {
        auto key = yaml::scalar(entry.first, file_, sink_, "a nodeSelector key");
        if (!key) continue;
        info.node_selector.emplace_back(*key, scalar(entry.second, "nodeSelector"));
      }
    std::sort(info.node_selector.begin(), info.node_selector.end());

    yaml::Node affinity = child(spec, "affinity");
    if (map_or_absent(affinity, "affinity")) {
      yaml::Node node = child(affinity, "nodeAffinity");
      if (map_or_absent(node, "nodeAffinity")) {
        yaml::Node required = child(child(node, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms");
        if (list_or_absent(required, "nodeSelectorTerms") && required.IsDefined() && !required.IsNull())
          for (const yaml::Node& t : required) info.required_affinity.push_back(term(t));
        yaml::Node preferred = child(node, "preferredDuringSchedulingIgnoredDuringExecution");
        if (list_or_absent(preferred, "preferredDuringSchedulingIgnoredDuringExecution") && preferred.IsDefined() &&
            !preferred.IsNull())
          for (const yaml::Node& p : preferred) {
            PreferredTerm pt;
            auto weight = yaml::parse_integer(scalar(child(p, "weight"), "weight"));
            if (!weight || *weight < 1 || *weight > 100) {
              error(child(p, "weight").IsDefined() ? child(p, "weight") : p,
                    "a preferred node affinity term needs a weight from 1 to 100");
              continue;
            }
            pt.weight = static_cast<std::int32_t>(*weight);
            pt.term = term(child(p, "preference"));
            info.preferred_affinity.push_back(std::move(pt));
          }
      }
      for (std::string_view a : {"podAffinity", "podAntiAffinity"})
        if (child(affinity, a).IsDefined()) info.ignored.push_back(fmt::format("affinity.{}", a));
    }
    yaml::Node tolerations = child(spec, "tolerations");
    if (list_or_absent(tolerations, "tolerations") && tolerations.IsDefined() && !tolerations.IsNull())
      for (const yaml::Node& t : tolerations) {
        if (!t.IsMap()) {
          error(t, "a toleration must be a mapping");
          continue;
        }
        Toleration tol;
        tol.key = scalar(child(t, "key"), "key");
        tol.op = scalar(child(t, "operator"), "operator");
        if (tol.op.empty()) tol.op = "Equal";
        tol.value = scalar(child(t, "value"), "value");
        tol.effect = scalar(child(t, "effect"), "effect");
        info.tolerations.push_back(std::move(tol));
      }
    for (std::string_view key : {"topologySpreadConstraints"})
      if (child(spec, key).IsDefined()) info.ignored.emplace_back(key);
    info.node_name = scalar(child(spec, "nodeName"), "nodeName");
    return info;
  }

 private:
  const std::string& file_;
  DiagnosticSink& sink_;
};

}  // namespace

PodSpecInfo read_pod_spec(const yaml::Node& spec, const std::string& file, DiagnosticSink& sink,
                          bool limits_as_requests) {
  return SpecReader(file, sink).read(spec, limits_as_requests);
}

PodSpecInfo read_container(const yaml::Node& container, const std::string& file, DiagnosticSink& sink,
                           bool limits_as_requests) {
  SpecReader r(file, sink);
  PodSpecInfo info;
  if (!r.map_or_absent(container, "a container")) return info;
  info.requests = r.container_requests(container, limits_as_requests);
  SpecReader::add_words(container, info.args);
  return info;
}

}  // namespace topoplan
