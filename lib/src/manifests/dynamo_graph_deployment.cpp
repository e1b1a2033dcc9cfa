// NVIDIA Dynamo's DynamoGraphDeployment (nvidia.com/v1alpha1 and v1beta1)
// read as a service (placement/service.hpp). Dynamo lowers a graph to one
// Grove PodCliqueSet of one replica, so the graph is one slice; each
// component that asks for GPUs is a role (its replicas, each of
// multinode.nodeCount pods), the others (frontend, router, planner) run on
// CPUs and are not placed. The deployment's topologyConstraint.packDomain
// packs the whole graph; a component's packs that component (its pods, or
// each replica of a multi-node one) and is the slice's pack only when the
// component alone is the slice. spec.experimental.kvTransferPolicy is the
// service's KV hand-over policy: every domain of its label's level that
// holds prefill holds decode.
//
// The two versions: v1alpha1 has spec.services (a map of name to
// componentType, subComponentType, replicas, multinode, resources.limits.gpu,
// extraPodSpec.mainContainer, topologyConstraint) and
// spec.topologyConstraint.topologyProfile; v1beta1 has spec.components (a
// list with name, type, replicas, multinode, podTemplate,
// topologyConstraint) and spec.topologyConstraint.clusterTopologyName. The
// domain names resolve through that Grove ClusterTopology(Binding) when the
// inputs hold it, else as topology level names.
//
// What Dynamo's webhook or its CRD refuses is a rejection (`check` fails):
// a constraint without the topology's name, a component constraint without
// packDomain or broader than the deployment's, a domain the ClusterTopology
// lacks, more than 25 components, v1beta1 component names that are not
// unique (case-insensitively) or not DNS-like, a kvTransferPolicy without
// labelKey or domain, with another enforcement than required or preferred,
// or preferredWeight given without preferred, missing with it, or outside 0
// to 1.
//
// Sources (read, not copied): ai-dynamo/dynamo docs/kubernetes/
// topology-aware-scheduling.md and topology-aware-kv-transfer.md @ 3c426420;
// deploy/operator/api/v1beta1/dynamographdeployment_types.go and
// dynamocomponentdeployment_types.go; docs/kubernetes/api-reference.md
// (v1alpha1 DynamoComponentDeploymentSharedSpec, Resources, MultinodeSpec);
// examples/backends/*/deploy/ (disagg.yaml, disagg-multinode.yaml).
#include <algorithm>
#include <cctype>
#include <memory>

#include <fmt/format.h>

#include "../io/yaml_support.hpp"
#include "engine_flags.hpp"
#include "grove_domains.hpp"
#include "manifest_readers.hpp"
#include "pod_spec.hpp"
#include "service_annotations.hpp"
#include "workload.hpp"
#include "topoplan/placement/service.hpp"
#include "topoplan/support/ascii.hpp"

namespace topoplan {

namespace {

constexpr long long kMaxCount = 1'000'000;
constexpr std::size_t kMaxComponents = 25;  // MaxProperties / MaxItems of services / components

struct Component {
  std::string name;
  std::string type;  // componentType (v1alpha1) or type (v1beta1)
  std::string sub;   // subComponentType (v1alpha1)
  std::uint32_t replicas = 1;
  std::uint32_t nodes = 1;  // multinode.nodeCount
  std::uint32_t gpus = 0;   // per pod
  EngineFlags flags;
  std::vector<std::string> args;    // of a planner, for its targets
  std::optional<std::string> pack;  // topologyConstraint.packDomain
  SourceLocation pack_at;
  bool constrained = false;  // has a topologyConstraint
  SourceLocation where;
};

// v1beta1 component names: ^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?$, at most 63.
bool component_name_ok(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  if (!alnum(name.front()) || !alnum(name.back())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '-'; });
}

// kvTransferPolicy.domain: ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$.
bool domain_name_ok(std::string_view name) {
  if (name.empty()) return false;
  auto ok = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!ok(name.front()) || !ok(name.back())) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return ok(c) || c == '-'; });
}

class GraphDeploymentReader {
 public:
  GraphDeploymentReader(const std::string& file, const LevelMap& levels, const GroveTopologies& topologies,
                        ManifestJobs& out, DiagnosticSink& sink)
      : file_(file), levels_(levels), domains_(levels, topologies), out_(out), sink_(sink) {}

  void read(const yaml::Node& doc, bool beta);

 private:
  SourceLocation where(const yaml::Node& n) const { return yaml::where(file_, n); }
  void warn(const SourceLocation& at, const std::string& message) {
    out_.warnings.push_back({at, fmt::format("DynamoGraphDeployment '{}': {}", name_, message)});
  }
  void reject(const SourceLocation& at, const std::string& message) {
    rejections_.push_back({at, fmt::format("DynamoGraphDeployment '{}': {}", name_, message)});
  }
  std::optional<std::string> string(const yaml::Node& n, std::string_view what) {
    if (!n.IsDefined() || n.IsNull()) return std::nullopt;
    return yaml::scalar(n, file_, sink_, what);
  }
  // A count of at least `min` (the CRD's Minimum), or `fallback` when absent.
  std::uint32_t count(const yaml::Node& n, std::string_view what, long long min, std::uint32_t fallback) {
    auto text = string(n, what);
    if (!text) return fallback;
    auto v = yaml::parse_integer(*text);
    if (!v) {
      sink_.error(where(n), fmt::format("'{}' must be a whole number, not '{}'", what, *text));
      return fallback;
    }
    if (*v < min) {
      reject(where(n), fmt::format("{}: must be at least {}", what, min));
      return fallback;
    }
    return static_cast<std::uint32_t>(std::min(*v, kMaxCount));
  }
  Component component(const std::string& name, const yaml::Node& spec, bool beta);
  void kv_policy(const yaml::Node& policy, Service& s);

  const std::string& file_;
  const LevelMap& levels_;
  GroveDomains domains_;
  ManifestJobs& out_;
  DiagnosticSink& sink_;
  std::string name_ = "?";
  std::vector<Diagnostic> rejections_;
};

Component GraphDeploymentReader::component(const std::string& name, const yaml::Node& spec, bool beta) {
  Component c;
  c.name = name;
  c.where = where(spec);
  if (!spec.IsMap()) {
    sink_.error(c.where, fmt::format("component '{}' must be a mapping", name));
    return c;
  }
  c.type = string(spec[beta ? "type" : "componentType"], beta ? "type" : "componentType").value_or("");
  if (!beta) c.sub = string(spec["subComponentType"], "subComponentType").value_or("");
  c.replicas = count(spec["replicas"], "replicas", 0, 1);
  yaml::Node multinode = spec["multinode"];
  if (multinode.IsDefined() && !multinode.IsNull() && !multinode.IsMap())
    sink_.error(where(multinode), "'multinode' must be a mapping with nodeCount");
  else if (multinode.IsMap())
    c.nodes = count(multinode["nodeCount"], "multinode.nodeCount", 1, 1);
  // GPUs per pod: v1alpha1 says resources.limits.gpu (or requests.gpu), or a
  // main container's nvidia.com/gpu; v1beta1 has a pod template.
  std::vector<std::string> args;
  long long gpus = 0;
  if (beta) {
    PodSpecInfo info = read_pod_spec(spec["podTemplate"]["spec"], file_, sink_, true);
    gpus = info.requests.value("nvidia.com/gpu") + info.requests.value("amd.com/gpu");
    args = std::move(info.args);
  } else {
    for (const char* key : {"limits", "requests"}) {
      yaml::Node g = spec["resources"][key]["gpu"];
      if (gpus > 0 || !g.IsDefined()) continue;
      auto text = string(g, fmt::format("resources.{}.gpu", key));
      auto v = text ? yaml::parse_integer(*text) : std::nullopt;
      if (text && (!v || *v < 0))
        sink_.error(where(g), fmt::format("'resources.{}.gpu' is a number of GPUs, not '{}'", key, *text));
      else if (v)
        gpus = *v;
    }
    yaml::Node extra = spec["extraPodSpec"];
    if (extra.IsMap()) {
      // extraPodSpec is a PodSpec whose mainContainer joins its containers.
      PodSpecInfo pod = read_pod_spec(extra, file_, sink_, true);
      args = std::move(pod.args);
      PodSpecInfo main = read_container(extra["mainContainer"], file_, sink_, true);
      if (gpus == 0) gpus = main.requests.value("nvidia.com/gpu") + main.requests.value("amd.com/gpu");
      args.insert(args.begin(), main.args.begin(), main.args.end());
      if (gpus == 0) gpus = pod.requests.value("nvidia.com/gpu") + pod.requests.value("amd.com/gpu");
    }
  }
  c.gpus = static_cast<std::uint32_t>(std::clamp<long long>(gpus, 0, kMaxCount));
  c.flags = read_engine_flags(args);
  if (ascii_lower(c.type) == "planner") c.args = std::move(args);
  yaml::Node tc = spec["topologyConstraint"];
  if (tc.IsDefined() && !tc.IsNull()) {
    if (!tc.IsMap()) {
      sink_.error(where(tc), "'topologyConstraint' must be a mapping with packDomain");
    } else {
      c.constrained = true;
      if (yaml::Node d = tc["packDomain"]; d.IsDefined()) {
        c.pack = string(d, "packDomain");
        c.pack_at = where(d);
      } else {
        reject(where(tc), fmt::format("component '{}': topologyConstraint.packDomain is required", name));
      }
    }
  }
  return c;
}

void GraphDeploymentReader::kv_policy(const yaml::Node& policy, Service& s) {
  if (!policy.IsDefined() || policy.IsNull()) return;
  if (!policy.IsMap()) {
    sink_.error(where(policy), "'kvTransferPolicy' must be a mapping with labelKey, domain and enforcement");
    return;
  }
  const SourceLocation at = where(policy);
  auto label = string(policy["labelKey"], "labelKey");
  auto domain = string(policy["domain"], "domain");
  if (!label || label->empty()) reject(at, "kvTransferPolicy.labelKey is required");
  if (!domain || domain->empty())
    reject(at, "kvTransferPolicy.domain is required");
  else if (!domain_name_ok(*domain))
    reject(where(policy["domain"]), fmt::format("kvTransferPolicy.domain '{}' must match "
                                                "^[a-z0-9]([a-z0-9-]*[a-z0-9])?$",
                                                *domain));
  const std::string enforcement = string(policy["enforcement"], "enforcement").value_or("required");
  if (enforcement != "required" && enforcement != "preferred")
    reject(where(policy["enforcement"]),
           fmt::format("kvTransferPolicy.enforcement is required or preferred, not '{}'", enforcement));
  yaml::Node weight = policy["preferredWeight"];
  if (enforcement == "preferred" && !weight.IsDefined())
    reject(at, "kvTransferPolicy.preferredWeight is required with enforcement: preferred");
  if (enforcement != "preferred" && weight.IsDefined())
    reject(where(weight), "kvTransferPolicy.preferredWeight is only valid with enforcement: preferred");
  if (weight.IsDefined()) {
    auto text = string(weight, "preferredWeight");
    auto v = text ? yaml::parse_number(*text) : std::nullopt;
    if (text && !v)
      sink_.error(where(weight), fmt::format("'preferredWeight' must be a number, not '{}'", *text));
    else if (v && (*v < 0 || *v > 1))
      reject(where(weight), fmt::format("kvTransferPolicy.preferredWeight {} must be between 0 and 1", *text));
  }
  if (!label || label->empty()) return;
  if (auto level = levels_.resolve_label(*label, "kvTransferPolicy.labelKey", where(policy["labelKey"]), sink_)) {
    s.kv_level = levels_.level_name(*level);
    s.kv_required = enforcement == "required";
  }
}

void GraphDeploymentReader::read(const yaml::Node& doc, bool beta) {
  const SourceLocation doc_at = where(doc);
  const std::size_t errors = sink_.size();
  yaml::Node meta = doc["metadata"];
  if (auto n = string(meta["name"], "metadata.name"); n && !n->empty()) {
    name_ = *n;
  } else {
    sink_.error(doc_at, "a DynamoGraphDeployment needs metadata.name");
    return;
  }
  yaml::Node spec = doc["spec"];
  const char* list_key = beta ? "components" : "services";
  yaml::Node list = spec[list_key];
  std::vector<Component> components;
  if (!list.IsDefined() || list.IsNull()) {
    warn(doc_at, fmt::format("spec.{} is empty; nothing to place", list_key));
    return;
  }
  if (beta) {
    if (!list.IsSequence()) {
      sink_.error(where(list), "'spec.components' must be a list of components, each with a name");
      return;
    }
    for (const yaml::Node& c : list) {
      const std::string name = string(c["name"], "components[].name").value_or("");
      if (!component_name_ok(name))
        reject(where(c), fmt::format("component name '{}' must be 1 to 63 letters, digits and '-', starting and "
                                     "ending with a letter or digit",
                                     name));
      for (const Component& other : components)
        if (ascii_lower(other.name) == ascii_lower(name))
          reject(where(c), fmt::format("component names must be unique case-insensitively: '{}' and '{}'",
                                       other.name, name));
      components.push_back(component(name, c, true));
    }
  } else {
    if (!list.IsMap()) {
      sink_.error(where(list), "'spec.services' must map service names to their specs");
      return;
    }
    for (const auto& entry : list) {
      const std::string name = entry.first.IsScalar() ? entry.first.Scalar() : "";
      components.push_back(component(name, entry.second, false));
    }
  }
  if (components.size() > kMaxComponents)
    reject(where(list), fmt::format("spec.{}: {} components, at most {}", list_key, components.size(),
                                    kMaxComponents));
  if (sink_.size() != errors) return;

  // The deployment's constraint: the ClusterTopology's name and a default
  // packDomain; a component's is narrower or equal.
  yaml::Node tc = spec["topologyConstraint"];
  const char* profile_key = beta ? "clusterTopologyName" : "topologyProfile";
  std::optional<std::string> pack, profile;
  SourceLocation pack_at, profile_at = where(tc);
  if (tc.IsDefined() && !tc.IsNull()) {
    if (!tc.IsMap()) {
      sink_.error(where(tc), fmt::format("'topologyConstraint' must be a mapping with {} and packDomain", profile_key));
      return;
    }
    profile = string(tc[profile_key], profile_key);
    if (tc[profile_key].IsDefined()) profile_at = where(tc[profile_key]);
    pack = string(tc["packDomain"], "packDomain");
    pack_at = where(tc["packDomain"]);
  }
  const bool any_constraint =
      tc.IsDefined() || std::any_of(components.begin(), components.end(), [](const Component& c) { return c.constrained; });
  if (any_constraint && (!profile || profile->empty()))
    reject(tc.IsDefined() ? where(tc) : doc_at,
           fmt::format("spec.topologyConstraint.{} is required when any topology constraint is set", profile_key));
  if (profile && !profile->empty() && !domains_.select(*profile))
    warn(profile_at, fmt::format("ClusterTopology '{}' is not among the inputs; its domains are read as the levels of "
                                 "topology '{}'",
                                 *profile, levels_.topology().name()));
  auto known = [&](const std::optional<std::string>& d, const SourceLocation& at) {
    if (!d || !domains_.binding() || domains_.rank(*d)) return true;
    reject(at, fmt::format("packDomain '{}' not found in cluster topology '{}' [{}]", *d, domains_.name(),
                           domains_.domain_list()));
    return false;
  };
  known(pack, pack_at);
  for (const Component& c : components) {
    if (!known(c.pack, c.pack_at) || !pack || !c.pack) continue;
    auto parent = domains_.rank(*pack);
    auto child = domains_.rank(*c.pack);
    if (parent && child && *child < *parent)
      reject(c.pack_at, fmt::format("component '{}': packDomain '{}' is broader than the deployment's '{}'", c.name,
                                    *c.pack, *pack));
  }

  // Roles: the components with GPUs that run (replicas > 0).
  auto service = std::make_shared<Service>();
  const ServiceAnnotations notes = read_service_annotations(meta["annotations"], file_, sink_);
  Service& s = *service;
  s.where = doc_at;
  std::uint32_t largest = 0;
  {
    const Topology& t = levels_.topology();
    auto [first, last] = t.domains_at(t.host_level());
    for (DomainId n = first; n < last; ++n) largest = std::max(largest, t.domain(n).accelerator_count());
  }
  std::vector<const Component*> placed;
  for (const Component& c : components) {
    if (c.gpus == 0 || c.replicas == 0) continue;
    if (c.gpus > largest)
      reject(c.where, fmt::format("the pods of component '{}' ask for {} GPUs each, but the largest node of topology "
                                  "'{}' has {}; they can never be scheduled",
                                  c.name, c.gpus, levels_.topology().name(), largest));
    ServiceRole role;
    role.name = c.name;
    role.replicas = c.replicas;
    role.per_replica = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{c.gpus} * c.nodes, kMaxCount));
    const RolePhase typed = phase_named(c.sub.empty() ? c.type : c.sub);
    role.phase = typed != RolePhase::other ? typed : infer_role_phase({c.name}, c.flags);
    // The engine's own sizes when they account for every GPU of a replica;
    // else one engine with TP inside each pod and PP across the pods.
    const EngineFlags& f = c.flags;
    const std::uint32_t tp = f.tp ? f.tp : c.gpus, pp = f.pp ? f.pp : 1, dp = f.dp ? f.dp : 1;
    if ((f.tp || f.pp || f.dp) && std::uint64_t{tp} * pp * dp == role.per_replica) {
      role.parallelism = {tp, pp, dp, f.ep ? f.ep : 1};
    } else {
      if (f.tp || f.pp || f.dp)
        warn(c.where, fmt::format("component '{}': its engine's tp {} x pp {} x dp {} is not its {} GPUs a replica; "
                                  "planned as tp {} x pp {}",
                                  c.name, tp, pp, dp, role.per_replica, c.gpus, c.nodes));
      role.parallelism = {std::max(c.gpus, 1u), c.nodes, 1, f.ep ? f.ep : 1};
    }
    if (role.parallelism.ep > role.parallelism.ranks()) role.parallelism.ep = 1;
    s.roles.push_back(std::move(role));
    placed.push_back(&c);
  }
  {
    std::vector<EngineFlags> engines;
    for (const Component* c : placed) engines.push_back(c->flags);
    std::string named;
    if (auto m = model_of(engines, named)) {
      s.workload = m->workload;
      warn(doc_at, model_note(*m, named, notes.lengths()));
    }
  }
  // Dynamo's SLA planner scales the graph to its TTFT and ITL targets.
  for (const Component& c : components) {
    if (ascii_lower(c.type) != "planner") continue;
    if (auto targets = planner_targets(c.args)) {
      s.ttft_ms = targets->ttft_ms;
      s.tpot_ms = targets->itl_ms;
      warn(c.where, fmt::format("component '{}' is Dynamo's SLA planner: its targets (TTFT {:g} ms, ITL {:g} ms{}) "
                                "are the service's SLO",
                                c.name, targets->ttft_ms, targets->itl_ms, targets->given ? "" : ", its defaults"));
    }
    break;
  }
  apply_service_annotations(notes, s);
  kv_policy(spec["experimental"]["kvTransferPolicy"], s);
  if (sink_.size() != errors) return;
  if (!rejections_.empty()) {
    for (Diagnostic& d : rejections_) out_.rejections.push_back(std::move(d));
    return;
  }
  if (s.roles.empty()) {
    warn(doc_at, "no component asks for GPUs (resources gpu or nvidia.com/gpu) with replicas above 0; nothing to place");
    return;
  }
  if (s.kv_level && !s.disaggregated())
    warn(where(spec["experimental"]["kvTransferPolicy"]),
         "kvTransferPolicy needs prefill and decode components (subComponentType, type or --disaggregation-mode); "
         "no KV is handed over");

  Job job;
  job.name = name_;
  job.kind = JobKind::inference;
  job.where = doc_at;
  for (std::string_view label : {"kai.scheduler/queue", "kueue.x-k8s.io/queue-name"})
    if (auto q = string(meta["labels"][label], label); q && job.queue.empty()) job.queue = *q;
  if (auto c = string(meta["annotations"][kPerfClass], kPerfClass); c && !c->empty()) {
    job.perf_class = *c;
    job.perf_class_where = where(meta["annotations"][kPerfClass]);
  }
  // The slice's pack: the deployment's, or a component's that alone makes
  // up the slice (a single-node component packs all its pods, a multi-node
  // one each replica).
  std::optional<LevelIndex> required;
  SourceLocation required_at;
  auto tighten = [&](const std::string& domain, const SourceLocation& at) {
    if (auto l = domains_.level_of(domain, at, "ClusterTopology", sink_); l && (!required || *l > *required)) {
      required = l;
      required_at = at;
    }
  };
  if (pack) tighten(*pack, pack_at);
  for (const Component* c : placed) {
    if (!c->pack) continue;
    const bool whole = placed.size() == 1 && (c->nodes == 1 || c->replicas == 1);
    if (whole)
      tighten(*c->pack, c->pack_at);
    else
      warn(c->pack_at, fmt::format("component '{}' packs in '{}' apart from the rest of the graph; topoplan packs "
                                   "whole slices, so this is not honoured",
                                   c->name, *c->pack));
  }
  if (sink_.size() != errors) return;
  if (required) {
    job.required = levels_.level_name(*required);
    job.level_where.required = required_at;
  }
  attach_service(job, std::move(service));
  out_.jobs.push_back(std::move(job));
}

}  // namespace

void read_dynamo_graph_deployment(const yaml::Node& doc, const std::string& file, const LevelMap& levels,
                                  const GroveTopologies& topologies, ManifestJobs& out, DiagnosticSink& sink) {
  const yaml::Node api = doc["apiVersion"];
  const bool beta = api.IsScalar() && api.Scalar() == "nvidia.com/v1beta1";
  GraphDeploymentReader(file, levels, topologies, out, sink).read(doc, beta);
}

}  // namespace topoplan
