// Kueue's configuration objects among the job manifests: Topology (its
// levels), ResourceFlavor (topologyName, nodeLabels, tolerations),
// ClusterQueue (its flavors) and LocalQueue (its ClusterQueue). Read in
// kubernetes-sigs/kueue apis/kueue/v1beta2 topology_types.go,
// resourceflavor_types.go, clusterqueue_types.go, localqueue_types.go
// @ff69552e; v1beta1 objects have the same fields.
#include <algorithm>

#include <fmt/format.h>

#include "../io/yaml_support.hpp"
#include "manifest_readers.hpp"

namespace topoplan {

namespace {

bool is_kueue(const yaml::Node& doc) {
  std::string api = doc["apiVersion"].Scalar();
  return api.rfind("kueue.x-k8s.io/", 0) == 0;
}

}  // namespace

void collect_kueue_config(const std::vector<yaml::Node>& documents, const std::string& file, KueueConfig& config,
                          DiagnosticSink& sink) {
  auto error = [&](const yaml::Node& at, std::string message) { sink.error(yaml::where(file, at), std::move(message)); };
  for (const yaml::Node& doc : documents) {
    if (!doc.IsDefined() || !doc.IsMap() || !is_kueue(doc)) continue;
    std::string kind = doc["kind"].Scalar();
    std::string name = doc["metadata"]["name"].Scalar();
    yaml::Node spec = doc["spec"];
    if (kind == "Topology") {
      KueueConfig::RawTopology t;
      t.where = yaml::where(file, doc);
      yaml::Node levels = spec["levels"];
      if (!levels.IsSequence() || levels.size() == 0 || levels.size() > 16) {
        error(levels.IsDefined() ? levels : doc, "a Topology needs spec.levels: 1 to 16 entries with a nodeLabel");
        continue;
      }
      bool ok = true;
      for (const yaml::Node& l : levels) {
        std::string label = l["nodeLabel"].Scalar();
        if (label.empty()) {
          error(l, "a Topology level needs a nodeLabel");
          ok = false;
        } else if (std::find(t.levels.begin(), t.levels.end(), label) != t.levels.end()) {
          error(l, fmt::format("Topology '{}' lists node label '{}' twice", name, label));
          ok = false;
        } else if (!t.levels.empty() && t.levels.back() == kueue::kHostnameLabel) {
          error(l, fmt::format("Topology '{}': {} can only be the last level", name, kueue::kHostnameLabel));
          ok = false;
        }
        t.levels.push_back(label);
      }
      if (ok) config.topologies[name] = std::move(t);
    } else if (kind == "ResourceFlavor") {
      std::string topology = spec["topologyName"].Scalar();
      if (topology.empty()) continue;  // not a TAS flavor
      KueueConfig::RawFlavor f;
      f.topology = topology;
      f.where = yaml::where(file, doc);
      yaml::Node labels = spec["nodeLabels"];
      if (labels.IsMap())
        for (const auto& e : labels) f.node_labels.emplace_back(e.first.Scalar(), e.second.Scalar());
      std::sort(f.node_labels.begin(), f.node_labels.end());
      yaml::Node tolerations = spec["tolerations"];
      if (tolerations.IsSequence())
        for (const yaml::Node& t : tolerations) {
          Toleration tol;
          tol.key = t["key"].Scalar();
          tol.op = t["operator"].Scalar();
          if (tol.op.empty()) tol.op = "Equal";
          tol.value = t["value"].Scalar();
          tol.effect = t["effect"].Scalar();
          f.tolerations.push_back(std::move(tol));
        }
      if (!config.raw_flavors.count(name)) config.flavor_order.push_back(name);
      config.raw_flavors[name] = std::move(f);
    } else if (kind == "ClusterQueue") {
      std::vector<std::string> flavors;
      yaml::Node groups = spec["resourceGroups"];
      if (groups.IsSequence())
        for (const yaml::Node& g : groups) {
          yaml::Node fl = g["flavors"];
          if (fl.IsSequence())
            for (const yaml::Node& f : fl) flavors.push_back(f["name"].Scalar());
        }
      config.cluster_queues[name] = std::move(flavors);
    } else if (kind == "LocalQueue") {
      config.local_queues[name] = spec["clusterQueue"].Scalar();
    }
  }
}

void resolve_kueue_config(KueueConfig& config, const LevelMap& levels, ManifestJobs& out, DiagnosticSink& sink) {
  (void)sink;
  for (const std::string& name : config.flavor_order) {
    const KueueConfig::RawFlavor& raw = config.raw_flavors.at(name);
    KueueFlavor f;
    f.name = name;
    f.topology = raw.topology;
    f.node_labels = raw.node_labels;
    f.tolerations = raw.tolerations;
    auto topology = config.topologies.find(raw.topology);
    if (topology == config.topologies.end()) {
      out.warnings.push_back({raw.where, fmt::format("ResourceFlavor '{}' names Topology '{}', which the inputs do not "
                                                     "define; the levels of topology '{}' stand in",
                                                     name, raw.topology, levels.topology().name())});
      f.levels = default_kueue_levels(levels.topology());
    } else {
      for (const std::string& key : topology->second.levels)
        f.levels.push_back({key, levels.level_of_label(key)});
    }
    config.flavors[name] = std::move(f);
  }
}

const KueueFlavor* KueueConfig::flavor_for(std::string_view queue, bool& ambiguous) const {
  ambiguous = false;
  if (flavors.empty()) return nullptr;
  if (auto lq = local_queues.find(std::string(queue)); !queue.empty() && lq != local_queues.end())
    if (auto cq = cluster_queues.find(lq->second); cq != cluster_queues.end())
      for (const std::string& f : cq->second)
        if (auto it = flavors.find(f); it != flavors.end()) return &it->second;
  ambiguous = flavors.size() > 1;
  return &flavors.at(flavor_order.front());
}

std::vector<std::string> kueue_topology_levels(const std::vector<ManifestInput>& inputs) {
  for (const ManifestInput& in : inputs) {
    if (detect_manifest_format(in.text) != ManifestFormat::kubernetes) continue;
    std::vector<yaml::Node> docs;
    try {
      docs = yaml::parse_all(in.text, in.file);
    } catch (const InputError&) {
      continue;  // reported when the manifests are read
    }
    KueueConfig config;
    DiagnosticSink sink;
    collect_kueue_config(docs, in.file, config, sink);
    if (!config.topologies.empty()) {
      // The first in the file: collect_kueue_config keys them by name.
      for (const yaml::Node& doc : docs)
        if (is_kueue(doc) && doc["kind"].Scalar() == "Topology") {
          auto it = config.topologies.find(doc["metadata"]["name"].Scalar());
          if (it != config.topologies.end()) return it->second.levels;
        }
    }
  }
  return {};
}

}  // namespace topoplan
