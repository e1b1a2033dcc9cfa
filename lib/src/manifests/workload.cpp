#include "workload.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "topoplan/support/ascii.hpp"

namespace topoplan {

namespace {

constexpr std::uint64_t kMaxAccelerators = 100'000'000;

// Kueue names a pod set after its role, lowercased (NewPodSetReference in
// apis/kueue/v1beta2/workload_types.go @ff69552e): MPIJob's Launcher is
// "launcher".
std::string kueue_pod_set_name(std::string_view name) { return ascii_lower(name); }

bool kubeflow_kind(std::string_view what) {
  return what == "PyTorchJob" || what == "MPIJob" || what == "TFJob" || what == "JAXJob" || what == "XGBoostJob" ||
         what == "PaddleJob";
}

// Kueue lists a Kubeflow job's pod sets in a fixed role order, which is the
// order it assigns them in (OrderedReplicaTypes of each job controller under
// pkg/controller/jobs/kubeflow and mpijob @ff69552e): launcher, chief,
// master, ps, worker, evaluator... Roles it does not know come last.
int replica_type_rank(std::string_view lowercase_role) {
  static constexpr std::string_view kOrder[] = {"launcher", "chief", "master", "ps", "worker", "evaluator"};
  for (std::size_t i = 0; i < std::size(kOrder); ++i)
    if (kOrder[i] == lowercase_role) return static_cast<int>(i);
  return static_cast<int>(std::size(kOrder));
}

struct Builder {
  const WorkloadSpec& w;
  const LevelMap& levels;
  ManifestJobs& out;

  std::string prefix() const { return fmt::format("{} '{}'", w.what, w.name); }
  void warn(const SourceLocation& where, const std::string& message) {
    out.warnings.push_back({where, fmt::format("{}: {}", prefix(), message)});
  }
  void reject(const SourceLocation& where, const std::string& message) {
    out.rejections.push_back({where, fmt::format("{}: {}", prefix(), message)});
  }
  std::string level(LevelIndex l) const { return levels.level_name(l); }
};

// The flavor's key for a label as written: without a Kueue Topology among the
// inputs, the flavor's levels are the topology's, and a label that names one
// of them (by the label rules) is that level's key; with one, Kueue matches
// labels as written.
std::string flavor_key(const std::string& label, const KueueFlavor& flavor, bool implied_flavor, const LevelMap& levels) {
  if (!implied_flavor) return label;
  auto level = levels.level_of_label(label);
  if (!level) return label;
  for (const KueueLevel& l : flavor.levels)
    if (l.level == level) return l.key;
  return label;
}

// Kueue's checks of a PodSet's levels against its flavor's Topology
// (findTopologyAssignment, buildSliceSizeAtLevel): "" when they pass.
std::string kueue_level_problem(const kueue::TopologyRequest& r, const KueueFlavor& flavor) {
  auto index = [&](const std::string& key) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < flavor.levels.size(); ++i)
      if (flavor.levels[i].key == key) return i;
    return std::nullopt;
  };
  const std::optional<std::string>& main = r.required ? r.required : r.preferred;
  std::optional<std::size_t> main_index = main ? index(*main) : std::optional<std::size_t>(0);
  if (main && !main_index) return fmt::format("no requested topology level: {}", *main);
  if (r.slices.empty()) return "";
  auto slice = index(r.slices.front().topology);
  if (!slice) return fmt::format("no requested topology level for slices: {}", r.slices.front().topology);
  if (main && *main_index > *slice)
    return fmt::format("podset slice topology {} is above the podset topology {}", r.slices.front().topology, *main);
  std::size_t previous = *slice;
  for (std::size_t i = 1; i < r.slices.size(); ++i) {
    auto inner = index(r.slices[i].topology);
    if (!inner) return fmt::format("no requested topology level for additional slice layer: {}", r.slices[i].topology);
    if (*inner <= previous)
      return fmt::format("additional slice layer topology {} must be at a lower level than {}", r.slices[i].topology,
                         flavor.levels[previous].key);
    previous = *inner;
  }
  return "";
}

// Both must hold for the same pods: the finer level implies the coarser.
std::optional<LevelRequest> finer(const std::optional<LevelRequest>& a, const std::optional<LevelRequest>& b) {
  if (!a) return b;
  if (!b) return a;
  return a->level >= b->level ? a : b;
}

}  // namespace

std::optional<Job> to_job(const WorkloadSpec& w, const LevelMap& levels, ManifestJobs& out) {
  Builder b{w, levels, out};
  if (!w.rejections.empty()) {
    out.rejections.insert(out.rejections.end(), w.rejections.begin(), w.rejections.end());
    return std::nullopt;
  }
  const Topology& t = levels.topology();
  const std::uint32_t node_size = typical_node_accelerators(t);
  const std::uint32_t largest = largest_node_accelerators(t);

  // Pods without accelerators (an MPI launcher, a CPU-only leader) take none
  // when others do; when no pod asks for any, each pod stands for one
  // accelerator so that the shape of the request is kept.
  std::vector<PodSet> sets;
  for (const PodSet& s : w.pod_sets)
    if (s.accelerators > 0 && s.pods > 0) sets.push_back(s);
  bool counted_pods = false;
  if (sets.empty()) {
    for (const PodSet& s : w.pod_sets)
      if (s.pods > 0) sets.push_back(s);
    if (sets.empty()) {
      b.warn(w.where, "runs no pods; nothing to place");
      return std::nullopt;
    }
    if (!w.whole_nodes) {
      std::uint64_t pods = 0;
      for (PodSet& s : sets) {
        s.accelerators = 1;
        pods += s.pods;
      }
      counted_pods = true;
      b.warn(w.where, fmt::format("no pod asks for nvidia.com/gpu or amd.com/gpu; each of its {} pod{} counts as one "
                                  "accelerator",
                                  pods, pods == 1 ? "" : "s"));
    }
  }
  for (const PodSet& s : sets)
    if (!counted_pods && s.accelerators > largest) {
      b.reject(s.where, fmt::format("{} {} accelerators per {}, but the largest node of topology '{}' has {}; it can "
                                    "never be scheduled",
                                    w.count_pods ? fmt::format("the pods of '{}' ask for", s.name)
                                                 : std::string("it asks for"),
                                    s.accelerators, w.count_pods ? "pod" : "node", t.name(), largest));
      return std::nullopt;
    }

  // One accelerator count per pod for the whole group keeps every pod in one
  // node (as the tensor-parallel granule); mixed sizes lose that.
  std::uint32_t per_pod = sets.front().accelerators;
  for (const PodSet& s : sets)
    if (s.accelerators != per_pod) per_pod = 0;
  std::uint64_t pods = 0;
  std::uint64_t accelerators = 0;
  for (const PodSet& s : sets) {
    pods += s.pods;
    accelerators += s.pods * s.accelerators;
  }
  // A pod with all of a node's GPUs takes it whole, where nodes are alike; on
  // nodes of several sizes (an 8-GPU node among 1-GPU nodes) it is a pod.
  std::uint32_t smallest = largest;
  {
    auto [first, last] = t.domains_at(t.host_level());
    for (DomainId n = first; n < last; ++n)
      if (std::uint32_t a = t.domain(n).accelerator_count(); a > 0) smallest = std::min(smallest, a);
  }
  bool whole = w.whole_nodes || (!counted_pods && per_pod > 0 && per_pod == node_size && smallest == largest);

  // Topology: what every pod set asks for holds for the group only when they
  // all ask; one pod set's request is then only preferred.
  std::optional<LevelRequest> required;
  std::optional<LevelRequest> preferred = w.preferred;
  bool all_required = true;
  for (const PodSet& s : sets) {
    if (!s.required) {
      all_required = false;
      continue;
    }
    if (!required || s.required->level < required->level) required = s.required;
  }
  if (required && !all_required) {
    b.warn(required->where, fmt::format("topoplan places the pod sets of a workload together; only some of them "
                                        "require one {}, so it is only preferred",
                                        b.level(required->level)));
    preferred = finer(preferred, required);
    required.reset();
  }
  for (const PodSet& s : sets) preferred = finer(preferred, s.preferred);
  required = finer(required, w.required);

  Job job;
  job.name = w.name;
  job.kind = w.kind;
  job.where = w.where;
  job.queue = w.queue;
  job.priority_class = w.priority_class;
  job.priority = w.priority;
  job.accelerator_model = w.model;
  job.perf_class = w.perf_class;
  job.perf_class_where = w.perf_class_where;
  std::uint64_t replicas = w.groups;
  std::uint64_t pods_per_replica = pods;
  std::uint64_t per_replica = accelerators;

  // Slices (Kueue podset-slice-*, Volcano partitions, KAI segments, Slurm
  // --segment) become replicas, each required in one domain of the slice
  // level; a coarser required level keeps them all in one domain of it.
  std::optional<LevelRequest> within;
  bool slices_planned = false;
  const PodSet* sliced = nullptr;
  for (const PodSet& s : sets)
    if (s.slice) sliced = &s;
  if (sliced && (sets.size() > 1 || w.groups > 1)) {
    b.warn(sliced->slice->where, fmt::format("{}: slices are planned only for a workload of one pod set; ignored",
                                             sliced->slice->source));
  } else if (sliced) {
    const PodSet& s = *sliced;
    if (s.slice_size == 0 || s.pods % s.slice_size != 0) {
      b.reject(s.slice->where, fmt::format("{}: slice size {} does not divide the {} pods of '{}'", s.slice->source,
                                           s.slice_size, s.pods, s.name));
      return std::nullopt;
    }
    if (required && s.slice->level < required->level) {
      b.reject(s.slice->where, fmt::format("{}: slices of one {} cannot sit inside one {} ({})", s.slice->source,
                                           b.level(s.slice->level), b.level(required->level), required->source));
      return std::nullopt;
    }
    if (required && required->level > 0 && required->level != s.slice->level) within = required;
    if (preferred)
      b.warn(preferred->where, fmt::format("{}: not honoured for sliced workloads; each slice is placed as tightly as "
                                           "it can be",
                                           preferred->source));
    replicas = s.pods / s.slice_size;
    pods_per_replica = s.slice_size;
    per_replica = s.slice_size * s.accelerators;
    required = s.slice;
    preferred.reset();
    slices_planned = true;
  }
  // One group per domain, shared with no other job (the planner adds the
  // required and spread levels this implies). Slices are not groups: a sliced
  // job's one group cannot be kept to itself that way.
  if (w.exclusive && slices_planned)
    b.warn(w.exclusive->where, fmt::format("{}: not honoured for a sliced workload (its slices are not groups)",
                                           w.exclusive->source));
  else if (w.exclusive)
    job.exclusive_level = b.level(w.exclusive->level);
  if (whole) per_replica = pods_per_replica * std::max(1u, node_size);
  if (replicas == 0 || replicas > 1'000'000 || per_replica == 0 || per_replica * replicas > kMaxAccelerators) {
    b.reject(w.where, fmt::format("{} accelerators in {} group{} are more than topoplan plans", per_replica * replicas,
                                  replicas, replicas == 1 ? "" : "s"));
    return std::nullopt;
  }
  job.replicas = static_cast<std::uint32_t>(replicas);
  if (whole) {
    // Whole nodes: a Kubernetes pod that takes all of a node's GPUs, or a
    // Slurm job that gets its nodes to itself. Counted in the topology's
    // typical node size, so the planner asks for that many nodes.
    job.exclusive = true;
    if (replicas == 1 && !sliced) {
      job.nodes = static_cast<std::uint32_t>(pods_per_replica);
    } else {
      job.per_replica = static_cast<std::uint32_t>(per_replica);
      job.parallelism.dp = job.per_replica;
    }
  } else {
    job.per_replica = static_cast<std::uint32_t>(per_replica);
    if (per_pod > 1 && node_size % per_pod == 0) {
      job.parallelism.tp = per_pod;
      job.parallelism.dp = job.per_replica / per_pod;
    } else {
      job.parallelism.dp = job.per_replica;
      if (per_pod > 1)
        b.warn(w.where, fmt::format("pods of {} accelerators do not divide nodes of {}; topoplan may split a pod "
                                    "across nodes",
                                    per_pod, node_size));
    }
  }
  if (required && required->level > 0) job.required = b.level(required->level);
  if (preferred && (!required || preferred->level > required->level)) job.preferred = b.level(preferred->level);
  if (within && job.replicas > 1) job.replicas_within = b.level(within->level);

  // The pods as Kueue sees them, for the kueue policy: every pod set, with
  // or without accelerators.
  if (std::any_of(w.pod_sets.begin(), w.pod_sets.end(), [](const PodSet& s) { return s.kubernetes; })) {
    auto kw = std::make_shared<KueueWorkload>();
    const bool implied_flavor = w.flavor == nullptr;
    if (w.flavor) {
      kw->flavor = *w.flavor;
    } else {
      kw->flavor.levels = default_kueue_levels(t);
    }
    kw->workloads = w.kueue_groups_are_workloads ? w.groups : 1;
    const std::uint64_t per_workload = w.kueue_groups_are_workloads ? 1 : w.groups;
    for (const PodSet& s : w.pod_sets) {
      if (s.pods == 0) continue;
      KueuePodSet p;
      p.name = kueue_pod_set_name(s.name);
      p.count = static_cast<std::uint32_t>(std::min<std::uint64_t>(s.pods * per_workload, 10'000'000));
      p.requests = s.requests;
      p.topology = s.kueue_request;
      kueue::TopologyRequest& r = p.topology;
      if (r.required) r.required = flavor_key(*r.required, kw->flavor, implied_flavor, levels);
      if (r.preferred) r.preferred = flavor_key(*r.preferred, kw->flavor, implied_flavor, levels);
      for (kueue::SliceLayer& l : r.slices) l.topology = flavor_key(l.topology, kw->flavor, implied_flavor, levels);
      r.implied = !r.required && !r.preferred && !r.unconstrained && r.slices.empty();
      if (std::string problem = kueue_level_problem(r, kw->flavor); !problem.empty()) {
        b.reject(s.where, fmt::format("Kueue would not admit it: {}", problem));
        return std::nullopt;
      }
      p.group = s.group;
      p.node_selector = s.node_selector;
      p.required_affinity = s.required_affinity;
      p.preferred_affinity = s.preferred_affinity;
      p.tolerations = s.tolerations;
      kw->pod_sets.push_back(std::move(p));
    }
    if (kubeflow_kind(w.what))
      std::stable_sort(kw->pod_sets.begin(), kw->pod_sets.end(), [](const KueuePodSet& x, const KueuePodSet& y) {
        return replica_type_rank(x.name) < replica_type_rank(y.name);
      });
    job.kueue = std::move(kw);
  }
  return job;
}

}  // namespace topoplan
