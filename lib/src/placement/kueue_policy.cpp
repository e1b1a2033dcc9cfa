// The `kueue` peer policy: topoplan's jobs and nodes as Kueue's TAS sees them,
// then Kueue's assignment (kueue_tas.cpp). Read in kubernetes-sigs/kueue at
// ff69552e79ad; files below are under pkg/cache/scheduler/ unless named.
//
// The tree (tas_topology_tree.go, tas_nodes_cache.go, tas_flavor.go): the
// nodes of the workload's flavor that are schedulable and Ready, that carry
// the flavor's node labels and every level's label (pkg/util/tas/node.go
// NodeMatchesFlavor). A node's value at a level is its label; a node that
// lacks the label has its domain's name at the level the label names (how
// topoplan's own topologies carry levels); kubernetes.io/hostname is the
// hostname. When the lowest level is the hostname, a leaf is a node;
// otherwise a leaf is a lowest-level domain and pools its nodes' capacity.
//
// Capacity (fillLeafCounts, tas_non_tas_pod_cache.go, resources.CountIn): a
// node's allocatable less what running pods and placed pods request, with
// its free accelerators as nvidia.com/gpu and amd.com/gpu; a pod fits as
// often as its scarcest request allows, with Kueue's implicit `pods: 1`.
// Topologies not read from a Kubernetes node list have no allocatable: only
// accelerators count there, and a pod that asks for none takes one
// accelerator, so that a pod still takes a slot (as the manifest reader
// counts such pods for the other policies).
//
// Node filters (scheduling_simulator_default.go FindFeasibleNodes), for
// hostname leaves only, as Kueue applies them: an untolerated NoSchedule or
// NoExecute taint (the pod's tolerations and the flavor's), the pod's
// nodeSelector, its required node affinity; the preferred node affinity
// scores nodes when TASRespectNodeAffinityPreferred is on. A leader/worker
// group uses the workers' constraints (findTopologyAssignment reads the
// workers' PodSet).
//
// Workloads (FindTopologyAssignmentsForFlavor): a workload's PodSets are
// placed group by group (a podset-group-name pairs a one-pod leader with its
// workers, findLeaderAndWorkers: the smaller PodSet, the second on a tie),
// each group seeing what the earlier ones took.
//
// Pods on nodes: Kueue assigns pods to leaves; on a hostname leaf that is the
// node. A lowest-level domain's pods go to its nodes as kube-scheduler
// would have to place them: node by node in hostname order, each as many as
// fit; pods that fit on no node are reported. A pod's accelerators are its
// node's free accelerators in device order (the device plugin's choice, not
// Kueue's), nodes in Kueue's order (by level values), the leader first.
//
// Jobs of topoplan's own format (workload_for): pods of the job's
// tensor-parallel granule (or of one accelerator, or a whole node each),
// `required`/`preferred` as podset-required/preferred-topology at the
// level's Kueue key (a request at the root, which Kueue cannot name, as
// preferred at the top level), none as implied TAS (unconstrained at the
// lowest level, isTASImplied in pkg/scheduler/flavorassigner). Service
// replicas are workloads of their own; replicas kept in one domain
// (replicas_within, Kueue's slices) are one workload whose slices are the
// replicas.
#include "topoplan/placement/kueue_policy.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_set>

#include <fmt/format.h>

#include "topoplan/model/node_size.hpp"

namespace topoplan {

namespace {

constexpr std::string_view kGpuResources[] = {"nvidia.com/gpu", "amd.com/gpu"};
constexpr std::int64_t kUnlimited = std::int64_t{1} << 40;

bool is_accelerator_resource(std::string_view name) {
  return std::find(std::begin(kGpuResources), std::end(kGpuResources), name) != std::end(kGpuResources);
}

// A label of a node: its own, else of the domains above it.
const std::string* node_label(const Topology& t, DomainId node, std::string_view key) {
  for (DomainId d = node; d != kNone; d = t.domain(d).parent) {
    const Labels& labels = t.labels(t.domain(d).labels);
    auto it = std::lower_bound(labels.begin(), labels.end(), key,
                               [](const auto& kv, std::string_view k) { return kv.first < k; });
    if (it != labels.end() && it->first == key) return &it->second;
  }
  return nullptr;
}

// Every label a node carries: its own, its domains', and its hostname.
Labels node_labels(const Topology& t, DomainId node) {
  Labels out;
  for (DomainId d = node; d != kNone; d = t.domain(d).parent)
    for (const auto& kv : t.labels(t.domain(d).labels))
      if (std::none_of(out.begin(), out.end(), [&](const auto& o) { return o.first == kv.first; })) out.push_back(kv);
  if (std::none_of(out.begin(), out.end(), [](const auto& o) { return o.first == kueue::kHostnameLabel; }))
    out.emplace_back(kueue::kHostnameLabel, std::string(t.hostname(node)));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

struct KueuePolicy::Flavor {
  kueue::Tree tree{{}};
  std::vector<std::vector<DomainId>> leaf_nodes;  // per leaf, in hostname order
  kueue::Workspace workspace;
  // Pods per domain for pods of N accelerators each, where only
  // accelerators count (a topology without allocatable) and a leaf is one
  // node: kept up to date from each node's free accelerators, so that a job
  // costs a pass over the nodes rather than a roll-up of the tree.
  struct Shape {
    std::vector<std::int64_t> free;  // per leaf: free accelerators last seen (-1: not yet)
    std::vector<std::int64_t> pods;  // per domain
    int empty_leaves = 0;            // leaves that hold no pod
    const Occupancy* occupancy = nullptr;  // whose free accelerators `free` holds
    std::size_t seen = 0;                  // entries of the policy's node log applied
    std::optional<kueue::CountIndex> index;  // `pods` by level, for the engine's lookups
  };
  std::map<std::int64_t, Shape> shapes;
  bool single_node_leaves = true;
  std::vector<std::uint32_t> leaf_of_node;  // per host-level domain (from the first): leaf or kNone
};

KueuePolicy::KueuePolicy(const Topology&, kueue::Gates gates) : gates_(gates) {}
KueuePolicy::~KueuePolicy() = default;

KueuePolicy::Flavor& KueuePolicy::flavor(const Topology& t, const KueueFlavor& f) const {
  std::string key = fmt::format("{}|", static_cast<const void*>(&t));
  for (const KueueLevel& l : f.levels) key += fmt::format("{}={};", l.key, l.level ? static_cast<long long>(*l.level) : -1);
  key += "|";
  for (const auto& [k, v] : f.node_labels) key += fmt::format("{}={};", k, v);
  auto it = flavors_.find(key);
  if (it != flavors_.end()) return *it->second;

  auto out = std::make_unique<Flavor>();
  std::vector<std::string> keys;
  for (const KueueLevel& l : f.levels) keys.push_back(l.key);
  out->tree = kueue::Tree(keys);
  auto [first, last] = t.domains_at(t.host_level());
  std::vector<DomainId> nodes(last - first);
  std::iota(nodes.begin(), nodes.end(), first);
  std::sort(nodes.begin(), nodes.end(), [&](DomainId a, DomainId b) { return t.hostname(a) < t.hostname(b); });
  std::vector<std::string> values(f.levels.size());
  for (DomainId n : nodes) {
    // Kueue's tree holds schedulable, Ready nodes of the flavor.
    if (t.node_resources(n).state != DeviceState::up) continue;
    bool in = true;
    for (const auto& [k, v] : f.node_labels) {
      const std::string* have = k == kueue::kHostnameLabel ? nullptr : node_label(t, n, k);
      std::string host = k == kueue::kHostnameLabel ? std::string(t.hostname(n)) : std::string();
      if (k == kueue::kHostnameLabel ? host != v : (!have || *have != v)) in = false;
    }
    for (std::size_t l = 0; l < f.levels.size() && in; ++l) {
      const KueueLevel& level = f.levels[l];
      if (level.key == kueue::kHostnameLabel) {
        values[l] = std::string(t.hostname(n));
      } else if (const std::string* v = node_label(t, n, level.key)) {
        values[l] = *v;
      } else if (level.level && *level.level >= 1 && *level.level <= t.host_level()) {
        DomainId d = t.ancestor(n, *level.level);
        values[l] = d == n ? std::string(t.hostname(n)) : std::string(t.str(t.domain(d).name));
      } else {
        in = false;  // Kueue leaves out a node without every level's label
      }
      if (values[l].empty()) in = false;
    }
    if (!in) continue;
    std::uint32_t leaf = out->tree.add_leaf(values);
    if (leaf >= out->leaf_nodes.size()) out->leaf_nodes.resize(leaf + 1);
    out->leaf_nodes[leaf].push_back(n);
    if (out->leaf_of_node.empty()) out->leaf_of_node.assign(last - first, kNone);
    out->leaf_of_node[n - first] = leaf;
  }
  out->tree.finish();
  for (const auto& nodes_of_leaf : out->leaf_nodes) out->single_node_leaves = out->single_node_leaves && nodes_of_leaf.size() == 1;
  out->single_node_leaves = out->single_node_leaves && out->tree.hostname_leaves();
  return *flavors_.emplace(std::move(key), std::move(out)).first->second;
}

KueueWorkload KueuePolicy::workload_for(const Topology& t, const PlaceRequest& request, bool whole_nodes) {
  KueueWorkload w;
  w.flavor.levels = default_kueue_levels(t);
  auto key_of = [&](LevelIndex level) -> std::optional<std::string> {
    for (const KueueLevel& l : w.flavor.levels)
      if (l.level == level) return l.key;
    return std::nullopt;
  };
  KueuePodSet p;
  p.name = "main";
  std::uint32_t per_pod = 1;
  if (whole_nodes) {
    per_pod = std::max(1u, typical_node_accelerators(t));
    p.count = request.units;
  } else if (request.granule > 1 && request.units % request.granule == 0) {
    per_pod = request.granule;
    p.count = request.units / request.granule;
  } else {
    p.count = request.units;
  }
  p.requests.set("nvidia.com/gpu", per_pod);
  kueue::TopologyRequest& r = p.topology;
  auto level_request = [&](LevelIndex level, bool required) {
    if (level == 0) {
      r.preferred = w.flavor.levels.front().key;  // Kueue cannot name the root: anywhere will do
      return;
    }
    (required ? r.required : r.preferred) = key_of(level);
  };
  if (request.required)
    level_request(*request.required, true);
  else if (request.preferred)
    level_request(*request.preferred, false);
  else
    r.implied = true;
  // Replicas kept in one domain are Kueue's slices of one workload.
  const Job* job = request.job;
  if (job && job->replicas > 1 && job->replicas_within) {
    if (auto within = t.find_level(*job->replicas_within); within && *within > 0) {
      if (request.required && *request.required > *within)
        r.slices.push_back({key_of(*request.required).value_or(kueue::kHostnameLabel),
                            static_cast<std::int32_t>(p.count)});
      p.count *= job->replicas;
      r.required = key_of(*within);
      r.preferred.reset();
      r.implied = false;
    }
  }
  w.pod_sets.push_back(std::move(p));
  return w;
}

std::uint32_t KueuePolicy::pod_groups(const Job& job) const {
  if (job.kueue) return std::max(1u, job.kueue->workloads);
  if (job.replicas > 1 && job.replicas_within) return 1;
  return std::max(1u, job.replicas);
}

namespace {

// A pod's requests as Kueue counts them: its own and `pods: 1`. On a
// topology without allocatable only accelerators count; there a pod of a
// workload that asks for no accelerator at all takes one (a slot), and a pod
// beside accelerator pods (an MPI launcher) takes nothing countable.
ResourceList effective_requests(const ResourceList& requests, bool known_resources, bool workload_has_accelerators) {
  ResourceList r = requests;
  r.set("pods", r.value("pods") + 1);
  if (!known_resources) {
    std::int64_t accelerators = 0;
    for (std::string_view g : kGpuResources) accelerators += r.value(g);
    ResourceList only;
    if (accelerators > 0 || !workload_has_accelerators) only.set("nvidia.com/gpu", std::max<std::int64_t>(accelerators, 1));
    only.set("pods", 1);  // unlimited where nothing is known
    return only;
  }
  return r;
}

std::int64_t accelerators_of(const ResourceList& r) {
  std::int64_t n = 0;
  for (std::string_view g : kGpuResources) n += r.value(g);
  return n;
}

// What one placement of one workload has taken so far (Kueue's assumed
// usage of the earlier PodSet groups).
struct Assumed {
  std::map<DomainId, ResourceList> resources;
  std::map<DomainId, std::int64_t> accelerators;
};

// One requested resource, with where its free amount comes from.
struct Need {
  std::string name;
  bool accelerator = false;
  const std::vector<std::int64_t>* allocatable = nullptr;  // per node; null: not known (unlimited)
  const std::vector<std::int64_t>* used = nullptr;         // per node; null: nothing used
};

class Placer {
 public:
  Placer(const Topology& t, const CapacityView& view, const NodeUsage* usage, const kueue::Gates& gates,
         std::map<std::string, std::vector<std::int64_t>, std::less<>>& allocatable)
      : t_(t), view_(view), usage_(usage), gates_(gates), known_(t.has_node_resources()),
        first_node_(t.domains_at(t.host_level()).first), allocatable_(allocatable) {}

  // The resources of `requests` (any number of request lists), in name order.
  std::vector<Need> needs(std::initializer_list<const ResourceList*> requests) {
    std::vector<std::string> names;
    for (const ResourceList* r : requests)
      for (const auto& [name, value] : *r) names.push_back(name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::vector<Need> out;
    for (const std::string& name : names) {
      Need n;
      n.name = name;
      n.accelerator = is_accelerator_resource(name);
      if (!n.accelerator && known_) {
        n.allocatable = &column(name);
        n.used = usage_ ? usage_->column(name) : nullptr;
      }
      out.push_back(std::move(n));
    }
    return out;
  }

  // A request list as values aligned with `needs` (0: not requested).
  static std::vector<std::int64_t> aligned(const std::vector<Need>& needs, const ResourceList& requests) {
    std::vector<std::int64_t> out(needs.size(), 0);
    for (std::size_t i = 0; i < needs.size(); ++i) out[i] = requests.value(needs[i].name);
    return out;
  }

  // The free amount of a need on `node`.
  std::int64_t free(DomainId node, const Need& need, const Assumed& assumed) const {
    if (need.accelerator) {
      auto it = assumed.accelerators.find(node);
      return view_.accelerators(node) - (it == assumed.accelerators.end() ? 0 : it->second);
    }
    if (!need.allocatable) return kUnlimited;
    std::int64_t v = (*need.allocatable)[node - first_node_];
    if (need.used) v -= (*need.used)[node - first_node_];
    if (!assumed.resources.empty())
      if (auto it = assumed.resources.find(node); it != assumed.resources.end()) v -= it->second.value(need.name);
    return v;
  }

  // The capacity of `nodes` (one leaf) per need.
  void capacity(const std::vector<DomainId>& nodes, const std::vector<Need>& needs, const Assumed& assumed,
                std::vector<std::int64_t>& out) const {
    out.assign(needs.size(), 0);
    for (std::size_t i = 0; i < needs.size(); ++i)
      for (DomainId n : nodes) out[i] += free(n, needs[i], assumed);
  }

  // resources.CountInWithLimitingResource over aligned values.
  static std::pair<std::int64_t, std::size_t> fit(const std::vector<std::int64_t>& request,
                                                  const std::vector<std::int64_t>& capacity) {
    std::int64_t best = 0;
    std::size_t limiting = request.size();
    for (std::size_t i = 0; i < request.size(); ++i) {
      if (request[i] == 0) continue;
      std::int64_t count = std::clamp<std::int64_t>(capacity[i] / request[i], 0, std::numeric_limits<std::int32_t>::max());
      if (limiting == request.size() || count < best) {
        best = count;
        limiting = i;
      }
    }
    return {best, limiting};
  }

  struct Filter {
    std::vector<Toleration> tolerations;
    const KueuePodSet* pods = nullptr;  // selectors and affinity
  };

  // FindFeasibleNodes for one node: "" when feasible, else why not.
  enum class Exclusion { none, taint, selector, affinity };
  Exclusion check(DomainId node, const Filter& f, std::string& taint, std::int64_t& score) const {
    score = 0;
    for (const Taint& tn : t_.node_resources(node).taints) {
      if (tn.effect != "NoSchedule" && tn.effect != "NoExecute") continue;
      if (!tolerates(f.tolerations, tn)) {
        taint = tn.str();
        return Exclusion::taint;
      }
    }
    const KueuePodSet& p = *f.pods;
    if (p.node_selector.empty() && p.required_affinity.empty() &&
        (!gates_.respect_affinity_preferred || p.preferred_affinity.empty()))
      return Exclusion::none;
    Labels labels = node_labels(t_, node);
    for (const auto& [k, v] : p.node_selector) {
      auto it = std::lower_bound(labels.begin(), labels.end(), k,
                                 [](const auto& kv, const std::string& key) { return kv.first < key; });
      if (it == labels.end() || it->first != k || it->second != v) return Exclusion::selector;
    }
    if (!p.required_affinity.empty() &&
        std::none_of(p.required_affinity.begin(), p.required_affinity.end(),
                     [&](const NodeSelectorTerm& term) { return term_matches(term, labels, t_.domain_name(node)); }))
      return Exclusion::affinity;
    if (gates_.respect_affinity_preferred)
      for (const PreferredTerm& pt : p.preferred_affinity)
        if (term_matches(pt.term, labels, t_.domain_name(node))) score += pt.weight;
    return Exclusion::none;
  }

  // A resource's allocatable per node (0 where a node lacks it), built once.
  const std::vector<std::int64_t>& column(const std::string& name) {
    auto it = allocatable_.find(name);
    if (it != allocatable_.end()) return it->second;
    auto [first, last] = t_.domains_at(t_.host_level());
    std::vector<std::int64_t> c(last - first, 0);
    for (DomainId n = first; n < last; ++n) c[n - first] = t_.node_resources(n).allocatable.value(name);
    return allocatable_.emplace(name, std::move(c)).first->second;
  }

  const Topology& t_;
  const CapacityView& view_;
  const NodeUsage* usage_;
  const kueue::Gates& gates_;
  bool known_;
  DomainId first_node_;
  std::map<std::string, std::vector<std::int64_t>, std::less<>>& allocatable_;
};

}  // namespace

void KueuePolicy::nodes_changed(const std::vector<DomainId>& nodes) const {
  touched_.insert(touched_.end(), nodes.begin(), nodes.end());
}

PodPlacement KueuePolicy::place_pods(const CapacityView& view, const PlaceRequest& request) const {
  const Topology& t = view.topology();
  PodPlacement out;
  KueueWorkload synthesized;
  const KueueWorkload* w = request.job ? request.job->kueue.get() : nullptr;
  if (!w) {
    synthesized = workload_for(t, request, view.whole_nodes());
    w = &synthesized;
  }
  for (const KueuePodSet& p : w->pod_sets) out.pod_sets.push_back(p.name);
  if (w->pod_sets.empty()) {
    out.reason = "the workload has no pods";
    return out;
  }
  if (!gates_.multi_layer)
    for (const KueuePodSet& p : w->pod_sets)
      if (p.topology.slices.size() > 1) {
        out.reason = "the TASMultiLayerTopology feature gate must be enabled to use "
                     "kueue.x-k8s.io/podset-slice-required-topology-constraints";
        return out;
      }
  Flavor& fl = flavor(t, w->flavor);
  const kueue::Tree& tree = fl.tree;
  const bool known = t.has_node_resources();
  const bool any_accelerators = std::any_of(w->pod_sets.begin(), w->pod_sets.end(), [](const KueuePodSet& p) {
    return std::any_of(std::begin(kGpuResources), std::end(kGpuResources),
                       [&](std::string_view g) { return p.requests.value(g) > 0; });
  });
  auto requests_of = [&](const KueuePodSet& p) { return effective_requests(p.requests, known, any_accelerators); };
  if (allocatable_topology_ != &t) {
    allocatable_.clear();
    allocatable_topology_ = &t;
  }
  Placer placer(t, view, request.usage, gates_, allocatable_);

  // PodSet groups in order: a named group once, at its first PodSet.
  std::vector<std::vector<std::uint32_t>> groups;
  std::map<std::string, std::size_t> by_name;
  for (std::uint32_t i = 0; i < w->pod_sets.size(); ++i) {
    const KueuePodSet& p = w->pod_sets[i];
    if (p.group) {
      auto [it, fresh] = by_name.try_emplace(*p.group, groups.size());
      if (fresh) groups.emplace_back();
      groups[it->second].push_back(i);
    } else {
      groups.push_back({i});
    }
  }

  Assumed assumed;
  std::vector<std::uint32_t> accelerators;
  // Accelerators taken within this placement (a set: a per-accelerator array
  // cleared for every job was a tenth of planning on 131,040 GPUs).
  std::unordered_set<std::uint32_t> taken;
  for (const std::vector<std::uint32_t>& group : groups) {
    // findLeaderAndWorkers
    std::uint32_t workers = group[0];
    std::optional<std::uint32_t> leader;
    if (group.size() > 1) {
      leader = group[1];
      if (w->pod_sets[*leader].count > w->pod_sets[workers].count) std::swap(*leader, workers);
    }
    const KueuePodSet& wp = w->pod_sets[workers];
    const ResourceList worker_requests = requests_of(wp);
    const ResourceList leader_requests = leader ? requests_of(w->pod_sets[*leader]) : ResourceList();
    const std::vector<Need> needs = placer.needs({&worker_requests, &leader_requests});
    const std::vector<std::int64_t> worker_values = Placer::aligned(needs, worker_requests);
    const std::vector<std::int64_t> leader_values = Placer::aligned(needs, leader_requests);

    Placer::Filter filter;
    filter.pods = &wp;
    filter.tolerations = wp.tolerations;
    filter.tolerations.insert(filter.tolerations.end(), w->flavor.tolerations.begin(), w->flavor.tolerations.end());

    // Leaves to nodes, and each pod's accelerators; the leader first.
    auto bind_pods = [&](const std::vector<kueue::LeafPods>& leaves, std::uint32_t pod_set) -> bool {
      const KueuePodSet& p = w->pod_sets[pod_set];
      const ResourceList per_pod = requests_of(p);
      ResourceList usage = p.requests;  // what the node records, `pods` aside
      for (std::string_view g : kGpuResources) usage.erase(g);
      const std::int64_t per_pod_accelerators = accelerators_of(per_pod);
      for (const kueue::LeafPods& lp : leaves) {
        std::int64_t left = lp.pods;
        const std::vector<DomainId>& nodes = fl.leaf_nodes[lp.leaf];
        for (DomainId n : nodes) {
          if (left == 0) break;
          std::int64_t here = left;
          if (nodes.size() > 1) {
            const std::vector<Need> node_needs = placer.needs({&per_pod});
            std::vector<std::int64_t> node_cap;
            placer.capacity({n}, node_needs, assumed, node_cap);
            here = std::min(left, Placer::fit(Placer::aligned(node_needs, per_pod), node_cap).first);
          }
          if (here <= 0) continue;
          out.pods.push_back({n, pod_set, static_cast<std::uint32_t>(here), usage});
          assumed.resources[n].add(usage, here);
          assumed.resources[n].set("pods", assumed.resources[n].value("pods") + here);
          std::int64_t want = here * per_pod_accelerators;
          assumed.accelerators[n] += want;
          const Domain& node = t.domain(n);
          for (std::uint32_t acc = node.accel_begin; acc < node.accel_end && want > 0; ++acc)
            if (view.usable(acc) && !taken.contains(acc)) {
              taken.insert(acc);
              accelerators.push_back(acc);
              --want;
            }
          left -= here;
        }
        if (left > 0) {
          const kueue::Tree::Domain& d = tree.domain(tree.leaf_domain(lp.leaf));
          out.reason = fmt::format("Kueue assigns {} pods of '{}' to {} '{}', but its nodes hold only {} of them one "
                                   "by one (kube-scheduler would leave the rest pending)",
                                   lp.pods, p.name, tree.level_keys()[d.level], d.id, lp.pods - left);
          return false;
        }
      }
      return true;
    };
    kueue::Request kr;
    kr.topology = wp.topology;
    kr.count = static_cast<std::int32_t>(wp.count);
    kr.leader = leader.has_value();

    // Only accelerators count, one node a leaf, nothing to filter: the
    // shape's counts, brought up to date.
    const std::int64_t per_pod_accelerators = accelerators_of(worker_requests);
    if (!known && fl.single_node_leaves && groups.size() == 1 && !leader && wp.topology.slices.empty() &&
        wp.node_selector.empty() && wp.required_affinity.empty() &&
        (wp.preferred_affinity.empty() || !gates_.respect_affinity_preferred) && per_pod_accelerators > 0) {
      Flavor::Shape& shape = fl.shapes[per_pod_accelerators];
      if (shape.free.empty()) {
        shape.free.assign(tree.leaf_count(), -1);
        shape.pods.assign(tree.domain_count(), 0);
        shape.empty_leaves = static_cast<int>(tree.leaf_count());
        shape.index.emplace(tree);
      }
      auto sync = [&](std::uint32_t leaf) {
        const std::int64_t now = view.accelerators(fl.leaf_nodes[leaf].front());
        std::int64_t& seen = shape.free[leaf];
        if (now == seen) return;
        const std::int64_t before = seen < 0 ? 0 : seen / per_pod_accelerators;
        const std::int64_t after = now / per_pod_accelerators;
        seen = now;
        if (before == after) return;
        shape.empty_leaves += (after == 0) - (before == 0);
        for (std::uint32_t d = tree.leaf_domain(leaf); d != 0xffffffffu; d = tree.parent(d)) {
          shape.pods[d] += after - before;
          shape.index->set(d, shape.pods[d]);
        }
      };
      // Free accelerators change where this policy placed pods (the planner
      // may take them back), so with the same occupancy and no filter only
      // those nodes are looked at again; anything else is a new pass. The
      // counts of a narrowed view are its own, so the next call starts anew.
      if (view.narrowed() || shape.occupancy != &view.occupancy()) {
        for (std::uint32_t leaf = 0; leaf < tree.leaf_count(); ++leaf) sync(leaf);
        shape.occupancy = view.narrowed() ? nullptr : &view.occupancy();
      } else {
        const DomainId first_node = t.domains_at(t.host_level()).first;
        for (std::size_t i = shape.seen; i < touched_.size(); ++i)
          if (std::uint32_t leaf = fl.leaf_of_node[touched_[i] - first_node]; leaf != kNone) sync(leaf);
      }
      shape.seen = touched_.size();
      kueue::Exclusions ex;
      ex.total = static_cast<int>(tree.leaf_count());
      if (shape.empty_leaves > 0) ex.resources["nvidia.com/gpu"] = shape.empty_leaves;
      kueue::Assignment a =
          kueue::assign_counts(tree, fl.workspace, shape.pods, &*shape.index, kr, gates_, ex, w->flavor.topology);
      if (!a.ok) {
        out.reason = a.reason;
        return out;
      }
      if (!bind_pods(a.workers, workers)) {
        out.pods.clear();
        out.accelerators.clear();
        return out;
      }
      continue;
    }

    // Phase 1 inputs: what fits on each leaf.
    std::vector<kueue::LeafFit> fits(tree.leaf_count());
    std::vector<std::int64_t> cap;
    kueue::Exclusions ex;
    ex.total = static_cast<int>(tree.leaf_count());
    const bool filters = tree.hostname_leaves();
    for (std::uint32_t leaf = 0; leaf < tree.leaf_count(); ++leaf) {
      const std::vector<DomainId>& nodes = fl.leaf_nodes[leaf];
      kueue::LeafFit& f = fits[leaf];
      if (filters) {
        std::string taint;
        std::int64_t score = 0;
        switch (placer.check(nodes.front(), filter, taint, score)) {
          case Placer::Exclusion::taint: ++ex.taints[taint]; continue;
          case Placer::Exclusion::selector: ++ex.node_selector; continue;
          case Placer::Exclusion::affinity: ++ex.affinity; continue;
          case Placer::Exclusion::none: break;
        }
        f.affinity = score;
      }
      f.feasible = true;
      placer.capacity(nodes, needs, assumed, cap);
      auto [pods, limiting] = Placer::fit(worker_values, cap);
      f.pods = static_cast<std::int32_t>(pods);
      if (f.pods == 0 && limiting < needs.size()) ++ex.resources[needs[limiting].name];
      f.pods_with_leader = f.pods;
      if (leader && Placer::fit(leader_values, cap).first > 0) {
        f.leader = true;
        for (std::size_t i = 0; i < cap.size(); ++i) cap[i] -= leader_values[i];
        f.pods_with_leader = static_cast<std::int32_t>(Placer::fit(worker_values, cap).first);
      }
    }

    kueue::Assignment a = kueue::assign(tree, fl.workspace, fits, kr, gates_, ex, w->flavor.topology);
    if (!a.ok) {
      out.pods.clear();
      out.accelerators.clear();
      out.reason = a.reason;
      return out;
    }

    if ((leader && !bind_pods(a.leader, *leader)) || !bind_pods(a.workers, workers)) {
      out.pods.clear();
      out.accelerators.clear();
      return out;
    }
  }
  out.accelerators = std::move(accelerators);
  if (out.pods.empty()) out.reason = "Kueue assigned no pods";
  for (const PodPlacement::Pods& p : out.pods) touched_.push_back(p.node);
  return out;
}

std::vector<std::uint32_t> KueuePolicy::place(const CapacityView& view, const PlaceRequest& request) const {
  if (request.units == 0) return {};
  PlaceRequest r = request;
  r.job = nullptr;  // the accelerator request alone
  return place_pods(view, r).accelerators;
}

kueue::Gates parse_kueue_policy(std::string_view name) {
  kueue::Gates g;
  if (name == "kueue") return g;
  std::string_view rest = name.substr(name.find(':') + 1);
  auto fail = [&](std::string_view item) {
    throw InputError({"--policy", 0, 0},
                     fmt::format("'{}' in policy '{}' is not a Kueue variant; use kueue:balanced, kueue:best-fit, "
                                 "kueue:affinity or kueue:GATE=true|false with GATE one of TASProfileMixed, "
                                 "TASBalancedPlacement, TASRespectNodeAffinityPreferred, TASMultiLayerTopology",
                                 item, name));
  };
  if (rest.empty()) fail(rest);
  while (!rest.empty()) {
    std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (item == "balanced") {
      g.balanced_placement = true;
    } else if (item == "best-fit") {
      g.profile_mixed = false;
    } else if (item == "affinity") {
      g.respect_affinity_preferred = true;
    } else {
      std::size_t eq = item.find('=');
      if (eq == std::string_view::npos) fail(item);
      std::string_view gate = item.substr(0, eq);
      std::string_view value = item.substr(eq + 1);
      if (value != "true" && value != "false") fail(item);
      bool on = value == "true";
      if (gate == "TASProfileMixed") g.profile_mixed = on;
      else if (gate == "TASBalancedPlacement") g.balanced_placement = on;
      else if (gate == "TASRespectNodeAffinityPreferred") g.respect_affinity_preferred = on;
      else if (gate == "TASMultiLayerTopology") g.multi_layer = on;
      else fail(item);
    }
  }
  return g;
}

}  // namespace topoplan
