// export --to kueue: what Kueue's topology-aware scheduling needs to see a
// topology: a Topology object, a ResourceFlavor that uses it, and the node
// labels that place every node in it.
//
// Read in kubernetes-sigs/kueue @ ff69552e (v0.20.0-devel; tags to v0.19.2):
// - API version kueue.x-k8s.io/v1beta2: served and the storage version since
//   v0.15 (apis/kueue/v1beta2/topology_types.go `+kubebuilder:storageversion`);
//   v1beta1 is still served but marked deprecated ("Use v1beta2 instead").
// - Topology.spec.levels: 1-16 `nodeLabel`s, coarsest first, unique,
//   `kubernetes.io/hostname` only last. Our levels below the root become the
//   levels (a Kueue Topology has no single cluster-wide domain), the host
//   level becomes kubernetes.io/hostname.
// - ResourceFlavor.spec.topologyName needs at least one spec.nodeLabels entry
//   (resourceflavor_types.go XValidation); ours selects the nodes by the root
//   level's label, which every node of the topology carries.
// - Kueue identifies a domain by the values of all levels down to it, so label
//   values need only be distinct among siblings.
//
// Label keys: a level whose domains all carry one label key already (a
// topology imported from node labels keeps them) is written with that key and
// those values; any other level as `topoplan.io/<level>` with the domain's name.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "format_functions.hpp"
#include "io/kubernetes_names.hpp"
#include "k8s_label_schemes.hpp"

namespace topoplan::formats {

namespace {

constexpr std::string_view kPrefix = "topoplan.io/";

struct LevelLabels {
  std::string key;
  std::vector<std::string> value;  // per domain of the level, from its first id
};

// The first label key (in key order) that every domain of `level` carries with
// a valid value, distinct among siblings; "" when there is none.
std::string carried_key(const Topology& t, LevelIndex level, const std::set<std::string>& used) {
  auto [first, last] = t.domains_at(level);
  if (first == last) return "";
  for (const auto& candidate : t.labels(t.domain(first).labels)) {
    const std::string& key = candidate.first;  // a structured binding would not be captured by clang 14
    if (key == kHostnameLabel || used.count(key) || !label_key_problem(key).empty()) continue;
    bool ok = true;
    std::map<std::pair<DomainId, std::string_view>, int> seen;
    for (DomainId d = first; d < last && ok; ++d) {
      const Labels& labels = t.labels(t.domain(d).labels);
      auto it = std::find_if(labels.begin(), labels.end(), [&](const auto& kv) { return kv.first == key; });
      ok = it != labels.end() && !it->second.empty() && is_label_value(it->second) &&
           ++seen[{t.domain(d).parent, it->second}] == 1;
    }
    if (ok) return key;
  }
  return "";
}

std::vector<LevelLabels> level_labels(const Topology& t) {
  std::vector<LevelLabels> out;
  std::set<std::string> used;
  UniqueNames derived_keys;
  for (LevelIndex l = 0; l < t.host_level(); ++l) {
    LevelLabels level;
    auto [first, last] = t.domains_at(l);
    level.key = carried_key(t, l, used);
    if (!level.key.empty()) {
      for (DomainId d = first; d < last; ++d)
        for (const auto& [key, value] : t.labels(t.domain(d).labels))
          if (key == level.key) level.value.push_back(value);
    } else {
      const std::string& name = t.levels()[l].name;
      level.key = std::string(kPrefix) + derived_keys.claim(to_label_value(name), name);
      // A level above may carry this very key already.
      for (int n = 2; used.count(level.key); ++n)
        level.key = std::string(kPrefix) + derived_keys.claim(to_label_value(fmt::format("{}-{}", name, n)), name);
      // Children of one parent are contiguous, so one name pool per parent.
      UniqueNames siblings;
      DomainId parent = kNone;
      for (DomainId d = first; d < last; ++d) {
        if (t.domain(d).parent != parent) {
          parent = t.domain(d).parent;
          siblings = UniqueNames();
        }
        std::string local(l == 0 ? std::string_view(t.name()) : t.str(t.domain(d).name));
        level.value.push_back(siblings.claim(to_label_value(local), t.domain_path(d)));
      }
    }
    used.insert(level.key);
    out.push_back(std::move(level));
  }
  return out;
}

std::string quoted(std::string_view s) { return fmt::format("\"{}\"", s); }

}  // namespace

std::string export_kueue(const Topology& t, const ExportOptions& options) {
  if (!options.level.empty())
    throw InputError({"--level", 0, 0}, "--level is for the Slurm formats; a Kueue Topology has every level");
  bool kubectl = options.style == "kubectl";
  check_node_names(t, "Kueue");

  std::vector<LevelLabels> levels = level_labels(t);
  // The flavor selects the topology's nodes by the root level's label; a
  // topology of one level (a single node) has no root label to use.
  std::string flavor_key = levels.empty() ? std::string(kPrefix) + "topology" : levels.front().key;
  std::string flavor_value = levels.empty() ? to_label_value(t.name()) : levels.front().value.front();
  std::string object_name = to_dns1123_label(t.name());

  std::string out;
  auto line = [&](std::string_view text) {
    out += text;
    out += '\n';
  };
  if (kubectl) line("#!/bin/sh");
  line(fmt::format("# Kueue topology-aware scheduling for {}, written by topoplan export --to kueue.", t.name()));
  std::vector<std::string> mapping;
  for (LevelIndex l = 1; l < t.host_level(); ++l)
    mapping.push_back(fmt::format("{} = {}", t.levels()[l].name, levels[l].key));
  mapping.push_back(fmt::format("{} = {}", t.levels()[t.host_level()].name, kHostnameLabel));
  line(fmt::format("# Levels: {}.", fmt::join(mapping, ", ")));
  line(fmt::format("# The ResourceFlavor selects the nodes labelled {}={}; a ClusterQueue must offer it.",
                   flavor_key, flavor_value));

  std::string objects;
  {
    std::string& o = objects;
    o += "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata:\n";
    o += fmt::format("  name: {}\nspec:\n  levels:\n", quoted(object_name));
    for (LevelIndex l = 1; l < t.host_level(); ++l) o += fmt::format("  - nodeLabel: {}\n", quoted(levels[l].key));
    o += fmt::format("  - nodeLabel: {}\n", quoted(kHostnameLabel));
    o += "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n";
    o += fmt::format("  name: {}\nspec:\n  nodeLabels:\n    {}: {}\n  topologyName: {}\n", quoted(object_name),
                     quoted(flavor_key), quoted(flavor_value), quoted(object_name));
  }

  auto [first, last] = t.domains_at(t.host_level());
  if (kubectl) {
    line("# Run with sh: it labels the nodes, then creates the Topology and the ResourceFlavor.");
    line("set -e");
    for (DomainId node = first; node < last; ++node) {
      std::string cmd = fmt::format("kubectl label node {} --overwrite", t.hostname(node));
      if (levels.empty()) cmd += fmt::format(" {}={}", flavor_key, flavor_value);
      for (LevelIndex l = 0; l < t.host_level(); ++l) {
        DomainId d = t.ancestor(node, l);
        cmd += fmt::format(" {}={}", levels[l].key, levels[l].value[d - t.domains_at(l).first]);
      }
      line(cmd);
    }
    line("kubectl apply -f - <<'EOF'");
    out += objects;
    line("EOF");
    return out;
  }
  line("# Apply with kubectl apply --server-side -f FILE: the Node entries only add labels.");
  out += objects;
  for (DomainId node = first; node < last; ++node) {
    out += fmt::format("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {}\n  labels:\n", quoted(t.hostname(node)));
    if (levels.empty()) out += fmt::format("    {}: {}\n", quoted(flavor_key), quoted(flavor_value));
    for (LevelIndex l = 0; l < t.host_level(); ++l) {
      DomainId d = t.ancestor(node, l);
      out += fmt::format("    {}: {}\n", quoted(levels[l].key), quoted(levels[l].value[d - t.domains_at(l).first]));
    }
  }
  return out;
}

}  // namespace topoplan::formats
