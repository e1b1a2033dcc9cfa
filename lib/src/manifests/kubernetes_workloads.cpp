// Kubernetes workloads as Kueue, Volcano and KAI see them: pods per template
// (Kueue's PodSets), their accelerators and the topology they ask for.
//
// Sources (read, not copied): Kueue site/content/en/docs/concepts/
// topology_aware_scheduling.md and apis/kueue/v1beta2/topology_types.go (TAS
// annotations, "must not contain more than one topology annotation", slice
// size validation); Kueue pkg/controller/jobs/* (one PodSet per JobSet
// replicatedJob, per Kubeflow replica type, per LWS leader/worker template;
// each LWS group is its own workload); JobSet docs "exclusive job to topology
// placement" (alpha.jobset.sigs.k8s.io/exclusive-topology); LWS
// leaderworkerset.sigs.k8s.io/exclusive-topology; Volcano docs/user-guide/
// how_to_use_network_topology_aware_scheduling.md and batch/v1alpha1/job.go
// (networkTopology, tiers from 1 above the nodes, partitionPolicy); KAI
// docs/topology/README.md and segments.md (kai.scheduler/topology-*-placement,
// kai.scheduler/segment-*); Kubeflow trainer v2 TrainJob (trainer.numNodes,
// resourcesPerNode). Summaries in the project's schedulers.md, sections 1, 3, 4.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "../io/yaml_support.hpp"
#include "manifest_readers.hpp"
#include "workload.hpp"

namespace topoplan {

namespace {

constexpr std::string_view kRequired = "kueue.x-k8s.io/podset-required-topology";
constexpr std::string_view kPreferred = "kueue.x-k8s.io/podset-preferred-topology";
constexpr std::string_view kUnconstrained = "kueue.x-k8s.io/podset-unconstrained-topology";
constexpr std::string_view kSliceRequired = "kueue.x-k8s.io/podset-slice-required-topology";
constexpr std::string_view kSliceSize = "kueue.x-k8s.io/podset-slice-size";
constexpr std::string_view kSliceConstraints = "kueue.x-k8s.io/podset-slice-required-topology-constraints";
constexpr std::string_view kQueueName = "kueue.x-k8s.io/queue-name";
constexpr std::string_view kKueuePriority = "kueue.x-k8s.io/priority-class";
constexpr std::string_view kKaiRequired = "kai.scheduler/topology-required-placement";
constexpr std::string_view kKaiPreferred = "kai.scheduler/topology-preferred-placement";
constexpr std::string_view kKaiSegmentSize = "kai.scheduler/segment-size";
constexpr std::string_view kKaiSegmentRequired = "kai.scheduler/segment-topology-required-placement";
constexpr std::string_view kKaiSegmentPreferred = "kai.scheduler/segment-topology-preferred-placement";
constexpr std::string_view kLwsExclusive = "leaderworkerset.sigs.k8s.io/exclusive-topology";
constexpr std::string_view kLwsSubgroupExclusive = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology";
constexpr std::string_view kJobSetExclusive = "alpha.jobset.sigs.k8s.io/exclusive-topology";

// Extended resources that are accelerators (device plugins' resource names).
constexpr std::string_view kAcceleratorResources[] = {"nvidia.com/gpu", "amd.com/gpu"};

constexpr long long kMaxPods = 10'000'000;

// Kinds that configure a cluster or a queue and carry no pods: skipped.
const std::set<std::string, std::less<>>& configuration_kinds() {
  static const std::set<std::string, std::less<>> kKinds = {
      "AdmissionCheck", "Cluster", "ClusterQueue", "ClusterRole", "ClusterRoleBinding", "ClusterTopology",
      "ClusterTrainingRuntime", "Cohort", "ComputeDomain", "ConfigMap", "CustomResourceDefinition", "DeviceClass",
      "HorizontalPodAutoscaler", "HyperNode", "Ingress", "LimitRange", "LocalQueue", "Namespace", "NetworkPolicy",
      "PersistentVolume", "PersistentVolumeClaim", "PodDisruptionBudget", "PodGroup", "PriorityClass",
      "ProvisioningRequestConfig", "Queue", "ResourceClaim", "ResourceClaimTemplate", "ResourceFlavor",
      "ResourceQuota", "Role", "RoleBinding", "Secret", "Service", "ServiceAccount", "Topology", "TrainingRuntime",
      "WorkloadPriorityClass"};
  return kKinds;
}

yaml::Node child(const yaml::Node& node, std::string_view key) {
  if (!node.IsDefined() || !node.IsMap()) return yaml::Node();
  yaml::Node value = node[std::string(key)];
  if (!value.IsDefined()) return yaml::Node();
  return value;
}

yaml::Node path(const yaml::Node& node, std::initializer_list<std::string_view> keys) {
  yaml::Node n = node;
  for (std::string_view k : keys) n.reset(child(n, k));
  return n;
}

// yaml-cpp's Node::operator= writes through to the node it refers to (it
// would rewrite the document); every rebinding here uses reset().

// One document of a workload: typed reads that report at the value's position.
class Reader {
 public:
  Reader(const std::string& file, DiagnosticSink& sink) : file_(file), sink_(sink) {}

  SourceLocation where(const yaml::Node& n) const { return yaml::where(file_, n); }
  const std::string& file() const { return file_; }
  DiagnosticSink& sink() { return sink_; }

  std::optional<std::string> string(const yaml::Node& n, std::string_view what) {
    if (!n.IsDefined() || n.IsNull()) return std::nullopt;
    if (!n.IsScalar()) {
      sink_.error(where(n), fmt::format("'{}' must be a single value", what));
      return std::nullopt;
    }
    return n.Scalar();
  }
  std::optional<long long> integer(const yaml::Node& n, std::string_view what, long long min, long long max) {
    auto text = string(n, what);
    if (!text) return std::nullopt;
    auto v = yaml::parse_integer(*text);
    if (!v) {
      sink_.error(where(n), fmt::format("'{}' must be a whole number, not '{}'", what, *text));
      return std::nullopt;
    }
    if (*v < min || *v > max) {
      sink_.error(where(n), fmt::format("'{}' is {}; it must be between {} and {}", what, *v, min, max));
      return std::nullopt;
    }
    return v;
  }
  /// A mapping or nothing; anything else is reported.
  bool map_or_absent(const yaml::Node& n, std::string_view what) {
    if (!n.IsDefined() || n.IsNull() || n.IsMap()) return true;
    sink_.error(where(n), fmt::format("'{}' must be a mapping", what));
    return false;
  }
  bool list_or_absent(const yaml::Node& n, std::string_view what) {
    if (!n.IsDefined() || n.IsNull() || n.IsSequence()) return true;
    sink_.error(where(n), fmt::format("'{}' must be a list", what));
    return false;
  }

 private:
  const std::string& file_;
  DiagnosticSink& sink_;
};

struct Kind {
  std::string_view group;  // apiVersion before the '/', "" for the core group
  std::string_view kind;
};

class WorkloadReader {
 public:
  WorkloadReader(Reader& r, const LevelMap& levels, const PriorityClasses& classes, ManifestJobs& out)
      : r_(r), levels_(levels), classes_(classes), out_(out) {}

  void read(const yaml::Node& doc, std::string_view group, std::string_view kind);

 private:
  void warn(const SourceLocation& where, const std::string& message) {
    out_.warnings.push_back({where, fmt::format("{} '{}': {}", w_.what, w_.name, message)});
  }
  void reject(const SourceLocation& where, const std::string& message) {
    w_.rejections.push_back({where, fmt::format("{} '{}': {}", w_.what, w_.name, message)});
  }
  std::optional<LevelRequest> label_level(const yaml::Node& value, std::string_view annotation) {
    auto label = r_.string(value, annotation);
    if (!label) return std::nullopt;
    auto level = levels_.resolve_label(*label, annotation, r_.where(value), r_.sink());
    if (!level) return std::nullopt;
    return LevelRequest{*level, r_.where(value), std::string(annotation)};
  }

  void read_metadata(const yaml::Node& doc);
  std::uint32_t accelerators(const yaml::Node& resources, std::string_view what);
  PodSet read_template(const yaml::Node& tmpl, std::string name, std::uint64_t pods);
  std::uint64_t job_pods(const yaml::Node& job_spec);
  void read_batch_job(const yaml::Node& doc);
  void read_jobset(const yaml::Node& doc);
  void read_lws(const yaml::Node& doc);
  void read_replica_specs(const yaml::Node& doc);
  void read_trainjob(const yaml::Node& doc);
  void read_volcano_job(const yaml::Node& doc);
  void read_replicated(const yaml::Node& doc);
  std::optional<LevelRequest> network_topology(const yaml::Node& nt, bool& hard);
  void finish();

  Reader& r_;
  const LevelMap& levels_;
  const PriorityClasses& classes_;
  ManifestJobs& out_;
  WorkloadSpec w_;
  yaml::Node priority_class_at_;
};

void WorkloadReader::read_metadata(const yaml::Node& doc) {
  yaml::Node meta = child(doc, "metadata");
  if (!r_.map_or_absent(meta, "metadata")) return;
  auto name = r_.string(child(meta, "name"), "metadata.name");
  if (!name) {
    // kubectl create completes generateName with a random suffix; the prefix
    // is the stable part.
    name = r_.string(child(meta, "generateName"), "metadata.generateName");
    if (name)
      while (!name->empty() && name->back() == '-') name->pop_back();
  }
  if (!name || name->empty()) {
    r_.sink().error(r_.where(doc), fmt::format("{} needs metadata.name or metadata.generateName", w_.what));
    w_.name = "?";
  } else {
    w_.name = *name;
  }
  yaml::Node labels = child(meta, "labels");
  yaml::Node annotations = child(meta, "annotations");
  if (!r_.map_or_absent(labels, "metadata.labels") || !r_.map_or_absent(annotations, "metadata.annotations")) return;
  // Kueue reads the queue from a label (an annotation in old releases).
  if (auto q = r_.string(child(labels, kQueueName), kQueueName)) w_.queue = *q;
  else if (auto qa = r_.string(child(annotations, kQueueName), kQueueName)) w_.queue = *qa;
  if (child(labels, kKueuePriority).IsDefined()) {
    priority_class_at_.reset(child(labels, kKueuePriority));
    if (auto p = r_.string(priority_class_at_, kKueuePriority)) w_.priority_class = *p;
  }
  if (child(annotations, kKaiRequired).IsDefined()) w_.required = label_level(child(annotations, kKaiRequired), kKaiRequired);
  if (child(annotations, kKaiPreferred).IsDefined())
    w_.preferred = label_level(child(annotations, kKaiPreferred), kKaiPreferred);
}

std::uint32_t WorkloadReader::accelerators(const yaml::Node& resources, std::string_view what) {
  if (!r_.map_or_absent(resources, what)) return 0;
  // Extended resources cannot be overcommitted: requests default to limits
  // and must equal them, so limits say it when both are given.
  yaml::Node limits = child(resources, "limits");
  yaml::Node requests = child(resources, "requests");
  if (!r_.map_or_absent(limits, "resources.limits") || !r_.map_or_absent(requests, "resources.requests")) return 0;
  long long total = 0;
  for (std::string_view name : kAcceleratorResources) {
    yaml::Node v = child(limits, name);
    if (!v.IsDefined()) v.reset(child(requests, name));
    if (auto n = r_.integer(v, name, 0, 1'000'000)) total += *n;
  }
  return static_cast<std::uint32_t>(std::min<long long>(total, 1'000'000));
}

PodSet WorkloadReader::read_template(const yaml::Node& tmpl, std::string name, std::uint64_t pods) {
  PodSet s;
  s.name = std::move(name);
  s.pods = pods;
  s.where = tmpl.IsDefined() ? r_.where(tmpl) : w_.where;
  if (!r_.map_or_absent(tmpl, "template")) return s;
  yaml::Node annotations = path(tmpl, {"metadata", "annotations"});
  yaml::Node spec = child(tmpl, "spec");
  if (!r_.map_or_absent(annotations, "metadata.annotations") || !r_.map_or_absent(spec, "spec")) return s;

  // Kueue TAS: one of required, preferred, unconstrained per PodSet.
  std::vector<std::string_view> given;
  for (std::string_view key : {kRequired, kPreferred, kUnconstrained})
    if (child(annotations, key).IsDefined()) given.push_back(key);
  if (given.size() > 1)
    reject(r_.where(child(annotations, given[1])),
           fmt::format("pod template '{}' must not contain more than one topology annotation ({})", s.name,
                       fmt::join(given, ", ")));
  if (child(annotations, kRequired).IsDefined()) s.required = label_level(child(annotations, kRequired), kRequired);
  if (child(annotations, kPreferred).IsDefined()) s.preferred = label_level(child(annotations, kPreferred), kPreferred);
  if (yaml::Node u = child(annotations, kUnconstrained); u.IsDefined()) {
    auto v = r_.string(u, kUnconstrained);
    if (v && *v != "true" && *v != "false")
      reject(r_.where(u), fmt::format("{} must be \"true\" or \"false\", not '{}'", kUnconstrained, *v));
  }
  yaml::Node slice_topology = child(annotations, kSliceRequired);
  yaml::Node slice_size = child(annotations, kSliceSize);
  std::string_view slice_source = kSliceRequired;
  if (!slice_topology.IsDefined() && !slice_size.IsDefined() && child(annotations, kKaiSegmentSize).IsDefined()) {
    slice_topology.reset(child(annotations, kKaiSegmentRequired));
    slice_size.reset(child(annotations, kKaiSegmentSize));
    slice_source = kKaiSegmentRequired;
    if (!slice_topology.IsDefined())
      warn(r_.where(slice_size), fmt::format("{} without {}: segments are not kept together", kKaiSegmentSize,
                                             kKaiSegmentRequired));
  } else if (slice_topology.IsDefined() != slice_size.IsDefined()) {
    yaml::Node given_one = slice_topology.IsDefined() ? slice_topology : slice_size;
    reject(r_.where(given_one), fmt::format("{} and {} go together", kSliceRequired, kSliceSize));
  }
  if (slice_topology.IsDefined() && slice_size.IsDefined()) {
    auto text = r_.string(slice_size, slice_source == kSliceRequired ? kSliceSize : kKaiSegmentSize);
    auto size = text ? yaml::parse_integer(*text) : std::nullopt;
    if (!size || *size < 1 || static_cast<std::uint64_t>(*size) > pods)
      reject(r_.where(slice_size), fmt::format("slice size '{}' must be a whole number from 1 to the {} pods of '{}'",
                                               text.value_or("?"), pods, s.name));
    else
      s.slice_size = static_cast<std::uint64_t>(*size);
    s.slice = label_level(slice_topology, slice_source);
    if (!s.slice_size) s.slice.reset();
  }
  if (child(annotations, kSliceConstraints).IsDefined())
    warn(r_.where(child(annotations, kSliceConstraints)),
         fmt::format("{} (multi-layer slices) is not honoured", kSliceConstraints));
  if (child(annotations, kKaiSegmentPreferred).IsDefined())
    warn(r_.where(child(annotations, kKaiSegmentPreferred)), fmt::format("{} is not honoured", kKaiSegmentPreferred));

  // Accelerators: the containers run together, init containers one at a time
  // before them (Kubernetes' effective request is the larger of the two).
  std::uint32_t running = 0;
  std::uint32_t init = 0;
  for (auto [key, sum] : {std::pair<std::string_view, bool>{"containers", true}, {"initContainers", false}}) {
    yaml::Node list = child(spec, key);
    if (!r_.list_or_absent(list, key) || !list.IsDefined() || list.IsNull()) continue;
    for (const yaml::Node& c : list) {
      std::uint32_t n = accelerators(child(c, "resources"), "resources");
      if (sum)
        running += n;
      else
        init = std::max(init, n);
    }
  }
  s.accelerators = std::max(running, init);

  if (auto pc = r_.string(child(spec, "priorityClassName"), "priorityClassName"); pc && w_.priority_class.empty()) {
    w_.priority_class = *pc;
    priority_class_at_.reset(child(spec, "priorityClassName"));
  }
  std::vector<std::string> ignored;
  yaml::Node affinity = child(spec, "affinity");
  for (std::string_view a : {"podAntiAffinity", "podAffinity", "nodeAffinity"})
    if (child(affinity, a).IsDefined()) ignored.push_back(fmt::format("affinity.{}", a));
  for (std::string_view key : {"nodeSelector", "topologySpreadConstraints", "nodeName"})
    if (child(spec, key).IsDefined()) ignored.emplace_back(key);
  if (!ignored.empty())
    warn(s.where, fmt::format("pod template '{}': {} {} not honoured", s.name, fmt::join(ignored, ", "),
                              ignored.size() == 1 ? "is" : "are"));
  return s;
}

std::uint64_t WorkloadReader::job_pods(const yaml::Node& job_spec) {
  // Pods that run at once: parallelism (default 1), never more than completions.
  if (!r_.map_or_absent(job_spec, "spec")) return 1;
  long long parallelism = r_.integer(child(job_spec, "parallelism"), "parallelism", 0, kMaxPods).value_or(1);
  if (auto completions = r_.integer(child(job_spec, "completions"), "completions", 0, kMaxPods))
    parallelism = std::min(parallelism, *completions);
  return static_cast<std::uint64_t>(parallelism);
}

void WorkloadReader::read_batch_job(const yaml::Node& doc) {
  yaml::Node spec = child(doc, "spec");
  w_.pod_sets.push_back(read_template(child(spec, "template"), "main", job_pods(spec)));
}

void WorkloadReader::read_jobset(const yaml::Node& doc) {
  yaml::Node jobs = path(doc, {"spec", "replicatedJobs"});
  if (!r_.list_or_absent(jobs, "spec.replicatedJobs")) return;
  if (!jobs.IsDefined() || jobs.IsNull() || jobs.size() == 0) {
    r_.sink().error(r_.where(doc), "a JobSet needs spec.replicatedJobs");
    return;
  }
  std::uint64_t child_jobs = 0;
  yaml::Node exclusive = path(doc, {"metadata", "annotations", kJobSetExclusive});
  for (const yaml::Node& rj : jobs) {
    std::string name = r_.string(child(rj, "name"), "name").value_or("?");
    auto replicas = static_cast<std::uint64_t>(r_.integer(child(rj, "replicas"), "replicas", 0, kMaxPods).value_or(1));
    yaml::Node job_template = child(rj, "template");
    if (yaml::Node e = path(job_template, {"metadata", "annotations", kJobSetExclusive}); e.IsDefined()) exclusive.reset(e);
    yaml::Node job_spec = child(job_template, "spec");
    std::uint64_t per_job = job_pods(job_spec);
    child_jobs += replicas;
    w_.pod_sets.push_back(read_template(child(job_spec, "template"), name, replicas * per_job));
  }
  if (exclusive.IsDefined()) {
    auto level = label_level(exclusive, kJobSetExclusive);
    if (level && w_.pod_sets.size() == 1 && child_jobs > 1) {
      // Each child Job gets its own domain: the replicas of a service.
      w_.groups = static_cast<std::uint32_t>(std::min<std::uint64_t>(child_jobs, 1'000'000));
      w_.pod_sets.front().pods /= child_jobs;
      w_.exclusive = level;
    } else if (level && w_.pod_sets.size() == 1) {
      w_.exclusive = level;
    } else if (level) {
      warn(level->where, fmt::format("{} is planned only for a JobSet with one replicated job; ignored",
                                     kJobSetExclusive));
    }
  }
}

void WorkloadReader::read_lws(const yaml::Node& doc) {
  yaml::Node spec = child(doc, "spec");
  w_.kind = JobKind::inference;
  w_.groups = static_cast<std::uint32_t>(r_.integer(child(spec, "replicas"), "replicas", 0, 1'000'000).value_or(1));
  yaml::Node lwt = child(spec, "leaderWorkerTemplate");
  if (!lwt.IsDefined()) {
    r_.sink().error(r_.where(doc), "a LeaderWorkerSet needs spec.leaderWorkerTemplate");
    return;
  }
  auto size = static_cast<std::uint64_t>(r_.integer(child(lwt, "size"), "size", 1, kMaxPods).value_or(1));
  yaml::Node worker = child(lwt, "workerTemplate");
  yaml::Node leader = child(lwt, "leaderTemplate");
  // Without a leader template the leader runs the worker template.
  w_.pod_sets.push_back(read_template(leader.IsDefined() ? leader : worker, "leader", 1));
  if (size > 1) w_.pod_sets.push_back(read_template(worker, "worker", size - 1));
  yaml::Node annotations = path(doc, {"metadata", "annotations"});
  if (child(annotations, kLwsExclusive).IsDefined()) w_.exclusive = label_level(child(annotations, kLwsExclusive), kLwsExclusive);
  if (child(annotations, kLwsSubgroupExclusive).IsDefined())
    warn(r_.where(child(annotations, kLwsSubgroupExclusive)), fmt::format("{} is not honoured", kLwsSubgroupExclusive));
}

void WorkloadReader::read_replica_specs(const yaml::Node& doc) {
  // PyTorchJob, TFJob, JAXJob, XGBoostJob, PaddleJob (kubeflow.org/v1) and
  // MPIJob (v2beta1) share one shape: spec.<framework>ReplicaSpecs, a map from
  // role (Master, Worker, Launcher, PS...) to {replicas, template}.
  yaml::Node spec = child(doc, "spec");
  if (!r_.map_or_absent(spec, "spec")) return;
  bool found = false;
  if (spec.IsDefined() && spec.IsMap())
    for (const auto& entry : spec) {
      std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
      if (key.size() < 12 || key.substr(key.size() - 12) != "ReplicaSpecs") continue;
      found = true;
      if (!r_.map_or_absent(entry.second, key)) continue;
      for (const auto& role : entry.second) {
        std::string name = role.first.IsScalar() ? role.first.Scalar() : "?";
        auto replicas = r_.integer(child(role.second, "replicas"), "replicas", 0, kMaxPods).value_or(1);
        w_.pod_sets.push_back(read_template(child(role.second, "template"), name, static_cast<std::uint64_t>(replicas)));
      }
    }
  if (!found) r_.sink().error(r_.where(doc), fmt::format("a {} needs spec.*ReplicaSpecs", w_.what));
  yaml::Node policy = path(spec, {"runPolicy", "schedulingPolicy"});
  if (auto q = r_.string(child(policy, "queue"), "schedulingPolicy.queue"); q && w_.queue.empty()) w_.queue = *q;
  if (auto p = r_.string(child(policy, "priorityClass"), "schedulingPolicy.priorityClass");
      p && w_.priority_class.empty()) {
    w_.priority_class = *p;
    priority_class_at_.reset(child(policy, "priorityClass"));
  }
}

void WorkloadReader::read_trainjob(const yaml::Node& doc) {
  yaml::Node trainer = path(doc, {"spec", "trainer"});
  yaml::Node nodes = child(trainer, "numNodes");
  if (!nodes.IsDefined())
    warn(w_.where, "spec.trainer.numNodes is not given (its runtime decides); topoplan plans one node");
  auto n = static_cast<std::uint64_t>(r_.integer(nodes, "numNodes", 1, kMaxPods).value_or(1));
  PodSet s;
  s.name = "node";
  s.pods = n;
  s.where = trainer.IsDefined() ? r_.where(trainer) : w_.where;
  s.accelerators = accelerators(child(trainer, "resourcesPerNode"), "resourcesPerNode");
  w_.pod_sets.push_back(s);
  warn(w_.where, "pod templates and their topology annotations come from the training runtime, which topoplan does "
                 "not read");
}

std::optional<LevelRequest> WorkloadReader::network_topology(const yaml::Node& nt, bool& hard) {
  hard = true;
  if (!nt.IsDefined() || nt.IsNull() || !r_.map_or_absent(nt, "networkTopology")) return std::nullopt;
  if (auto mode = r_.string(child(nt, "mode"), "mode")) {
    if (*mode == "soft")
      hard = false;
    else if (*mode != "hard")
      r_.sink().error(r_.where(child(nt, "mode")), fmt::format("networkTopology mode is hard or soft, not '{}'", *mode));
  }
  if (yaml::Node tier = child(nt, "highestTierAllowed"); tier.IsDefined()) {
    auto t = r_.integer(tier, "highestTierAllowed", 1, 1000);
    if (!t) return std::nullopt;
    return LevelRequest{levels_.tier(*t), r_.where(tier), "networkTopology.highestTierAllowed"};
  }
  if (yaml::Node name = child(nt, "highestTierName"); name.IsDefined()) {
    auto n = r_.string(name, "highestTierName");
    if (!n) return std::nullopt;
    // A HyperNode tierName names a level of the cluster, like a topology level.
    if (auto level = levels_.topology().find_level(*n))
      return LevelRequest{*level, r_.where(name), "networkTopology.highestTierName"};
    r_.sink().error(r_.where(name), fmt::format("highestTierName '{}' is not a level of topology '{}' ({})", *n,
                                                levels_.topology().name(), levels_.level_list()));
    return std::nullopt;
  }
  if (hard) warn(r_.where(nt), "networkTopology without highestTierAllowed or highestTierName bounds nothing");
  return std::nullopt;
}

void WorkloadReader::read_volcano_job(const yaml::Node& doc) {
  yaml::Node spec = child(doc, "spec");
  if (auto q = r_.string(child(spec, "queue"), "queue")) w_.queue = *q;
  if (auto p = r_.string(child(spec, "priorityClassName"), "priorityClassName")) {
    w_.priority_class = *p;
    priority_class_at_.reset(child(spec, "priorityClassName"));
  }
  if (yaml::Node nt = child(spec, "networkTopology"); nt.IsDefined()) {
    bool hard = true;
    auto level = network_topology(nt, hard);
    if (level && hard && (!w_.required || level->level > w_.required->level)) w_.required = level;
    if (level && !hard) w_.preferred = level;
    if (!level && !hard)
      w_.preferred = LevelRequest{levels_.leaf_level(), r_.where(nt), "networkTopology (soft)"};
  }
  yaml::Node tasks = child(spec, "tasks");
  if (!r_.list_or_absent(tasks, "tasks")) return;
  if (!tasks.IsDefined() || tasks.IsNull() || tasks.size() == 0) {
    r_.sink().error(r_.where(doc), "a Volcano Job needs spec.tasks");
    return;
  }
  for (const yaml::Node& task : tasks) {
    std::string name = r_.string(child(task, "name"), "name").value_or("?");
    auto replicas = static_cast<std::uint64_t>(r_.integer(child(task, "replicas"), "replicas", 0, kMaxPods).value_or(0));
    PodSet s = read_template(child(task, "template"), name, replicas);
    if (yaml::Node pp = child(task, "partitionPolicy"); pp.IsDefined()) {
      auto total = r_.integer(child(pp, "totalPartitions"), "totalPartitions", 1, kMaxPods);
      auto size = r_.integer(child(pp, "partitionSize"), "partitionSize", 1, kMaxPods);
      if (total && size && static_cast<std::uint64_t>(*total * *size) != replicas)
        reject(r_.where(pp), fmt::format("task '{}': totalPartitions {} x partitionSize {} is not its {} replicas", name,
                                         *total, *size, replicas));
      bool hard = true;
      auto level = network_topology(child(pp, "networkTopology"), hard);
      if (level && hard && size) {
        s.slice = level;
        s.slice->source = "partitionPolicy.networkTopology";
        s.slice_size = static_cast<std::uint64_t>(*size);
      } else if (level) {
        warn(level->where, "a soft partition topology is not honoured");
      }
    }
    w_.pod_sets.push_back(s);
  }
}

void WorkloadReader::read_replicated(const yaml::Node& doc) {
  // Deployments and StatefulSets: replicas of one pod, each its own Kueue
  // workload (pod integration), so each a replica of a service.
  yaml::Node spec = child(doc, "spec");
  w_.kind = JobKind::inference;
  w_.groups = static_cast<std::uint32_t>(r_.integer(child(spec, "replicas"), "replicas", 0, 1'000'000).value_or(1));
  w_.pod_sets.push_back(read_template(child(spec, "template"), "pod", 1));
}

void WorkloadReader::finish() {
  // Priority: Kueue's WorkloadPriorityClass (label) before the pods'
  // PriorityClass; a class defined nowhere in the inputs has no value.
  if (w_.priority_class.empty() && classes_.global_default) w_.priority_class = *classes_.global_default;
  if (!w_.priority_class.empty()) {
    auto wpc = classes_.workload.find(w_.priority_class);
    auto pc = classes_.pod.find(w_.priority_class);
    if (wpc != classes_.workload.end())
      w_.priority = wpc->second;
    else if (pc != classes_.pod.end())
      w_.priority = pc->second;
    else
      warn(priority_class_at_.IsDefined() ? r_.where(priority_class_at_) : w_.where,
           fmt::format("priority class '{}' is not defined in the inputs (PriorityClass or WorkloadPriorityClass); "
                       "priority 0",
                       w_.priority_class));
  }
  if (auto job = to_job(w_, levels_, out_)) out_.jobs.push_back(std::move(*job));
}

void WorkloadReader::read(const yaml::Node& doc, std::string_view group, std::string_view kind) {
  w_ = WorkloadSpec();
  priority_class_at_.reset(yaml::Node());
  w_.where = r_.where(doc);
  w_.what = group == "batch.volcano.sh" ? "Volcano Job" : std::string(kind);
  std::size_t errors = r_.sink().size();
  read_metadata(doc);
  if (kind == "Job" && group == "batch")
    read_batch_job(doc);
  else if (kind == "Job")
    read_volcano_job(doc);
  else if (kind == "JobSet")
    read_jobset(doc);
  else if (kind == "LeaderWorkerSet")
    read_lws(doc);
  else if (kind == "TrainJob")
    read_trainjob(doc);
  else if (kind == "Deployment" || kind == "StatefulSet")
    read_replicated(doc);
  else if (kind == "Pod")
    w_.pod_sets.push_back(read_template(doc, "pod", 1));
  else
    read_replica_specs(doc);
  if (r_.sink().size() == errors) finish();
}

}  // namespace

void collect_priority_classes(const std::vector<yaml::Node>& documents, const std::string& file,
                              PriorityClasses& classes, DiagnosticSink& sink) {
  Reader r(file, sink);
  for (const yaml::Node& doc : documents) {
    if (!doc.IsDefined() || !doc.IsMap()) continue;
    auto kind = r.string(child(doc, "kind"), "kind");
    if (!kind || (*kind != "PriorityClass" && *kind != "WorkloadPriorityClass")) continue;
    auto name = r.string(path(doc, {"metadata", "name"}), "metadata.name");
    // An int32 (scheduling.k8s.io/v1 PriorityClass.value). User classes stop
    // at 10^9, but the built-in system-cluster-critical (2000000000) and
    // system-node-critical (2000001000) are above, and class lists exported
    // from a cluster hold them.
    auto value = r.integer(child(doc, "value"), "value", -2'147'483'648LL, 2'147'483'647LL);
    if (!name || !value) {
      if (!value && !child(doc, "value").IsDefined()) sink.error(r.where(doc), fmt::format("a {} needs a value", *kind));
      continue;
    }
    (*kind == "PriorityClass" ? classes.pod : classes.workload)[*name] = *value;
    if (*kind == "PriorityClass" && r.string(child(doc, "globalDefault"), "globalDefault").value_or("") == "true")
      classes.global_default = *name;
  }
}

void read_kubernetes_documents(const std::vector<yaml::Node>& documents, const std::string& file,
                               const LevelMap& levels, const PriorityClasses& classes, ManifestJobs& out,
                               DiagnosticSink& sink) {
  static constexpr Kind kWorkloads[] = {
      {"batch", "Job"},           {"batch.volcano.sh", "Job"}, {"jobset.x-k8s.io", "JobSet"},
      {"leaderworkerset.x-k8s.io", "LeaderWorkerSet"},         {"kubeflow.org", "PyTorchJob"},
      {"kubeflow.org", "MPIJob"}, {"kubeflow.org", "TFJob"},   {"kubeflow.org", "JAXJob"},
      {"kubeflow.org", "XGBoostJob"}, {"kubeflow.org", "PaddleJob"}, {"trainer.kubeflow.org", "TrainJob"},
      {"apps", "Deployment"},     {"apps", "StatefulSet"},     {"", "Pod"}};
  Reader r(file, sink);
  WorkloadReader workloads(r, levels, classes, out);
  bool any_workload = false;
  for (const yaml::Node& doc : documents) {
    if (!doc.IsDefined() || doc.IsNull()) continue;
    if (!doc.IsMap()) {
      sink.error(r.where(doc), "a Kubernetes document must be a mapping with apiVersion and kind");
      continue;
    }
    auto api = r.string(child(doc, "apiVersion"), "apiVersion");
    auto kind = r.string(child(doc, "kind"), "kind");
    if (!api || !kind) {
      sink.error(r.where(doc), fmt::format("a Kubernetes document needs apiVersion and kind{}",
                                           kind ? fmt::format(" (kind {} has no apiVersion)", *kind) : ""));
      continue;
    }
    std::string_view group = *api;
    group = group.find('/') == std::string_view::npos ? std::string_view() : group.substr(0, group.find('/'));
    bool known = false;
    for (const Kind& k : kWorkloads)
      if (k.kind == *kind && k.group == group) known = true;
    if (known) {
      any_workload = true;
      workloads.read(doc, group, *kind);
      continue;
    }
    if (configuration_kinds().count(*kind)) {
      // A file of priority classes is there for the workloads of others.
      if (*kind == "PriorityClass" || *kind == "WorkloadPriorityClass") any_workload = true;
      continue;
    }
    std::vector<std::string> names;
    for (const Kind& k : kWorkloads) names.emplace_back(k.kind);
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string hint = did_you_mean(*kind, names);
    sink.error(r.where(child(doc, "kind")),
               fmt::format("unknown kind '{}' ({}); topoplan plans Job (batch/v1, Volcano), JobSet, LeaderWorkerSet, "
                           "PyTorchJob, MPIJob, TFJob, JAXJob, XGBoostJob, PaddleJob, TrainJob, Deployment, StatefulSet "
                           "and Pod, and skips cluster and queue configuration{}{}",
                           *kind, *api, hint.empty() ? "" : "; ", hint));
  }
  if (!any_workload && sink.empty())
    out.warnings.push_back({{file, 0, 0}, "no workloads (only configuration documents); nothing to place"});
}

}  // namespace topoplan
