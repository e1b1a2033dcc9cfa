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
#include "pod_spec.hpp"
#include "workload.hpp"

namespace topoplan {

namespace {

constexpr std::string_view kRequired = "kueue.x-k8s.io/podset-required-topology";
constexpr std::string_view kPreferred = "kueue.x-k8s.io/podset-preferred-topology";
constexpr std::string_view kUnconstrained = "kueue.x-k8s.io/podset-unconstrained-topology";
constexpr std::string_view kSliceRequired = "kueue.x-k8s.io/podset-slice-required-topology";
constexpr std::string_view kSliceSize = "kueue.x-k8s.io/podset-slice-size";
constexpr std::string_view kSliceConstraints = "kueue.x-k8s.io/podset-slice-required-topology-constraints";
constexpr std::string_view kGroupName = "kueue.x-k8s.io/podset-group-name";
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
  WorkloadReader(Reader& r, const LevelMap& levels, const PriorityClasses& classes, const KueueConfig& kueue,
                 ManifestJobs& out)
      : r_(r), levels_(levels), classes_(classes), kueue_(kueue), out_(out) {}

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
  // A Kueue annotation's label: with a Kueue Topology among the inputs, a
  // label that names none of its levels is Kueue's business (it never admits
  // the workload, to_job says why), not a mapping error.
  std::optional<LevelRequest> kueue_label_level(const yaml::Node& value, std::string_view annotation) {
    if (kueue_.flavors.empty()) return label_level(value, annotation);
    auto label = r_.string(value, annotation);
    if (!label) return std::nullopt;
    auto level = levels_.level_of_label(*label);
    if (!level) return std::nullopt;
    return LevelRequest{*level, r_.where(value), std::string(annotation)};
  }

  void read_metadata(const yaml::Node& doc);
  std::uint32_t accelerators(const yaml::Node& resources, std::string_view what);
  void read_slice_constraints(const yaml::Node& value, PodSet& s);
  void check_groups();
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
  const KueueConfig& kueue_;
  ManifestJobs& out_;
  WorkloadSpec w_;
  yaml::Node priority_class_at_;
};

void WorkloadReader::read_metadata(const yaml::Node& doc) {
  yaml::Node meta = doc["metadata"];
  if (!r_.map_or_absent(meta, "metadata")) return;
  auto name = r_.string(meta["name"], "metadata.name");
  if (!name) {
    // kubectl create completes generateName with a random suffix; the prefix
    // is the stable part.
    name = r_.string(meta["generateName"], "metadata.generateName");
    if (name)
      while (!name->empty() && name->back() == '-') name->pop_back();
  }
  if (!name || name->empty()) {
    r_.sink().error(r_.where(doc), fmt::format("{} needs metadata.name or metadata.generateName", w_.what));
    w_.name = "?";
  } else {
    w_.name = *name;
  }
  yaml::Node labels = meta["labels"];
  yaml::Node annotations = meta["annotations"];
  if (!r_.map_or_absent(labels, "metadata.labels") || !r_.map_or_absent(annotations, "metadata.annotations")) return;
  // Kueue reads the queue from a label (an annotation in old releases).
  if (auto q = r_.string(labels[kQueueName], kQueueName)) w_.queue = *q;
  else if (auto qa = r_.string(annotations[kQueueName], kQueueName)) w_.queue = *qa;
  if (labels[kKueuePriority].IsDefined()) {
    priority_class_at_.reset(labels[kKueuePriority]);
    if (auto p = r_.string(priority_class_at_, kKueuePriority)) w_.priority_class = *p;
  }
  // topoplan's own: which rows of --device-perf the job's pods see (PAL's
  // workload classes); nothing a scheduler reads.
  if (annotations[kPerfClass].IsDefined())
    if (auto c = r_.string(annotations[kPerfClass], kPerfClass)) {
      if (c->empty())
        r_.sink().error(r_.where(annotations[kPerfClass]),
                        fmt::format("{} names a workload class of --device-perf; give a name", kPerfClass));
      w_.perf_class = *c;
      w_.perf_class_where = r_.where(annotations[kPerfClass]);
    }
  if (annotations[kKaiRequired].IsDefined()) w_.required = label_level(annotations[kKaiRequired], kKaiRequired);
  if (annotations[kKaiPreferred].IsDefined())
    w_.preferred = label_level(annotations[kKaiPreferred], kKaiPreferred);
}

std::uint32_t WorkloadReader::accelerators(const yaml::Node& resources, std::string_view what) {
  if (!r_.map_or_absent(resources, what)) return 0;
  // Extended resources cannot be overcommitted: requests default to limits
  // and must equal them, so limits say it when both are given.
  yaml::Node limits = resources["limits"];
  yaml::Node requests = resources["requests"];
  if (!r_.map_or_absent(limits, "resources.limits") || !r_.map_or_absent(requests, "resources.requests")) return 0;
  long long total = 0;
  for (std::string_view name : kAcceleratorResources) {
    yaml::Node v = limits[name];
    if (!v.IsDefined()) v.reset(requests[name]);
    if (auto n = r_.integer(v, name, 0, 1'000'000)) total += *n;
  }
  return static_cast<std::uint32_t>(std::min<long long>(total, 1'000'000));
}

// podset-slice-required-topology-constraints: a JSON list of 1 to 3
// {topology, size} layers, outermost first, each size dividing the one
// before (validateSliceRequiredTopologyConstraintsAnnotation in Kueue's
// pkg/controller/jobframework/tas_validation.go).
void WorkloadReader::read_slice_constraints(const yaml::Node& value, PodSet& s) {
  auto text = r_.string(value, kSliceConstraints);
  if (!text) return;
  const SourceLocation at = r_.where(value);
  yaml::Node list;
  try {
    list = yaml::parse(*text, r_.file());
  } catch (const InputError&) {
    reject(at, fmt::format("{} must be a valid JSON array", kSliceConstraints));
    return;
  }
  if (!list.IsSequence() || list.size() == 0 || list.size() > 3) {
    reject(at, fmt::format("{}: topology constraints must contain between 1 and 3 entries", kSliceConstraints));
    return;
  }
  std::vector<kueue::SliceLayer> layers;
  for (const yaml::Node& entry : list) {
    yaml::Node topology = entry["topology"];
    yaml::Node size = entry["size"];
    auto parsed = size.IsDefined() && size.IsScalar() ? yaml::parse_integer(size.Scalar()) : std::nullopt;
    const long long n = parsed.value_or(0);
    if (!topology.IsDefined() || !topology.IsScalar() || topology.Scalar().empty() || n < 1 ||
        n > static_cast<long long>(kMaxPods)) {
      reject(at, fmt::format("{}: each entry needs a topology label and a size of at least 1", kSliceConstraints));
      return;
    }
    for (const kueue::SliceLayer& l : layers)
      if (l.topology == topology.Scalar()) {
        reject(at, fmt::format("{}: topology '{}' is listed twice", kSliceConstraints, l.topology));
        return;
      }
    if (!layers.empty() && layers.back().size % n != 0) {
      reject(at, fmt::format("{}: size {} must evenly divide the parent layer size {}", kSliceConstraints, n,
                             layers.back().size));
      return;
    }
    layers.push_back({topology.Scalar(), static_cast<std::int32_t>(n)});
  }
  if (static_cast<std::uint64_t>(layers.front().size) > s.pods) {
    reject(at, fmt::format("{}: size {} must not be greater than pod set count {}", kSliceConstraints,
                           layers.front().size, s.pods));
    return;
  }
  // Other policies plan the outermost layer as slices.
  auto level = levels_.level_of_label(layers.front().topology);
  if (!level && kueue_.flavors.empty()) {
    levels_.resolve_label(layers.front().topology, kSliceConstraints, at, r_.sink());
    return;
  }
  if (level) {
    s.slice = LevelRequest{*level, at, std::string(kSliceConstraints)};
    s.slice_size = static_cast<std::uint64_t>(layers.front().size);
  }
  if (layers.size() > 1)
    warn(at, fmt::format("{}: the inner layers are honoured by the kueue policy only", kSliceConstraints));
  s.kueue_request.slices = std::move(layers);
}

// PodSet groups (ValidatePodSetGroupingTopology): exactly two pod sets, one
// of them a single pod, both asking for the same required or preferred level.
void WorkloadReader::check_groups() {
  std::map<std::string, std::vector<const PodSet*>> groups;
  std::vector<std::string> order;
  for (const PodSet& s : w_.pod_sets)
    if (s.group) {
      if (!groups.count(*s.group)) order.push_back(*s.group);
      groups[*s.group].push_back(&s);
    }
  for (const std::string& name : order) {
    const std::vector<const PodSet*>& sets = groups[name];
    if (sets.size() != 2) {
      reject(sets.front()->where, fmt::format("{} '{}': can only define groups of exactly 2 pod sets, got: {} pod "
                                              "set(s)",
                                              kGroupName, name, sets.size()));
      continue;
    }
    if (sets[0]->pods != 1 && sets[1]->pods != 1)
      reject(sets[0]->where, fmt::format("{} '{}': can only define groups where at least one pod set has only 1 "
                                         "replica, got: {} replica(s) and {} replica(s) in the group",
                                         kGroupName, name, sets[0]->pods, sets[1]->pods));
    const kueue::TopologyRequest& a = sets[0]->kueue_request;
    const kueue::TopologyRequest& b = sets[1]->kueue_request;
    if (a.required != b.required || a.preferred != b.preferred)
      reject(sets[1]->where, fmt::format("{} '{}': pod templates '{}' and '{}' must ask for the same {} or {}",
                                         kGroupName, name, sets[0]->name, sets[1]->name, kRequired, kPreferred));
  }
}

PodSet WorkloadReader::read_template(const yaml::Node& tmpl, std::string name, std::uint64_t pods) {
  PodSet s;
  s.name = std::move(name);
  s.pods = pods;
  s.where = tmpl.IsDefined() ? r_.where(tmpl) : w_.where;
  if (!r_.map_or_absent(tmpl, "template")) return s;
  yaml::Node annotations = tmpl["metadata"]["annotations"];
  yaml::Node spec = tmpl["spec"];
  if (!r_.map_or_absent(annotations, "metadata.annotations") || !r_.map_or_absent(spec, "spec")) return s;

  // Kueue TAS: one of required, preferred, unconstrained per PodSet.
  s.kubernetes = true;
  kueue::TopologyRequest& kr = s.kueue_request;
  std::vector<std::string_view> given;
  for (std::string_view key : {kRequired, kPreferred, kUnconstrained})
    if (annotations[key].IsDefined()) given.push_back(key);
  if (given.size() > 1)
    reject(r_.where(annotations[given[1]]),
           fmt::format("pod template '{}' must not contain more than one topology annotation ({})", s.name,
                       fmt::join(given, ", ")));
  if (yaml::Node n = annotations[kRequired]; n.IsDefined()) {
    s.required = kueue_label_level(n, kRequired);
    kr.required = r_.string(n, kRequired);
  } else if (yaml::Node p = annotations[kPreferred]; p.IsDefined()) {
    s.preferred = kueue_label_level(p, kPreferred);
    kr.preferred = r_.string(p, kPreferred);
  }
  if (yaml::Node u = annotations[kUnconstrained]; u.IsDefined()) {
    // strconv.ParseBool, as Kueue's webhook reads it.
    auto v = r_.string(u, kUnconstrained);
    static constexpr std::string_view kTrue[] = {"1", "t", "T", "TRUE", "true", "True"};
    static constexpr std::string_view kFalse[] = {"0", "f", "F", "FALSE", "false", "False"};
    bool yes = v && std::find(std::begin(kTrue), std::end(kTrue), *v) != std::end(kTrue);
    bool no = v && std::find(std::begin(kFalse), std::end(kFalse), *v) != std::end(kFalse);
    if (v && !yes && !no)
      reject(r_.where(u), fmt::format("{} must be a boolean value, not '{}'", kUnconstrained, *v));
    if (!kr.required && !kr.preferred) kr.unconstrained = yes;
  }
  yaml::Node slice_topology = annotations[kSliceRequired];
  yaml::Node slice_size = annotations[kSliceSize];
  yaml::Node constraints = annotations[kSliceConstraints];
  std::string_view slice_source = kSliceRequired;
  if (!slice_topology.IsDefined() && !slice_size.IsDefined() && !constraints.IsDefined() &&
      annotations[kKaiSegmentSize].IsDefined()) {
    slice_topology.reset(annotations[kKaiSegmentRequired]);
    slice_size.reset(annotations[kKaiSegmentSize]);
    slice_source = kKaiSegmentRequired;
    if (!slice_topology.IsDefined())
      warn(r_.where(slice_size), fmt::format("{} without {}: segments are not kept together", kKaiSegmentSize,
                                             kKaiSegmentRequired));
  } else if (slice_topology.IsDefined() != slice_size.IsDefined()) {
    yaml::Node given_one = slice_topology.IsDefined() ? slice_topology : slice_size;
    reject(r_.where(given_one), slice_topology.IsDefined()
                                    ? fmt::format("{} must be set when {} is specified", kSliceSize, kSliceRequired)
                                    : fmt::format("{} may not be set when {} is not specified", kSliceSize,
                                                  kSliceRequired));
  }
  if (constraints.IsDefined() && (slice_topology.IsDefined() || slice_size.IsDefined())) {
    reject(r_.where(constraints), fmt::format("{} may not be set when {} or {} is specified", kSliceConstraints,
                                              kSliceRequired, kSliceSize));
  } else if (constraints.IsDefined()) {
    read_slice_constraints(constraints, s);
  }
  if (slice_topology.IsDefined() && slice_size.IsDefined()) {
    auto text = r_.string(slice_size, slice_source == kSliceRequired ? kSliceSize : kKaiSegmentSize);
    auto size = text ? yaml::parse_integer(*text) : std::nullopt;
    if (!size || *size < 1 || static_cast<std::uint64_t>(*size) > pods)
      reject(r_.where(slice_size), fmt::format("slice size '{}' must be a whole number from 1 to the {} pods of '{}'",
                                               text.value_or("?"), pods, s.name));
    else
      s.slice_size = static_cast<std::uint64_t>(*size);
    s.slice = slice_source == kSliceRequired ? kueue_label_level(slice_topology, slice_source)
                                             : label_level(slice_topology, slice_source);
    if (slice_source == kSliceRequired)
      if (auto topology = r_.string(slice_topology, kSliceRequired))
        kr.slices.push_back({*topology, static_cast<std::int32_t>(s.slice_size)});
    if (!s.slice_size) s.slice.reset();
  }
  if (yaml::Node g = annotations[kGroupName]; g.IsDefined()) {
    s.group = r_.string(g, kGroupName);
    if (s.group && yaml::parse_integer(*s.group) && s.group->find_first_not_of("0123456789") == std::string::npos)
      reject(r_.where(g), fmt::format("{} '{}' must not be a number", kGroupName, *s.group));
    if (slice_topology.IsDefined() || slice_size.IsDefined() || constraints.IsDefined())
      reject(r_.where(g), fmt::format("{} may not be set together with slice annotations", kGroupName));
    if (!kr.required && !kr.preferred)
      reject(r_.where(g), fmt::format("{} may not be set when neither {} nor {} is specified", kGroupName, kPreferred,
                                      kRequired));
  }
  if (annotations[kKaiSegmentPreferred].IsDefined())
    warn(r_.where(annotations[kKaiSegmentPreferred]), fmt::format("{} is not honoured", kKaiSegmentPreferred));

  // Resources and node constraints as Kueue reads a pod template.
  PodSpecInfo info = read_pod_spec(spec, r_.file(), r_.sink(), true);
  long long accelerators = 0;
  for (std::string_view resource : kAcceleratorResources) accelerators += info.requests.value(resource);
  s.accelerators = static_cast<std::uint32_t>(std::clamp<long long>(accelerators, 0, 1'000'000));
  s.requests = std::move(info.requests);
  s.node_selector = std::move(info.node_selector);
  s.required_affinity = std::move(info.required_affinity);
  s.preferred_affinity = std::move(info.preferred_affinity);
  s.tolerations = std::move(info.tolerations);

  if (auto pc = r_.string(spec["priorityClassName"], "priorityClassName"); pc && w_.priority_class.empty()) {
    w_.priority_class = *pc;
    priority_class_at_.reset(spec["priorityClassName"]);
  }
  std::vector<std::string> honoured_by_kueue;
  if (!s.node_selector.empty()) honoured_by_kueue.emplace_back("nodeSelector");
  if (spec["affinity"]["nodeAffinity"].IsDefined()) honoured_by_kueue.emplace_back("affinity.nodeAffinity");
  if (spec["tolerations"].IsDefined()) honoured_by_kueue.emplace_back("tolerations");
  if (!honoured_by_kueue.empty())
    warn(s.where, fmt::format("pod template '{}': {} {} honoured by the kueue policy only", s.name,
                              fmt::join(honoured_by_kueue, ", "), honoured_by_kueue.size() == 1 ? "is" : "are"));
  std::vector<std::string> ignored = info.ignored;
  if (spec["nodeName"].IsDefined()) ignored.emplace_back("nodeName");
  if (!ignored.empty())
    warn(s.where, fmt::format("pod template '{}': {} {} not honoured", s.name, fmt::join(ignored, ", "),
                              ignored.size() == 1 ? "is" : "are"));
  return s;
}

std::uint64_t WorkloadReader::job_pods(const yaml::Node& job_spec) {
  // Pods that run at once: parallelism (default 1), never more than completions.
  if (!r_.map_or_absent(job_spec, "spec")) return 1;
  long long parallelism = r_.integer(job_spec["parallelism"], "parallelism", 0, kMaxPods).value_or(1);
  if (auto completions = r_.integer(job_spec["completions"], "completions", 0, kMaxPods))
    parallelism = std::min(parallelism, *completions);
  return static_cast<std::uint64_t>(parallelism);
}

void WorkloadReader::read_batch_job(const yaml::Node& doc) {
  yaml::Node spec = doc["spec"];
  w_.pod_sets.push_back(read_template(spec["template"], "main", job_pods(spec)));
}

void WorkloadReader::read_jobset(const yaml::Node& doc) {
  yaml::Node jobs = doc["spec"]["replicatedJobs"];
  if (!r_.list_or_absent(jobs, "spec.replicatedJobs")) return;
  if (!jobs.IsDefined() || jobs.IsNull() || jobs.size() == 0) {
    r_.sink().error(r_.where(doc), "a JobSet needs spec.replicatedJobs");
    return;
  }
  std::uint64_t child_jobs = 0;
  yaml::Node exclusive = doc["metadata"]["annotations"][kJobSetExclusive];
  for (const yaml::Node& rj : jobs) {
    std::string name = r_.string(rj["name"], "name").value_or("?");
    auto replicas = static_cast<std::uint64_t>(r_.integer(rj["replicas"], "replicas", 0, kMaxPods).value_or(1));
    yaml::Node job_template = rj["template"];
    if (yaml::Node e = job_template["metadata"]["annotations"][kJobSetExclusive]; e.IsDefined()) exclusive.reset(e);
    yaml::Node job_spec = job_template["spec"];
    std::uint64_t per_job = job_pods(job_spec);
    child_jobs += replicas;
    w_.pod_sets.push_back(read_template(job_spec["template"], name, replicas * per_job));
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
  yaml::Node spec = doc["spec"];
  w_.kind = JobKind::inference;
  w_.groups = static_cast<std::uint32_t>(r_.integer(spec["replicas"], "replicas", 0, 1'000'000).value_or(1));
  w_.kueue_groups_are_workloads = true;  // Kueue makes a workload per group
  yaml::Node lwt = spec["leaderWorkerTemplate"];
  if (!lwt.IsDefined()) {
    r_.sink().error(r_.where(doc), "a LeaderWorkerSet needs spec.leaderWorkerTemplate");
    return;
  }
  auto size = static_cast<std::uint64_t>(r_.integer(lwt["size"], "size", 1, kMaxPods).value_or(1));
  yaml::Node worker = lwt["workerTemplate"];
  yaml::Node leader = lwt["leaderTemplate"];
  // Without a leader template the leader runs the worker template.
  w_.pod_sets.push_back(read_template(leader.IsDefined() ? leader : worker, "leader", 1));
  if (size > 1) w_.pod_sets.push_back(read_template(worker, "worker", size - 1));
  yaml::Node annotations = doc["metadata"]["annotations"];
  if (annotations[kLwsExclusive].IsDefined()) w_.exclusive = label_level(annotations[kLwsExclusive], kLwsExclusive);
  if (annotations[kLwsSubgroupExclusive].IsDefined())
    warn(r_.where(annotations[kLwsSubgroupExclusive]), fmt::format("{} is not honoured", kLwsSubgroupExclusive));
}

void WorkloadReader::read_replica_specs(const yaml::Node& doc) {
  // PyTorchJob, TFJob, JAXJob, XGBoostJob, PaddleJob (kubeflow.org/v1) and
  // MPIJob (v2beta1) share one shape: spec.<framework>ReplicaSpecs, a map from
  // role (Master, Worker, Launcher, PS...) to {replicas, template}.
  yaml::Node spec = doc["spec"];
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
        auto replicas = r_.integer(role.second["replicas"], "replicas", 0, kMaxPods).value_or(1);
        w_.pod_sets.push_back(read_template(role.second["template"], name, static_cast<std::uint64_t>(replicas)));
      }
    }
  if (!found) r_.sink().error(r_.where(doc), fmt::format("a {} needs spec.*ReplicaSpecs", w_.what));
  yaml::Node policy = spec["runPolicy"]["schedulingPolicy"];
  if (auto q = r_.string(policy["queue"], "schedulingPolicy.queue"); q && w_.queue.empty()) w_.queue = *q;
  if (auto p = r_.string(policy["priorityClass"], "schedulingPolicy.priorityClass");
      p && w_.priority_class.empty()) {
    w_.priority_class = *p;
    priority_class_at_.reset(policy["priorityClass"]);
  }
}

void WorkloadReader::read_trainjob(const yaml::Node& doc) {
  yaml::Node trainer = doc["spec"]["trainer"];
  yaml::Node nodes = trainer["numNodes"];
  if (!nodes.IsDefined())
    warn(w_.where, "spec.trainer.numNodes is not given (its runtime decides); topoplan plans one node");
  auto n = static_cast<std::uint64_t>(r_.integer(nodes, "numNodes", 1, kMaxPods).value_or(1));
  PodSet s;
  s.name = "node";
  s.pods = n;
  s.where = trainer.IsDefined() ? r_.where(trainer) : w_.where;
  s.accelerators = accelerators(trainer["resourcesPerNode"], "resourcesPerNode");
  w_.pod_sets.push_back(s);
  warn(w_.where, "pod templates and their topology annotations come from the training runtime, which topoplan does "
                 "not read");
}

std::optional<LevelRequest> WorkloadReader::network_topology(const yaml::Node& nt, bool& hard) {
  hard = true;
  if (!nt.IsDefined() || nt.IsNull() || !r_.map_or_absent(nt, "networkTopology")) return std::nullopt;
  if (auto mode = r_.string(nt["mode"], "mode")) {
    if (*mode == "soft")
      hard = false;
    else if (*mode != "hard")
      r_.sink().error(r_.where(nt["mode"]), fmt::format("networkTopology mode is hard or soft, not '{}'", *mode));
  }
  if (yaml::Node tier = nt["highestTierAllowed"]; tier.IsDefined()) {
    auto t = r_.integer(tier, "highestTierAllowed", 1, 1000);
    if (!t) return std::nullopt;
    return LevelRequest{levels_.tier(*t), r_.where(tier), "networkTopology.highestTierAllowed"};
  }
  if (yaml::Node name = nt["highestTierName"]; name.IsDefined()) {
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
  yaml::Node spec = doc["spec"];
  if (auto q = r_.string(spec["queue"], "queue")) w_.queue = *q;
  if (auto p = r_.string(spec["priorityClassName"], "priorityClassName")) {
    w_.priority_class = *p;
    priority_class_at_.reset(spec["priorityClassName"]);
  }
  if (yaml::Node nt = spec["networkTopology"]; nt.IsDefined()) {
    bool hard = true;
    auto level = network_topology(nt, hard);
    if (level && hard && (!w_.required || level->level > w_.required->level)) w_.required = level;
    if (level && !hard) w_.preferred = level;
    if (!level && !hard)
      w_.preferred = LevelRequest{levels_.leaf_level(), r_.where(nt), "networkTopology (soft)"};
  }
  yaml::Node tasks = spec["tasks"];
  if (!r_.list_or_absent(tasks, "tasks")) return;
  if (!tasks.IsDefined() || tasks.IsNull() || tasks.size() == 0) {
    r_.sink().error(r_.where(doc), "a Volcano Job needs spec.tasks");
    return;
  }
  for (const yaml::Node& task : tasks) {
    std::string name = r_.string(task["name"], "name").value_or("?");
    auto replicas = static_cast<std::uint64_t>(r_.integer(task["replicas"], "replicas", 0, kMaxPods).value_or(0));
    PodSet s = read_template(task["template"], name, replicas);
    if (yaml::Node pp = task["partitionPolicy"]; pp.IsDefined()) {
      auto total = r_.integer(pp["totalPartitions"], "totalPartitions", 1, kMaxPods);
      auto size = r_.integer(pp["partitionSize"], "partitionSize", 1, kMaxPods);
      if (total && size && static_cast<std::uint64_t>(*total * *size) != replicas)
        reject(r_.where(pp), fmt::format("task '{}': totalPartitions {} x partitionSize {} is not its {} replicas", name,
                                         *total, *size, replicas));
      bool hard = true;
      auto level = network_topology(pp["networkTopology"], hard);
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
  // Deployments and StatefulSets: replicas of one pod, each a replica of a
  // service. Kueue admits each pod of a Deployment as a workload of its own
  // (pod integration) and a StatefulSet's pods as one pod group.
  yaml::Node spec = doc["spec"];
  w_.kind = JobKind::inference;
  w_.groups = static_cast<std::uint32_t>(r_.integer(spec["replicas"], "replicas", 0, 1'000'000).value_or(1));
  w_.kueue_groups_are_workloads = w_.what == "Deployment";
  w_.pod_sets.push_back(read_template(spec["template"], "pod", 1));
}

void WorkloadReader::finish() {
  check_groups();
  bool ambiguous = false;
  w_.flavor = kueue_.flavor_for(w_.queue, ambiguous);
  if (ambiguous)
    warn(w_.where, fmt::format("the inputs define {} TAS ResourceFlavors and its queue does not pick one; Kueue's "
                               "choice is taken to be '{}'",
                               kueue_.flavors.size(), w_.flavor->name));
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
    auto kind = r.string(doc["kind"], "kind");
    if (!kind || (*kind != "PriorityClass" && *kind != "WorkloadPriorityClass")) continue;
    auto name = r.string(doc["metadata"]["name"], "metadata.name");
    // An int32 (scheduling.k8s.io/v1 PriorityClass.value). User classes stop
    // at 10^9, but the built-in system-cluster-critical (2000000000) and
    // system-node-critical (2000001000) are above, and class lists exported
    // from a cluster hold them.
    auto value = r.integer(doc["value"], "value", -2'147'483'648LL, 2'147'483'647LL);
    if (!name || !value) {
      if (!value && !doc["value"].IsDefined()) sink.error(r.where(doc), fmt::format("a {} needs a value", *kind));
      continue;
    }
    (*kind == "PriorityClass" ? classes.pod : classes.workload)[*name] = *value;
    if (*kind == "PriorityClass" && r.string(doc["globalDefault"], "globalDefault").value_or("") == "true")
      classes.global_default = *name;
  }
}

void read_kubernetes_documents(const std::vector<yaml::Node>& documents, const std::string& file,
                               const LevelMap& levels, const PriorityClasses& classes, const KueueConfig& kueue,
                               const GroveTopologies& grove, ManifestJobs& out, DiagnosticSink& sink) {
  static constexpr Kind kWorkloads[] = {
      {"batch", "Job"},           {"batch.volcano.sh", "Job"}, {"jobset.x-k8s.io", "JobSet"},
      {"leaderworkerset.x-k8s.io", "LeaderWorkerSet"},         {"kubeflow.org", "PyTorchJob"},
      {"kubeflow.org", "MPIJob"}, {"kubeflow.org", "TFJob"},   {"kubeflow.org", "JAXJob"},
      {"kubeflow.org", "XGBoostJob"}, {"kubeflow.org", "PaddleJob"}, {"trainer.kubeflow.org", "TrainJob"},
      {"apps", "Deployment"},     {"apps", "StatefulSet"},     {"", "Pod"}};
  Reader r(file, sink);
  WorkloadReader workloads(r, levels, classes, kueue, out);
  bool any_workload = false;
  for (const yaml::Node& doc : documents) {
    if (!doc.IsDefined() || doc.IsNull()) continue;
    if (!doc.IsMap()) {
      sink.error(r.where(doc), "a Kubernetes document must be a mapping with apiVersion and kind");
      continue;
    }
    auto api = r.string(doc["apiVersion"], "apiVersion");
    auto kind = r.string(doc["kind"], "kind");
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
    if (group == "grove.io" &&
        (*kind == "PodCliqueSet" || *kind == "ClusterTopologyBinding" || *kind == "ClusterTopology")) {
      any_workload = true;
      if (*kind == "PodCliqueSet") read_grove_podcliqueset(doc, file, levels, grove, out, sink);
      continue;
    }
    if (group == "nvidia.com" && *kind == "DynamoGraphDeployment") {
      any_workload = true;
      read_dynamo_graph_deployment(doc, file, levels, grove, out, sink);
      continue;
    }
    if (group == "disaggregatedset.x-k8s.io" && *kind == "DisaggregatedSet") {
      any_workload = true;
      read_disaggregated_set(doc, file, levels, out, sink);
      continue;
    }
    if (configuration_kinds().count(*kind)) {
      // A file of priority classes, or of Kueue's topologies, flavors and
      // queues, is there for the workloads of others.
      if (*kind == "PriorityClass" || *kind == "WorkloadPriorityClass") any_workload = true;
      if (group == "kueue.x-k8s.io" &&
          (*kind == "Topology" || *kind == "ResourceFlavor" || *kind == "ClusterQueue" || *kind == "LocalQueue"))
        any_workload = true;
      continue;
    }
    std::vector<std::string> names;
    for (const Kind& k : kWorkloads) names.emplace_back(k.kind);
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string hint = did_you_mean(*kind, names);
    sink.error(r.where(doc["kind"]),
               fmt::format("unknown kind '{}' ({}); topoplan plans Job (batch/v1, Volcano), JobSet, LeaderWorkerSet, "
                           "PyTorchJob, MPIJob, TFJob, JAXJob, XGBoostJob, PaddleJob, TrainJob, Deployment, "
                           "StatefulSet, Pod, Grove PodCliqueSet, Dynamo DynamoGraphDeployment and LWS DisaggregatedSet, and "
                           "skips cluster and "
                           "queue configuration{}{}",
                           *kind, *api, hint.empty() ? "" : "; ", hint));
  }
  if (!any_workload && sink.empty())
    out.warnings.push_back({{file, 0, 0}, "no workloads (only configuration documents); nothing to place"});
}

}  // namespace topoplan
