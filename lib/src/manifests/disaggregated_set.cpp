// LWS's DisaggregatedSet (disaggregatedset.x-k8s.io/v1) read as a service
// (placement/service.hpp): `slices` copies of the role set, each role a
// LeaderWorkerSet whose groups (a leader and size - 1 workers) are the
// role's replicas. placementPolicy ExclusiveSlice packs each slice into one
// domain of the policy's node label and spreads the slices over such
// domains; ExclusiveTopology also keeps the domain to that slice alone.
//
// What the API server and the DisaggregatedSet webhook refuse becomes a
// rejection (`check` fails).
//
// Sources (read, not copied): kubernetes-sigs/lws api/disaggregatedset/v1/
// disaggregatedset_types.go (roles 2..10 with DNS-label names, slices
// 1..100 default 1, replicas all zero or all non-zero over Static roles,
// PlacementPolicy None / ExclusiveSlice / ExclusiveTopology with a topology
// key), pkg/webhooks/disaggregatedset/disaggregatedset_webhook.go (topology
// required unless None, no exclusive-topology annotations beside a policy,
// rolloutStrategy type RollingUpdate and no partition, External scaling
// only with one slice, generated service names within DNS-1035's 63).
#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "../io/kubernetes_names.hpp"
#include "../io/yaml_support.hpp"
#include "manifest_readers.hpp"
#include "engine_flags.hpp"
#include "pod_spec.hpp"
#include "service_annotations.hpp"
#include "workload.hpp"
#include "topoplan/placement/service.hpp"

namespace topoplan {

namespace {

constexpr long long kMaxCount = 1'000'000;
constexpr std::string_view kExclusiveKeys[] = {"leaderworkerset.sigs.k8s.io/exclusive-topology",
                                               "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"};

class DisaggregatedSetReader {
 public:
  DisaggregatedSetReader(const std::string& file, const LevelMap& levels, ManifestJobs& out, DiagnosticSink& sink)
      : file_(file), levels_(levels), out_(out), sink_(sink) {}

  void read(const yaml::Node& doc);

 private:
  SourceLocation where(const yaml::Node& n) const { return yaml::where(file_, n); }
  void warn(const SourceLocation& at, const std::string& message) {
    out_.warnings.push_back({at, fmt::format("DisaggregatedSet '{}': {}", name_, message)});
  }
  void reject(const SourceLocation& at, const std::string& message) {
    rejections_.push_back({at, fmt::format("DisaggregatedSet '{}': {}", name_, message)});
  }
  std::optional<std::string> string(const yaml::Node& n, std::string_view what) {
    if (!n.IsDefined() || n.IsNull()) return std::nullopt;
    return yaml::scalar(n, file_, sink_, what);
  }
  std::optional<long long> integer(const yaml::Node& n, std::string_view what) {
    auto text = string(n, what);
    if (!text) return std::nullopt;
    auto v = yaml::parse_integer(*text);
    if (!v || *v < 0 || *v > kMaxCount) {
      sink_.error(where(n), fmt::format("'{}' must be a whole number from 0 to {}, not '{}'", what, kMaxCount, *text));
      return std::nullopt;
    }
    return v;
  }
  bool has_exclusive_annotation(const yaml::Node& role);
  // Kueue TAS annotations on a role's templates, which Kueue applies to
  // each of the role's LWS groups (one workload each): a pack of groups of
  // several pods is warned as not honoured, and a podset group named on
  // several roles as not keeping them together.
  void kueue_annotations(const yaml::Node& role, const std::string& role_name, std::uint32_t group_size,
                         std::map<std::string, std::vector<std::string>>& groups);

  const std::string& file_;
  const LevelMap& levels_;
  ManifestJobs& out_;
  DiagnosticSink& sink_;
  std::string name_ = "?";
  std::vector<Diagnostic> rejections_;
  std::map<std::string, SourceLocation> group_at_;  // the first place a podset group is named
};

bool DisaggregatedSetReader::has_exclusive_annotation(const yaml::Node& role) {
  yaml::Node lwt = role["spec"]["leaderWorkerTemplate"];
  for (std::string_view key : kExclusiveKeys)
    for (const yaml::Node& holder : {role["metadata"], lwt["leaderTemplate"]["metadata"],
                                     lwt["workerTemplate"]["metadata"]})
      if (holder["annotations"][key].IsDefined()) return true;
  return false;
}

void DisaggregatedSetReader::kueue_annotations(const yaml::Node& role, const std::string& role_name,
                                               std::uint32_t group_size,
                                               std::map<std::string, std::vector<std::string>>& groups) {
  static constexpr std::string_view kTopology[] = {"kueue.x-k8s.io/podset-required-topology",
                                                   "kueue.x-k8s.io/podset-preferred-topology"};
  static constexpr std::string_view kGroup = "kueue.x-k8s.io/podset-group-name";
  yaml::Node lwt = role["spec"]["leaderWorkerTemplate"];
  bool warned = group_size == 1;  // one pod is in one domain of every level
  for (const yaml::Node& holder : {lwt["leaderTemplate"]["metadata"], lwt["workerTemplate"]["metadata"]}) {
    yaml::Node annotations = holder["annotations"];
    for (std::string_view key : kTopology)
      if (yaml::Node v = annotations[key]; v.IsDefined() && !warned) {
        warned = true;
        warn(where(v), fmt::format("role '{}': {} packs each of the role's LeaderWorkerSet groups (a Kueue workload "
                                   "each) in one '{}'; topoplan packs whole slices (placementPolicy), so this is not "
                                   "honoured",
                                   role_name, key, v.IsScalar() ? v.Scalar() : ""));
      }
    if (yaml::Node g = annotations[kGroup]; g.IsScalar()) {
      std::vector<std::string>& roles = groups[g.Scalar()];
      if (roles.empty() || roles.back() != role_name) roles.push_back(role_name);
      group_at_.try_emplace(g.Scalar(), where(g));
    }
  }
}

void DisaggregatedSetReader::read(const yaml::Node& doc) {
  const SourceLocation doc_at = where(doc);
  const std::size_t errors = sink_.size();
  yaml::Node meta = doc["metadata"];
  if (auto n = string(meta["name"], "metadata.name"); n && !n->empty()) {
    name_ = *n;
  } else {
    sink_.error(doc_at, "DisaggregatedSet needs metadata.name");
    return;
  }
  yaml::Node spec = doc["spec"];
  std::uint32_t slices = 1;
  yaml::Node slices_node = spec["slices"];
  if (auto v = integer(slices_node, "slices")) {
    if (*v < 1 || *v > 100) reject(where(slices_node), fmt::format("spec.slices is {}; it must be from 1 to 100", *v));
    slices = static_cast<std::uint32_t>(std::max<long long>(*v, 1));
  }
  yaml::Node roles = spec["roles"];
  if (!roles.IsSequence()) {
    sink_.error(roles.IsDefined() ? where(roles) : doc_at, "a DisaggregatedSet needs spec.roles, a list of roles");
    return;
  }
  if (roles.size() < 2 || roles.size() > 10)
    reject(where(roles), fmt::format("spec.roles has {} role{}; a DisaggregatedSet has 2 to 10", roles.size(),
                                     roles.size() == 1 ? "" : "s"));

  // placementPolicy: the domain label and what it guarantees.
  yaml::Node policy = spec["placementPolicy"];
  const std::string type = string(policy["type"], "placementPolicy.type").value_or("None");
  std::optional<LevelIndex> level;
  SourceLocation level_at;
  if (type != "None" && type != "ExclusiveSlice" && type != "ExclusiveTopology") {
    reject(where(policy["type"]),
           fmt::format("placementPolicy.type '{}' is not one of None, ExclusiveSlice, ExclusiveTopology", type));
  } else if (type != "None") {
    yaml::Node topology = policy["topology"];
    auto label = string(topology, "placementPolicy.topology");
    if (!label || label->empty()) {
      reject(where(policy), "placementPolicy.topology: topology is required when type is not None");
    } else {
      level_at = where(topology);
      level = levels_.resolve_label(*label, "placementPolicy.topology", level_at, sink_);
    }
  }

  auto service = std::make_shared<Service>();
  const ServiceAnnotations notes = read_service_annotations(meta["annotations"], file_, sink_);
  Service& s = *service;
  s.where = doc_at;
  s.slices = slices;
  bool any_external = false;
  bool any_accelerators = false;
  std::size_t zero_replicas = 0, static_roles = 0;
  struct RolePods {
    std::uint32_t leader = 0, worker = 0, size = 1;
  };
  std::vector<RolePods> pods;
  const std::size_t slice_digits = std::to_string(slices - 1).size();
  std::map<std::string, std::vector<std::string>> kueue_groups;  // podset-group-name -> roles naming it
  std::vector<EngineFlags> engines;                               // each role's
  for (const yaml::Node& r : roles) {
    ServiceRole role;
    role.name = string(r["name"], "roles[].name").value_or("");
    const SourceLocation at = where(r);
    if (!is_dns1123_label(role.name))
      reject(at, fmt::format("role name '{}' must be a DNS-1123 label (lowercase letters, digits and '-', at most 63)",
                             role.name));
    for (const ServiceRole& other : s.roles)
      if (other.name == role.name) reject(at, fmt::format("role '{}' is given twice", role.name));
    // The Service a role gets is named set-slice-revision-role-prv.
    if (const std::size_t len = name_.size() + 3 + slice_digits + 8 + role.name.size() + 4; len > 63)
      reject(at, fmt::format("role '{}': the generated service name ({} chars) would exceed the DNS-1035 limit of 63 "
                             "characters",
                             role.name, len));
    yaml::Node rs = r["spec"];
    const bool external = string(r["scaling"]["mode"], "scaling.mode").value_or("Static") == "External";
    any_external = any_external || external;
    yaml::Node replicas_node = rs["replicas"];
    const long long replicas = integer(replicas_node, "replicas").value_or(1);
    if (external) {
      warn(at, fmt::format("role '{}' scales through DisaggregatedSetRoleScaler '{}-{}', which topoplan does not read; "
                           "{} replica{} planned",
                           role.name, name_, role.name, replicas, replicas == 1 ? "" : "s"));
    } else {
      ++static_roles;
      if (replicas == 0) ++zero_replicas;
    }
    yaml::Node rollout = rs["rolloutStrategy"];
    if (auto t = string(rollout["type"], "rolloutStrategy.type"); t && *t != "RollingUpdate")
      reject(where(rollout["type"]), fmt::format("role '{}': rolloutStrategy.type '{}' is not supported; use "
                                                        "RollingUpdate",
                                                        role.name, *t));
    if (auto p = integer(rollout["rollingUpdateConfiguration"]["partition"], "partition"); p && *p != 0)
      reject(where(rollout["rollingUpdateConfiguration"]["partition"]),
             fmt::format("role '{}': partition is not supported by DisaggregatedSet", role.name));
    if (level && has_exclusive_annotation(r))
      reject(at, fmt::format("role '{}': LWS exclusive-topology annotations must not be combined with "
                             "placementPolicy.type {}",
                             role.name, type));
    yaml::Node lwt = rs["leaderWorkerTemplate"];
    RolePods p;
    if (auto size = integer(lwt["size"], "size")) {
      if (*size < 1) reject(where(lwt["size"]), fmt::format("role '{}': size must be at least 1", role.name));
      p.size = static_cast<std::uint32_t>(std::max<long long>(*size, 1));
    }
    kueue_annotations(r, role.name, p.size, kueue_groups);
    yaml::Node worker = lwt["workerTemplate"];
    yaml::Node leader = lwt["leaderTemplate"];
    std::vector<std::string> args;  // the engine's flags, for the role's phase
    auto gpus = [&](const yaml::Node& tmpl) {
      PodSpecInfo info = read_pod_spec(tmpl["spec"], file_, sink_, true);
      args.insert(args.end(), info.args.begin(), info.args.end());
      return static_cast<std::uint32_t>(std::clamp<long long>(
          info.requests.value("nvidia.com/gpu") + info.requests.value("amd.com/gpu"), 0, kMaxCount));
    };
    p.worker = gpus(worker);
    p.leader = leader.IsDefined() ? gpus(leader) : p.worker;  // the leader runs the worker template without one
    engines.push_back(read_engine_flags(args));
    role.phase = infer_role_phase({role.name}, engines.back());
    any_accelerators = any_accelerators || p.leader > 0 || p.worker > 0;
    role.replicas = static_cast<std::uint32_t>(replicas);
    pods.push_back(p);
    s.roles.push_back(std::move(role));
  }
  for (const auto& [group, named] : kueue_groups)
    if (named.size() > 1)
      warn(group_at_[group], fmt::format("kueue.x-k8s.io/podset-group-name '{}' is on roles {}: each role is a "
                                         "LeaderWorkerSet of its own, and Kueue groups pod sets only within one "
                                         "workload (a group's leader and workers), so it does not keep the roles "
                                         "together; placementPolicy does",
                                         group, fmt::join(named, ", ")));
  {
    std::string named;
    if (auto m = model_of(engines, named)) {
      s.workload = m->workload;
      warn(doc_at, model_note(*m, named, notes.lengths()));
    }
  }
  apply_service_annotations(notes, s);
  if (sink_.size() != errors) return;
  if (any_external && slices > 1)
    reject(where(slices_node), "spec.slices > 1 is not supported while any role has scaling.mode: External");
  if (zero_replicas > 0 && zero_replicas < static_roles)
    reject(where(roles), "replicas must be zero for all non-External roles or non-zero for all non-External roles");

  // A role's replica is one LWS group: its leader and size - 1 workers.
  std::uint32_t largest = 0;
  {
    const Topology& t = levels_.topology();
    auto [first, last] = t.domains_at(t.host_level());
    for (DomainId n = first; n < last; ++n) largest = std::max(largest, t.domain(n).accelerator_count());
  }
  std::uint64_t pod_count = 0;
  std::vector<ServiceRole> kept;
  for (std::size_t i = 0; i < s.roles.size(); ++i) {
    ServiceRole& role = s.roles[i];
    RolePods p = pods[i];
    if (!any_accelerators) p.leader = p.worker = 1;
    if (std::max(p.leader, p.worker) > largest)
      reject(s.where, fmt::format("the pods of role '{}' ask for {} accelerators per pod, but the largest node of "
                                  "topology '{}' has {}; they can never be scheduled",
                                  role.name, std::max(p.leader, p.worker), levels_.topology().name(), largest));
    const std::uint64_t per_replica = p.leader + std::uint64_t{p.size - 1} * p.worker;
    role.per_replica = static_cast<std::uint32_t>(std::min<std::uint64_t>(per_replica, 100'000'001));
    pod_count += std::uint64_t{role.replicas} * p.size;
    // One engine per group: TP inside each pod, PP across the group's pods
    // (vLLM's and SGLang's multi-node layout) when every pod is alike.
    if (any_accelerators && p.leader == p.worker && p.worker > 0) {
      role.parallelism.tp = p.worker;
      role.parallelism.pp = p.size;
    } else {
      role.parallelism.dp = std::max(1u, role.per_replica);
    }
    if (role.replicas > 0 && role.per_replica > 0) kept.push_back(role);
  }
  s.roles = std::move(kept);
  std::uint64_t per_slice = 0;
  for (const ServiceRole& role : s.roles) per_slice += std::uint64_t{role.replicas} * role.per_replica;
  if (per_slice > 100'000'000)
    reject(doc_at, fmt::format("{} accelerators a slice are more than topoplan plans (100000000)", per_slice));
  if (!any_accelerators && pod_count > 0)
    warn(doc_at, fmt::format("no role asks for nvidia.com/gpu or amd.com/gpu; each of the {} pod{} of a slice counts "
                             "as one accelerator",
                             pod_count, pod_count == 1 ? "" : "s"));
  if (!rejections_.empty()) {
    for (Diagnostic& d : rejections_) out_.rejections.push_back(std::move(d));
    return;
  }
  if (s.roles.empty()) {
    warn(doc_at, "every role has 0 replicas; nothing to place");
    return;
  }

  Job job;
  job.name = name_;
  job.kind = JobKind::inference;
  job.where = doc_at;
  if (auto q = string(meta["labels"]["kueue.x-k8s.io/queue-name"], "kueue.x-k8s.io/queue-name"))
    job.queue = *q;
  if (auto c = string(meta["annotations"][kPerfClass], kPerfClass); c && !c->empty()) {
    job.perf_class = *c;
    job.perf_class_where = where(meta["annotations"][kPerfClass]);
  }
  if (level) {
    const std::string name = levels_.level_name(*level);
    if (type == "ExclusiveTopology") {
      job.exclusive_level = name;
      job.level_where.exclusive_level = level_at;
    } else {
      job.required = name;
      job.level_where.required = level_at;
      if (slices > 1) {
        job.spread = name;
        job.level_where.spread = level_at;
      }
    }
  }
  attach_service(job, std::move(service));
  out_.jobs.push_back(std::move(job));
}

}  // namespace

void read_disaggregated_set(const yaml::Node& doc, const std::string& file, const LevelMap& levels, ManifestJobs& out,
                            DiagnosticSink& sink) {
  DisaggregatedSetReader(file, levels, out, sink).read(doc);
}

}  // namespace topoplan
