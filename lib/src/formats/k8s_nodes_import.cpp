// import --from k8s-nodes: `kubectl get nodes -o json|yaml` as a topology.
//
// Rules (topoplan-formats(5), KUBERNETES NODES, says the same for users):
// - Input: a v1 List of Nodes, a single Node, or several YAML documents of
//   either; JSON is read as the YAML it is. Several files are one node list.
// - Levels: the label keys of --levels, coarsest first, as in a Kueue Topology
//   (kubernetes-sigs/kueue apis/kueue/v1beta2/topology_types.go); the host
//   level is implied last (`kubernetes.io/hostname`, given last, is dropped).
//   Without --levels, the first label scheme the nodes carry
//   (k8s_label_schemes.hpp). Domains of one level are told apart by the whole
//   path of values, as Kueue does, so rack "r1" of block "b1" and rack "r1"
//   of block "b2" are two racks.
// - Like Kueue (pkg/util/tas/node.go NodeMatchesFlavor, @ff69552e), a node
//   that lacks a level label is left out of the tree; we warn about it. In a
//   list with GPU nodes, a node with no accelerator capacity is left out too
//   (a CPU or control-plane node has no place in a GPU plan) unless
//   --cpu-nodes keeps it or --gpus-per-node says how many it has; a list
//   without any GPU node is a CPU cluster and is imported whole.
// - What Kueue counts besides GPUs is kept per node: status.allocatable of
//   every other resource (cpu in millicores, memory in bytes, pods, ...;
//   pkg/resources ResourceValue), spec.taints, and the node's labels other
//   than the level and hostname labels (for node selectors and affinity).
// - Accelerators: status.capacity of nvidia.com/gpu or amd.com/gpu, i.e. what
//   the device plugin found; when status.allocatable has fewer, the missing
//   ones are unhealthy (the device plugin withdraws them from allocatable) and
//   are marked down, the last ones of the node, since the list does not say
//   which. Kueue counts allocatable (nodesCache keeps Allocatable), so the
//   usable count is the same.
// - Ready condition not "True": the node and every device of it are down;
//   cordoned (spec.unschedulable): drain. Kueue leaves both out of its tree
//   (tas_nodes_cache.go sync: "schedulableAndReady").
// - Node insides: --node-type, else a generic node (node_type.hpp) with the
//   GPU model of nvidia.com/gpu.product / amd.com/gpu.product-name and the
//   memory of nvidia.com/gpu.memory (MiB, GPU feature discovery).
// - Fabric: the node list says nothing about links, so every domain above the
//   hosts gets one logical switch of --fabric-link; a node's NICs go to its
//   domain's switch, each switch goes up to its parent's without
//   oversubscription (as many links up as down).
// - NVLink partitions: hosts with the same nvidia.com/gpu.clique value
//   (<ClusterUUID>.<CliqueID>, written by the GPU operator's IMEX labeller
//   only once Fabric Manager has joined the node to an NVLink domain) share
//   one NVLink switch, placed in the smallest domain that holds them all. Each
//   GPU gets 18 NVLink 5 links to it, 50 GB/s per link and direction: GB200 and
//   GB300 NVL72 have 18 NVLink 5 links, 1.8 TB/s bidirectional, per GPU
//   (shared/reference/hardware.md 5.1). So the cost model and the planner see
//   one scale-up island per clique.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "format_functions.hpp"
#include "import_support.hpp"
#include "io/kubernetes_list.hpp"
#include "io/kubernetes_names.hpp"
#include "io/yaml_support.hpp"
#include "k8s_label_schemes.hpp"
#include "topoplan/formats/node_type.hpp"
#include "topoplan/io/topology_yaml.hpp"
#include "topoplan/model/topology_builder.hpp"

namespace topoplan::formats {

namespace {

// Bounds for hostile inputs; real clusters are far below them (Kubernetes is
// tested to 5,000 nodes; the largest managed offers reach about 100,000).
constexpr std::size_t kMaxNodes = 1'000'000;
constexpr long long kMaxGpusPerNode = 1024;
// The root and host levels take two of topoplan's 16 levels.
constexpr std::size_t kMaxLabelLevels = 14;

struct Label {
  std::string value;
  SourceLocation where;
};

struct NodeRecord {
  std::string name;
  std::string hostname;
  SourceLocation where;
  std::map<std::string, Label, std::less<>> labels;
  long long gpus = -1;         // status.capacity; -1: none reported
  long long allocatable = -1;  // status.allocatable; -1: not given
  ResourceList resources;      // status.allocatable of everything but the GPUs
  std::vector<Taint> taints;   // spec.taints
  bool cordoned = false;
  bool not_ready = false;
  std::vector<std::string> values;  // level values, once the levels are known

  const Label* label(std::string_view key) const {
    auto it = labels.find(key);
    return it == labels.end() ? nullptr : &it->second;
  }
};

// Reads Node objects out of the documents of one file.
class NodeReader {
 public:
  NodeReader(const std::string& file, DiagnosticSink& sink, std::vector<NodeRecord>& out)
      : file_(file), sink_(sink), out_(out) {}

  void document(const yaml::Node& doc) {
    if (doc.IsNull() || !doc.IsDefined()) return;  // an empty document between `---`
    if (!doc.IsMap()) {
      error(doc, "expected a Node or a List of Nodes (kubectl get nodes -o json|yaml)");
      return;
    }
    std::string kind = scalar_or(doc["kind"], "");
    if (kind == "List" || kind == "NodeList" || (kind.empty() && doc["items"].IsDefined())) {
      const yaml::Node items = doc["items"];
      if (!items.IsDefined() || items.IsNull()) return;
      if (!items.IsSequence()) {
        error(items, "'items' of a List must be a list of Nodes");
        return;
      }
      for (const yaml::Node& item : items) node(item, true);
    } else if (kind == "Node") {
      node(doc, false);
    } else {
      error(doc["kind"].IsDefined() ? doc["kind"] : doc,
            kind.empty() ? std::string("expected a Node or a List of Nodes: 'kind' is missing")
                         : fmt::format("expected a Node or a List of Nodes, not a {}", kind));
    }
  }

 private:
  void error(const yaml::Node& at, std::string message) { sink_.error(yaml::where(file_, at), std::move(message)); }

  std::string scalar_or(const yaml::Node& n, std::string fallback) {
    return n.IsDefined() && n.IsScalar() ? n.Scalar() : fallback;
  }

  // A mapping, or nothing (absent or null); anything else is reported.
  std::optional<yaml::Node> mapping(const yaml::Node& parent, const char* key, std::string_view what) {
    const yaml::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) return std::nullopt;
    if (!n.IsMap()) {
      error(n, fmt::format("{} must be a mapping", what));
      return std::nullopt;
    }
    return n;
  }

  std::optional<long long> count(const yaml::Node& resources, std::string_view resource, std::string_view where) {
    const yaml::Node n = resources[std::string(resource)];
    if (!n.IsDefined()) return std::nullopt;
    auto text = yaml::scalar(n, file_, sink_, fmt::format("{} {}", where, resource));
    if (!text) return std::nullopt;
    // Extended resources are whole numbers; Kubernetes writes them plain.
    auto value = yaml::parse_integer(*text);
    if (!value || *value < 0 || *value > kMaxGpusPerNode) {
      error(n, fmt::format("{} {} is '{}'; it must be a whole number from 0 to {}", where, resource, *text,
                           kMaxGpusPerNode));
      return std::nullopt;
    }
    return value;
  }

  // Everything allocatable but the GPUs, which become devices: cpu, memory,
  // pods, ephemeral storage, hugepages and other extended resources, as
  // Kueue counts them (pkg/resources ResourceValue).
  void resources(const yaml::Node& allocatable, NodeRecord& r) {
    for (const auto& entry : allocatable) {
      auto name = yaml::scalar(entry.first, file_, sink_, "a resource name");
      if (!name || *name == kNvidiaGpuResource || *name == kAmdGpuResource) continue;
      auto text = yaml::scalar(entry.second, file_, sink_, fmt::format("allocatable {}", *name));
      if (!text) continue;
      auto value = parse_quantity(*name, *text);
      if (!value) {
        error(entry.second, fmt::format("allocatable {} is '{}', not a Kubernetes quantity", *name, *text));
        continue;
      }
      r.resources.set(*name, *value);
    }
  }

  void taints(const yaml::Node& spec, NodeRecord& r) {
    const yaml::Node list = spec["taints"];
    if (!list.IsDefined() || list.IsNull()) return;
    if (!list.IsSequence()) {
      error(list, "'spec.taints' must be a list");
      return;
    }
    for (const yaml::Node& t : list) {
      if (!t.IsMap()) {
        error(t, "a taint must be a mapping with key and effect");
        continue;
      }
      std::string key = scalar_or(t["key"], "");
      std::string effect = scalar_or(t["effect"], "");
      if (key.empty() || (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute")) {
        error(t, fmt::format("a taint needs a key and an effect of NoSchedule, PreferNoSchedule or NoExecute (key "
                             "'{}', effect '{}')",
                             key, effect));
        continue;
      }
      r.taints.push_back({key, scalar_or(t["value"], ""), effect});
    }
  }

  void node(const yaml::Node& n, bool in_list) {
    if (!n.IsMap()) {
      error(n, "a Node must be a mapping");
      return;
    }
    if (in_list) {
      std::string kind = scalar_or(n["kind"], "Node");
      if (kind != "Node") {
        error(n["kind"], fmt::format("expected a Node in the List, not a {}", kind));
        return;
      }
    }
    std::size_t errors = sink_.size();
    NodeRecord r;
    r.where = yaml::where(file_, n);
    auto metadata = mapping(n, "metadata", "'metadata'");
    if (!metadata) {
      if (sink_.size() == errors) error(n, "a Node needs 'metadata' with a 'name'");
      return;
    }
    const yaml::Node name = (*metadata)["name"];
    if (!name.IsDefined()) {
      error(*metadata, "a Node needs 'metadata.name'");
      return;
    }
    auto name_text = yaml::scalar(name, file_, sink_, "'metadata.name'");
    if (!name_text) return;
    r.name = *name_text;
    r.where = yaml::where(file_, name);
    if (!is_dns1123_subdomain(r.name))
      error(name, fmt::format("node name '{}' is not a Kubernetes node name (a lower-case DNS subdomain)", r.name));
    if (auto labels = mapping(*metadata, "labels", "'metadata.labels'")) {
      for (const auto& entry : *labels) {
        auto key = yaml::scalar(entry.first, file_, sink_, "a label key");
        if (!key) continue;
        std::string value;
        if (!entry.second.IsNull()) {
          auto v = yaml::scalar(entry.second, file_, sink_, fmt::format("label '{}'", *key));
          if (!v) continue;
          value = *v;
        }
        r.labels[*key] = {value, yaml::where(file_, entry.second.IsNull() ? entry.first : entry.second)};
      }
    }
    // Values that become names in the topology must be label values, as the
    // API server ensures; a hand-edited file may hold anything.
    for (std::string_view key : {kNvidiaCliqueLabel, kNvidiaProductLabel, kAmdProductLabel})
      if (const Label* l = r.label(key); l && !is_label_value(l->value))
        sink_.error(l->where, fmt::format("label {} is '{}', not a label value", key, l->value));
    r.hostname = r.name;
    if (const Label* host = r.label(kHostnameLabel)) {
      if (host->value.empty() || !is_label_value(host->value))
        sink_.error(host->where, fmt::format("label {} is '{}', not a hostname", kHostnameLabel, host->value));
      else
        r.hostname = host->value;
    }
    if (auto spec = mapping(n, "spec", "'spec'")) {
      const yaml::Node u = (*spec)["unschedulable"];
      if (u.IsDefined() && !u.IsNull()) {
        auto text = yaml::scalar(u, file_, sink_, "'spec.unschedulable'");
        if (text && *text != "true" && *text != "false")
          error(u, fmt::format("'spec.unschedulable' is '{}'; it must be true or false", *text));
        r.cordoned = text && *text == "true";
      }
      taints(*spec, r);
    }
    if (auto status = mapping(n, "status", "'status'")) {
      if (auto capacity = mapping(*status, "capacity", "'status.capacity'")) {
        auto nvidia = count(*capacity, kNvidiaGpuResource, "capacity");
        auto amd = count(*capacity, kAmdGpuResource, "capacity");
        if (nvidia && amd && *nvidia > 0 && *amd > 0)
          error(*capacity, "a node with both NVIDIA and AMD GPUs is not supported");
        r.gpus = std::max(nvidia.value_or(-1), amd.value_or(-1));
      }
      if (auto allocatable = mapping(*status, "allocatable", "'status.allocatable'")) {
        auto nvidia = count(*allocatable, kNvidiaGpuResource, "allocatable");
        auto amd = count(*allocatable, kAmdGpuResource, "allocatable");
        r.allocatable = std::max(nvidia.value_or(-1), amd.value_or(-1));
        if (r.gpus < 0) r.gpus = r.allocatable;  // capacity left out by hand
        resources(*allocatable, r);
      }
      const yaml::Node conditions = (*status)["conditions"];
      if (conditions.IsDefined() && !conditions.IsNull()) {
        if (!conditions.IsSequence()) {
          error(conditions, "'status.conditions' must be a list");
        } else {
          for (const yaml::Node& c : conditions)
            if (c.IsMap() && scalar_or(c["type"], "") == "Ready") r.not_ready = scalar_or(c["status"], "") != "True";
        }
      }
    }
    if (sink_.size() != errors) return;
    if (out_.size() >= kMaxNodes) {
      error(n, fmt::format("more than {} nodes", kMaxNodes));
      sink_.throw_if_any();
    }
    out_.push_back(std::move(r));
  }

  const std::string& file_;
  DiagnosticSink& sink_;
  std::vector<NodeRecord>& out_;
};

// Names for a message: the first ten, then how many more.
std::string listed(const std::vector<std::string>& names) {
  constexpr std::size_t kListed = 10;
  auto end = names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), kListed));
  std::string out = fmt::format("{}", fmt::join(names.begin(), end, ", "));
  if (names.size() > kListed) out += fmt::format(" and {} more", names.size() - kListed);
  return out;
}

struct Levels {
  std::vector<std::string> keys;   // label keys, coarsest first
  std::vector<std::string> names;  // topoplan level names, root and host included
};

Levels resolve_levels(const ImportOptions& options, const std::vector<NodeRecord>& nodes,
                      std::vector<ImportWarning>& warnings) {
  Levels out;
  DiagnosticSink sink;
  const SourceLocation option{"--levels", 0, 0};
  if (!options.level_labels.empty()) {
    for (std::size_t i = 0; i < options.level_labels.size(); ++i) {
      const std::string& key = options.level_labels[i];
      if (key == kHostnameLabel) {
        if (i + 1 != options.level_labels.size())
          sink.error(option, fmt::format("{} can only be the last level, as in a Kueue Topology", kHostnameLabel));
        continue;  // the host level is implied
      }
      if (std::string problem = label_key_problem(key); !problem.empty()) {
        sink.error(option, fmt::format("'{}' is not a label key: {}", key, problem));
        continue;
      }
      if (std::find(out.keys.begin(), out.keys.end(), key) != out.keys.end()) {
        sink.error(option, fmt::format("label '{}' is listed twice", key));
        continue;
      }
      out.keys.push_back(key);
    }
  } else {
    LabelScheme scheme = default_label_scheme([&](std::string_view key) {
      return std::any_of(nodes.begin(), nodes.end(), [&](const NodeRecord& n) { return n.label(key) != nullptr; });
    });
    out.keys = scheme.levels;
    warnings.push_back({{},
                        scheme.levels.empty()
                            ? std::string("no --levels and no known topology labels on the nodes: the nodes form "
                                          "one flat level")
                            : fmt::format("no --levels given: using the {} labels {}", scheme.name,
                                          fmt::join(scheme.levels, ","))});
  }
  if (out.keys.size() > kMaxLabelLevels)
    sink.error(option, fmt::format("{} levels given; at most {} fit with the cluster and node levels",
                                   out.keys.size(), kMaxLabelLevels));
  sink.throw_if_any();

  std::set<std::string> taken = {"cluster", "node", "i", "j", "g"};
  out.names.push_back("cluster");
  for (const std::string& key : out.keys) {
    std::string base = level_name_for_label(key);
    std::string name = base;
    for (int n = 2; taken.count(name); ++n) name = fmt::format("{}_{}", base, n);
    taken.insert(name);
    out.names.push_back(name);
  }
  out.names.push_back("node");
  return out;
}

std::string topology_name(const ImportOptions& options, std::span<const ImportSource> sources) {
  if (!options.name.empty()) {
    if (!is_label_value(options.name))
      throw InputError({"--name", 0, 0}, fmt::format("topology name '{}' must be at most 63 letters, digits, '.', "
                                                     "'_' or '-', starting and ending with a letter or digit",
                                                     options.name));
    return options.name;
  }
  if (sources.empty() || sources.front().path == "<stdin>") return "k8s-nodes";
  std::string base = sources.front().path;
  if (std::size_t slash = base.find_last_of('/'); slash != std::string::npos) base = base.substr(slash + 1);
  if (std::size_t dot = base.find('.'); dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  return to_label_value(base);
}

// The nodes that become hosts, with their level values, in Kueue's order
// (lexicographic by level values, then hostname); the rest are reported.
std::vector<const NodeRecord*> select_nodes(std::vector<NodeRecord>& nodes, const Levels& levels,
                                            const ImportOptions& options, std::vector<ImportWarning>& warnings) {
  DiagnosticSink sink;
  std::vector<const NodeRecord*> kept;
  std::vector<std::string> no_gpus;
  std::size_t unlabelled = 0;
  constexpr std::size_t kListed = 10;
  // A list without any GPU node is a CPU cluster: all of it is imported
  // (for Kueue plans of CPU pods); in a GPU cluster the CPU nodes are left
  // out unless asked for.
  const bool any_gpus = std::any_of(nodes.begin(), nodes.end(), [](const NodeRecord& n) { return n.gpus > 0; });
  const bool keep_cpu = options.cpu_nodes || options.gpus_per_node > 0 || !any_gpus;
  if (!any_gpus && options.gpus_per_node == 0 && !nodes.empty())
    warnings.push_back({{}, fmt::format("no node has {} or {} capacity: the nodes are imported without accelerators "
                                        "(their cpu, memory and pods count for --policy kueue; --gpus-per-node N "
                                        "gives each N GPUs)",
                                        kNvidiaGpuResource, kAmdGpuResource)});
  for (NodeRecord& n : nodes) {
    if (n.gpus <= 0 && !keep_cpu) {
      no_gpus.push_back(n.name);
      continue;
    }
    std::vector<std::string> missing;
    n.values.clear();
    for (const std::string& key : levels.keys) {
      const Label* l = n.label(key);
      if (!l || l->value.empty()) {
        missing.push_back(key);
        continue;
      }
      if (!is_label_value(l->value))
        sink.error(l->where, fmt::format("label '{}' is '{}', not a label value", key, l->value));
      n.values.push_back(l->value);
    }
    if (!missing.empty()) {
      if (++unlabelled <= kListed)
        warnings.push_back({n.where, fmt::format("node '{}' is left out: it has no (or an empty) {} label, so Kueue "
                                                 "would leave it out of the topology too",
                                                 n.name, fmt::join(missing, ", "))});
      continue;
    }
    kept.push_back(&n);
  }
  sink.throw_if_any();
  if (unlabelled > kListed)
    warnings.push_back({{}, fmt::format("{} more nodes without all level labels are left out", unlabelled - kListed)});
  if (!no_gpus.empty())
    warnings.push_back({{}, fmt::format("{} node{} without {} or {} capacity left out (--cpu-nodes imports them "
                                        "without accelerators): {}",
                                        no_gpus.size(), no_gpus.size() == 1 ? "" : "s", kNvidiaGpuResource,
                                        kAmdGpuResource, listed(no_gpus))});
  if (kept.empty()) {
    std::vector<Diagnostic> diagnostics;
    std::string file = nodes.empty() ? std::string() : nodes.front().where.file;
    if (nodes.empty()) {
      diagnostics.push_back({{}, "the input holds no Node"});
    } else {
      // Every node was left out for a missing level label.
      std::vector<std::string> seen;
      for (const NodeRecord& n : nodes)
        for (const auto& [key, label] : n.labels) seen.push_back(key);
      std::sort(seen.begin(), seen.end());
      seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
      for (const std::string& key : levels.keys) {
        bool carried = std::any_of(nodes.begin(), nodes.end(), [&](const NodeRecord& n) { return n.label(key); });
        if (carried) continue;
        std::string hint = did_you_mean(key, seen);
        diagnostics.push_back({{"--levels", 0, 0}, fmt::format("no node has the label '{}'{}{}", key,
                                                               hint.empty() ? "" : "; ", hint)});
      }
      diagnostics.push_back({{file, 0, 0}, "no node has every level label, so no node is left to import"});
    }
    throw InputError(std::move(diagnostics));
  }
  std::stable_sort(kept.begin(), kept.end(), [](const NodeRecord* a, const NodeRecord* b) {
    if (a->values != b->values) return a->values < b->values;
    return a->hostname < b->hostname;
  });
  return kept;
}

class TopologyAssembler {
 public:
  TopologyAssembler(std::string name, const Levels& levels, const ImportOptions& options, LinkType fabric)
      : b_(std::move(name), levels.names), levels_(levels), options_(options), fabric_(std::move(fabric)) {
    if (options.node_type) copied_ = NodeType::copy_of(*options.node_type);
  }

  void add(const NodeRecord& n, DiagnosticSink& sink) {
    std::uint32_t origin = b_.add_origin(n.where);
    DomainId parent = b_.root();
    bool changed = path_.empty();
    path_.resize(levels_.keys.size(), kNone);
    for (std::size_t l = 0; l < levels_.keys.size(); ++l) {
      if (changed || b_.domain_local_name(path_[l]) != n.values[l]) {
        changed = true;
        const Label* label = n.label(levels_.keys[l]);
        path_[l] = b_.add_domain(parent, n.values[l], b_.add_origin(label->where));
        b_.set_domain_labels(path_[l], {{levels_.keys[l], n.values[l]}});
      }
      parent = path_[l];
    }
    DomainId host = b_.add_domain(parent, n.name, origin);
    b_.set_hostname(host, n.hostname);
    // The node's own labels, for node selectors and affinity; the level
    // labels are its domains' and the hostname label is its hostname.
    Labels own;
    for (const auto& [key, label] : n.labels)
      if (key != kHostnameLabel && std::find(levels_.keys.begin(), levels_.keys.end(), key) == levels_.keys.end())
        own.emplace_back(key, label.value);
    b_.set_domain_labels(host, std::move(own));
    NodeResources resources;
    resources.allocatable = n.resources;
    resources.taints = n.taints;
    resources.state = n.not_ready ? DeviceState::down : n.cordoned ? DeviceState::drain : DeviceState::up;
    b_.set_node_resources(host, std::move(resources));

    const NodeType* type = node_type(n, sink);
    if (!type) return;
    DeviceId first = static_cast<DeviceId>(b_.device_count());
    std::vector<DeviceId> nics = type->instantiate(b_, host);
    if (b_.device_count() > TopologyLimits::max_devices)
      throw InputError(n.where, fmt::format("the topology would have more than {} devices",
                                            TopologyLimits::max_devices));
    std::vector<DeviceId> gpus;
    for (DeviceId d = first; d < b_.device_count(); ++d)
      if (b_.device_kind(d) == DeviceKind::gpu) gpus.push_back(d);

    if (!options_.node_type) {
      if (const Label* memory = n.label(kNvidiaMemoryLabel)) {
        auto mib = yaml::parse_integer(memory->value);
        if (!mib || *mib <= 0 || *mib > (1ll << 30))
          sink.error(memory->where, fmt::format("label {} is '{}'; it must be the MiB of one GPU",
                                                kNvidiaMemoryLabel, memory->value));
        else
          for (DeviceId g : gpus) b_.set_device_memory(g, static_cast<float>(static_cast<double>(*mib) / 1024.0));
      }
    }
    if (n.not_ready || n.cordoned) {
      for (DeviceId d = first; d < b_.device_count(); ++d)
        b_.set_device_state(d, n.not_ready ? DeviceState::down : DeviceState::drain);
    } else if (n.allocatable >= 0 && n.allocatable < static_cast<long long>(gpus.size())) {
      for (std::size_t i = static_cast<std::size_t>(n.allocatable); i < gpus.size(); ++i)
        b_.set_device_state(gpus[i], DeviceState::down);
      unhealthy_.push_back(n.name);
    }

    host_nics_.push_back({host, std::move(nics)});
    if (const Label* clique = n.label(kNvidiaCliqueLabel); clique && !clique->value.empty()) {
      Clique& c = cliques_[clique->value];
      if (c.hosts.empty()) c.where = clique->where;
      c.hosts.push_back(host);
      c.gpus.insert(c.gpus.end(), gpus.begin(), gpus.end());
    }
  }

  Topology finish(DiagnosticSink& sink, std::vector<ImportWarning>& warnings) {
    add_fabric();
    add_cliques();
    if (b_.link_count() > TopologyLimits::max_links)
      throw InputError({}, fmt::format("the topology would have more than {} links", TopologyLimits::max_links));
    if (!unhealthy_.empty())
      warnings.push_back({{}, fmt::format("{} {} fewer allocatable than installed GPUs; the missing ones are "
                                          "marked down: {}",
                                          unhealthy_.size(), unhealthy_.size() == 1 ? "node reports" : "nodes report",
                                          listed(unhealthy_))});
    return b_.finish(sink);
  }

  TopologyBuilder& builder() { return b_; }

 private:
  struct Clique {
    SourceLocation where;
    std::vector<DomainId> hosts;
    std::vector<DeviceId> gpus;
  };

  const NodeType* node_type(const NodeRecord& n, DiagnosticSink& sink) {
    if (copied_ && (n.gpus > 0 || options_.gpus_per_node > 0)) {
      if (n.gpus > 0 && n.gpus != copied_->accelerators()) {
        sink.error(n.where, fmt::format("node '{}' has {} GPUs in its capacity, but the node type has {} ({})", n.name,
                                        n.gpus, copied_->accelerators(), copied_->description()));
        return nullptr;
      }
      return &*copied_;
    }
    int gpus = n.gpus > 0 ? static_cast<int>(n.gpus) : options_.gpus_per_node;
    std::string model = options_.gpu_model.empty() ? "GPU" : options_.gpu_model;
    if (const Label* l = n.label(kNvidiaProductLabel); l && !l->value.empty()) model = l->value;
    else if (const Label* a = n.label(kAmdProductLabel); a && !a->value.empty()) model = a->value;
    auto key = std::make_pair(gpus, model);
    auto it = generic_.find(key);
    if (it == generic_.end()) it = generic_.emplace(key, NodeType::generic(gpus, model)).first;
    return &it->second;
  }

  // One logical switch per domain above the hosts, joined as a tree.
  void add_fabric() {
    std::vector<DeviceId> sw(b_.domain_count(), kNone);
    std::vector<long long> down(b_.domain_count(), 0);
    DeviceProperties p;
    p.model = "logical";
    const LevelIndex host_level = static_cast<LevelIndex>(b_.level_count() - 1);
    for (DomainId d = 0; d < b_.domain_count(); ++d)
      if (b_.level_of(d) != host_level) sw[d] = b_.add_device(d, DeviceKind::network_switch, "sw", p);
    std::uint16_t type = b_.link_type_index(fabric_);
    for (const auto& [host, nics] : host_nics_) {
      DomainId parent = b_.parent(host);
      for (DeviceId nic : nics) b_.add_link(nic, sw[parent], type, 1, fabric_.bandwidth, fabric_.latency_us, 0);
      down[parent] += static_cast<long long>(nics.size());
    }
    // Deepest domains first, so that a switch knows its downlinks before it
    // links up.
    for (LevelIndex l = host_level; l-- > 1;) {
      for (DomainId d = 0; d < b_.domain_count(); ++d) {
        if (b_.level_of(d) != l || down[d] == 0) continue;
        DomainId parent = b_.parent(d);
        long long count = std::min<long long>(down[d], 65535);
        double bandwidth = fabric_.bandwidth * static_cast<double>(down[d]) / static_cast<double>(count);
        b_.add_link(sw[d], sw[parent], type, static_cast<int>(count), bandwidth, fabric_.latency_us, 0);
        down[parent] += down[d];
      }
    }
  }

  void add_cliques() {
    for (const auto& [value, c] : cliques_) {
      DomainId owner = c.hosts.front();
      for (DomainId h : c.hosts) owner = common_ancestor(b_, owner, h);
      if (b_.level_of(owner) == b_.level_count() - 1) owner = b_.parent(owner);  // switches sit above the hosts
      add_nvlink_partition(b_, owner, "nvl-" + value, c.gpus, b_.add_origin(c.where));
    }
  }

  TopologyBuilder b_;
  const Levels& levels_;
  const ImportOptions& options_;
  LinkType fabric_;
  std::optional<NodeType> copied_;
  std::map<std::pair<int, std::string>, NodeType> generic_;
  std::vector<DomainId> path_;
  std::vector<std::pair<DomainId, std::vector<DeviceId>>> host_nics_;
  std::map<std::string, Clique> cliques_;  // by label value: deterministic order
  std::vector<std::string> unhealthy_;
};

// What both entry points share: `sources` name the topology and its
// description; `read` hands every node document to a reader.
ImportResult import_nodes(std::span<const ImportSource> sources, const ImportOptions& options,
                          const std::function<void(DiagnosticSink&, std::vector<NodeRecord>&)>& read) {
  ImportResult result;
  auto fabric = find_link_type(options.fabric_link);
  if (!fabric) {
    std::string hint = did_you_mean(options.fabric_link, link_type_names());
    throw InputError({"--fabric-link", 0, 0}, fmt::format("unknown link type '{}'{}{}", options.fabric_link,
                                                          hint.empty() ? "" : "; ", hint));
  }
  std::string name = topology_name(options, sources);

  DiagnosticSink sink;
  std::vector<NodeRecord> nodes;
  read(sink, nodes);
  {
    std::map<std::string_view, const NodeRecord*> seen;
    for (const NodeRecord& n : nodes)
      if (auto [it, fresh] = seen.emplace(n.name, &n); !fresh)
        sink.error(n.where, fmt::format("node '{}' is listed twice (first at {})", n.name, it->second->where.str()));
  }
  sink.throw_if_any();

  Levels levels = resolve_levels(options, nodes, result.warnings);
  std::vector<const NodeRecord*> kept = select_nodes(nodes, levels, options, result.warnings);

  TopologyAssembler assembler(name, levels, options, *fabric);
  assembler.builder().set_description(
      fmt::format("{} Kubernetes node{} from {}, levels from the labels {}", kept.size(), kept.size() == 1 ? "" : "s",
                  sources.empty() ? std::string("<none>") : sources.front().path,
                  levels.keys.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(levels.keys, ","))));
  for (const NodeRecord* n : kept) assembler.add(*n, sink);
  sink.throw_if_any();
  result.topology = assembler.finish(sink, result.warnings);
  return result;
}

}  // namespace

ImportResult import_k8s_nodes(std::span<const ImportSource> sources, const ImportOptions& options) {
  return import_nodes(sources, options, [&](DiagnosticSink& sink, std::vector<NodeRecord>& nodes) {
    for (const ImportSource& source : sources) {
      NodeReader reader(source.path, sink, nodes);
      for (const yaml::Node& doc : yaml::parse_all(source.text, source.path)) reader.document(doc);
    }
  });
}

ImportResult import_k8s_node_documents(std::span<const yaml::Node> documents, const std::string& path,
                                       const ImportOptions& options) {
  const ImportSource named[] = {{path, ""}};
  return import_nodes(named, options, [&](DiagnosticSink& sink, std::vector<NodeRecord>& nodes) {
    NodeReader reader(path, sink, nodes);
    for (const yaml::Node& doc : documents) reader.document(doc);
  });
}

}  // namespace topoplan::formats

namespace topoplan {

bool is_k8s_node_list(std::string_view text) { return yaml::is_object_list(text, "Node"); }

}  // namespace topoplan
