// NVIDIA Grove's PodCliqueSet (grove.io/v1alpha1) read as a service
// (placement/service.hpp): each replica of the set is a slice, each clique
// that asks for accelerators a role (its replicas times its scaling group's),
// the set's topologyConstraint.pack the slice's pack. Domain names resolve
// through the ClusterTopologyBinding the constraint names (its levels' node
// labels, then LevelMap), else as topology level names.
//
// What Grove's admission webhook refuses becomes a rejection (`check` fails);
// what topoplan cannot honour (packing one clique or scaling group tighter
// than its slice, several MNNVL groups in one slice) is a warning.
//
// Sources (read, not copied): ai-dynamo/grove operator/api/core/v1alpha1
// (PodCliqueSet, PodCliqueScalingGroupConfig, TopologyConstraint,
// ClusterTopologyBinding with domains region..numa), operator/internal/
// webhook/admission/pcs/validation (podcliqueset.go: replicas and
// minAvailable > 0, minAvailable <= replicas, unidentified clique names,
// nodeName / topologySpreadConstraints must not be set, unique clique,
// roleName and scaling group names, a clique in one scaling group at most;
// topologyconstraints.go: domains must exist in the binding, a child's domain never coarser than its
// parent's, one topologyName per set), operator/internal/mnnvl/webhook.go and
// docs/user-guide/auto-mnnvl.md (grove.io/mnnvl-group: a DNS-1123 label or
// "none", inherited PCS -> PCSG -> PCLQ, one ComputeDomain per group and
// replica, explicit groups refused on cliques without nvidia.com/gpu),
// docs/proposals/244-topology-aware-scheduling; the same podcliqueset.go for
// startsAfter (read with cliqueStartupType CliqueStartupTypeExplicit only, as
// the controller's identifyFullyQualifiedStartupDependencyNames does: no empty,
// self, repeated or unknown clique, no cycle), pod names (validatePodNameConstraints:
// the set's, scaling group's and clique's names at most 45 characters together,
// so that api/common/namegen.go's PCS-i-PCSG-j-PCLQ plus the pod's random suffix
// stays a 63-character label) and schedulerName (validateSchedulerNames: one per
// set, empty meaning the default; api/config/v1alpha1/types.go names the
// backends a profile may enable).
#include <algorithm>
#include <array>
#include <cctype>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "../io/kubernetes_names.hpp"
#include "../io/yaml_support.hpp"
#include "grove_domains.hpp"
#include "manifest_readers.hpp"
#include "engine_flags.hpp"
#include "pod_spec.hpp"
#include "service_annotations.hpp"
#include "workload.hpp"
#include "topoplan/placement/service.hpp"

namespace topoplan {

namespace {

constexpr std::string_view kMnnvlGroup = "grove.io/mnnvl-group";
constexpr std::string_view kMnnvlOptOut = "none";
constexpr long long kMaxCount = 1'000'000;
// validatePodNameConstraints' maxCombinedResourceNameLength.
constexpr std::size_t kMaxCombinedNameLength = 45;
constexpr std::string_view kExplicitStartup = "CliqueStartupTypeExplicit";
constexpr std::array<std::string_view, 3> kStartupTypes = {"CliqueStartupTypeAnyOrder", "CliqueStartupTypeInOrder",
                                                           kExplicitStartup};
// SupportedSchedulerNames; "" is the default profile, default-scheduler
// unless OperatorConfiguration says otherwise.
constexpr std::array<std::string_view, 4> kGroveSchedulers = {"default-scheduler", "kai-scheduler", "lpx-scheduler",
                                                              "volcano"};

// A name as written, with where.
struct Named {
  std::string name;
  SourceLocation where;
};

// One topologyConstraint as written.
struct Constraint {
  std::optional<std::string> required, preferred;
  SourceLocation required_at, preferred_at;
  std::optional<std::string> topology_name;
  SourceLocation topology_at;
  bool given = false;
};

struct Clique {
  std::string name;
  std::string role_name;  // spec.roleName
  std::uint32_t replicas = 1;
  std::uint32_t accelerators = 0;    // per pod
  std::vector<std::string> args;     // its containers' command and args (the engine's flags)
  bool nvidia = false;               // asks for nvidia.com/gpu
  std::optional<std::string> mnnvl;  // its own annotation
  SourceLocation mnnvl_at;
  Constraint constraint;
  SourceLocation where;
  SourceLocation name_at;
  std::vector<Named> starts_after;  // spec.startsAfter
  std::string scheduler;            // podSpec.schedulerName; "" for the default
  SourceLocation scheduler_at;
  int group = -1;  // index of its scaling group
};

struct ScalingGroup {
  std::string name;
  std::uint32_t replicas = 1;
  std::vector<std::string> cliques;
  std::vector<SourceLocation> cliques_at;  // each cliqueNames entry
  std::optional<std::string> mnnvl;
  Constraint constraint;
  SourceLocation where;
};

class PodCliqueSetReader {
 public:
  PodCliqueSetReader(const std::string& file, const LevelMap& levels, const GroveTopologies& topologies,
                     ManifestJobs& out, DiagnosticSink& sink)
      : file_(file), levels_(levels), domains_(levels, topologies), out_(out), sink_(sink) {}

  void read(const yaml::Node& doc);

 private:
  SourceLocation where(const yaml::Node& n) const { return yaml::where(file_, n); }
  void warn(const SourceLocation& at, const std::string& message) {
    out_.warnings.push_back({at, fmt::format("PodCliqueSet '{}': {}", name_, message)});
  }
  void reject(const SourceLocation& at, const std::string& message) {
    rejections_.push_back({at, fmt::format("PodCliqueSet '{}': {}", name_, message)});
  }
  std::optional<std::string> string(const yaml::Node& n, std::string_view what) {
    if (!n.IsDefined() || n.IsNull()) return std::nullopt;
    return yaml::scalar(n, file_, sink_, what);
  }
  // A count as Grove's webhook wants it: given or `fallback`, and > 0.
  std::uint32_t count(const yaml::Node& n, std::string_view what, std::string_view field, std::uint32_t fallback) {
    auto text = string(n, what);
    if (!text) return fallback;
    auto v = yaml::parse_integer(*text);
    if (!v) {
      sink_.error(where(n), fmt::format("'{}' must be a whole number, not '{}'", what, *text));
      return fallback;
    }
    if (*v <= 0) {
      reject(where(n), fmt::format("{}: must be greater than 0", field));
      return fallback;
    }
    return static_cast<std::uint32_t>(std::min(*v, kMaxCount));
  }
  std::optional<std::string> mnnvl_annotation(const yaml::Node& holder, SourceLocation& at);
  Constraint constraint(const yaml::Node& n);
  // The level a domain of the set's binding names; nullopt (reported) when none.
  std::optional<LevelIndex> level_of(const std::string& domain, const SourceLocation& at) {
    return domains_.level_of(domain, at, "ClusterTopologyBinding", sink_);
  }
  // Where `domain` ranks, coarsest first: in the binding, or as a level.
  std::optional<std::size_t> rank(const std::string& domain) const { return domains_.rank(domain); }
  void check_hierarchy(const Constraint& parent, std::string_view parent_what, const Constraint& c,
                       std::string_view what);
  void check_startup(const yaml::Node& tmpl, const std::vector<Clique>& cliques);
  void check_pod_names(const std::vector<Clique>& cliques, const std::vector<ScalingGroup>& groups);
  void check_scheduler(const std::vector<Clique>& cliques);

  const std::string& file_;
  const LevelMap& levels_;
  GroveDomains domains_;  // the set's topologyName's binding, once known
  ManifestJobs& out_;
  DiagnosticSink& sink_;
  std::string name_ = "?";
  std::vector<Diagnostic> rejections_;
};

std::optional<std::string> PodCliqueSetReader::mnnvl_annotation(const yaml::Node& holder, SourceLocation& at) {
  yaml::Node n = holder["annotations"][kMnnvlGroup];
  if (!n.IsDefined()) return std::nullopt;
  auto v = string(n, kMnnvlGroup);
  at = where(n);
  if (v && *v != kMnnvlOptOut && !is_dns1123_label(*v))
    reject(at, fmt::format("{} '{}' must be \"none\" or a DNS-1123 label (lowercase letters, digits and '-', at most "
                           "63)",
                           kMnnvlGroup, *v));
  return v;
}

Constraint PodCliqueSetReader::constraint(const yaml::Node& n) {
  Constraint c;
  if (!n.IsDefined() || n.IsNull()) return c;
  if (!n.IsMap()) {
    sink_.error(where(n), "'topologyConstraint' must be a mapping");
    return c;
  }
  c.given = true;
  if (yaml::Node t = n["topologyName"]; t.IsDefined()) {
    c.topology_name = string(t, "topologyName");
    c.topology_at = where(t);
  }
  yaml::Node pack = n["pack"];
  yaml::Node required = pack["required"];
  yaml::Node preferred = pack["preferred"];
  // packDomain: the deprecated spelling of pack.required.
  if (!required.IsDefined()) required.reset(n["packDomain"]);
  if (required.IsDefined()) {
    c.required = string(required, "pack.required");
    c.required_at = where(required);
  }
  if (preferred.IsDefined()) {
    c.preferred = string(preferred, "pack.preferred");
    c.preferred_at = where(preferred);
  }
  return c;
}

// Grove refuses a child constraint whose domain is coarser than its parent's
// (validateHierarchicalTopologyConstraints), required and preferred apart.
void PodCliqueSetReader::check_hierarchy(const Constraint& parent, std::string_view parent_what, const Constraint& c,
                                         std::string_view what) {
  auto check = [&](const std::optional<std::string>& p, const std::optional<std::string>& ch,
                   const SourceLocation& at) {
    if (!p || !ch) return;
    auto pr = rank(*p);
    auto cr = rank(*ch);
    if (pr && cr && *pr > *cr)
      reject(at, fmt::format("{} topology constraint domain '{}' is narrower than {} topology constraint domain '{}'",
                             parent_what, *p, what, *ch));
  };
  check(parent.required, c.required, c.required_at);
  check(parent.preferred, c.preferred, c.preferred_at);
}

// Grove orders clique starts by startsAfter only when the set says
// CliqueStartupTypeExplicit; then every dependency must name another clique,
// once, and the dependencies must form no cycle (validateCliqueDependencies).
void PodCliqueSetReader::check_startup(const yaml::Node& tmpl, const std::vector<Clique>& cliques) {
  bool explicit_order = false;
  if (yaml::Node type = tmpl["cliqueStartupType"]; type.IsDefined() && !type.IsNull()) {
    const std::string value = string(type, "cliqueStartupType").value_or("");
    if (std::find(kStartupTypes.begin(), kStartupTypes.end(), value) == kStartupTypes.end())
      reject(where(type), fmt::format("cliqueStartupType '{}' is none of {}", value, fmt::join(kStartupTypes, ", ")));
    explicit_order = value == kExplicitStartup;
  }
  if (!explicit_order) {
    for (const Clique& q : cliques)
      if (!q.starts_after.empty())
        warn(q.starts_after.front().where,
             fmt::format("clique '{}': startsAfter is followed only with cliqueStartupType {}; Grove ignores it here",
                         q.name, kExplicitStartup));
    return;
  }
  auto index_of = [&](std::string_view name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < cliques.size(); ++i)
      if (cliques[i].name == name) return i;
    return std::nullopt;
  };
  // after[i]: the cliques clique i starts after, by index.
  std::vector<std::vector<std::size_t>> after(cliques.size());
  for (std::size_t i = 0; i < cliques.size(); ++i) {
    const Clique& q = cliques[i];
    std::set<std::string> seen;
    for (const Named& d : q.starts_after) {
      if (d.name.empty()) {
        reject(d.where, fmt::format("clique '{}': a startsAfter entry must not be empty", q.name));
      } else if (d.name == q.name) {
        reject(d.where, fmt::format("clique '{}' cannot start after itself", q.name));
      } else if (!seen.insert(d.name).second) {
        reject(d.where, fmt::format("clique '{}' starts after '{}' twice", q.name, d.name));
      } else if (auto j = index_of(d.name)) {
        after[i].push_back(*j);
      } else {
        reject(d.where, fmt::format("clique '{}' starts after '{}', which is no clique of the set", q.name, d.name));
      }
    }
  }
  // A cycle: a depth-first walk that meets a clique still on its path. Each
  // cycle is reported once, at the startsAfter entry that closes it.
  enum class Mark : unsigned char { unseen, on_path, done };
  std::vector<Mark> mark(cliques.size(), Mark::unseen);
  std::vector<std::size_t> path;
  auto walk = [&](auto& self, std::size_t i) -> void {
    mark[i] = Mark::on_path;
    path.push_back(i);
    for (std::size_t k = 0; k < after[i].size(); ++k) {
      const std::size_t j = after[i][k];
      if (mark[j] == Mark::on_path) {
        std::vector<std::string> names;
        for (auto it = std::find(path.begin(), path.end(), j); it != path.end(); ++it)
          names.push_back(cliques[*it].name);
        names.push_back(cliques[j].name);
        // The entry of clique i that names j.
        SourceLocation at = cliques[i].where;
        for (const Named& d : cliques[i].starts_after)
          if (d.name == cliques[j].name) at = d.where;
        reject(at, fmt::format("cliques start after each other in a cycle ({}); startsAfter must not be circular",
                               fmt::join(names, " -> ")));
      } else if (mark[j] == Mark::unseen) {
        self(self, j);
      }
    }
    path.pop_back();
    mark[i] = Mark::done;
  };
  for (std::size_t i = 0; i < cliques.size(); ++i)
    if (mark[i] == Mark::unseen) walk(walk, i);
}

// Grove names a clique's pods SET-i-CLIQUE-xxxxx, or SET-i-GROUP-j-CLIQUE-xxxxx
// in a scaling group (namegen.go, the pod's GenerateName), and refuses a set
// whose names together pass 45 characters.
void PodCliqueSetReader::check_pod_names(const std::vector<Clique>& cliques, const std::vector<ScalingGroup>& groups) {
  for (const Clique& q : cliques) {
    if (q.group >= 0) continue;
    if (!is_dns1123_subdomain(q.name))
      reject(q.name_at,
             fmt::format("clique name '{}' is no DNS-1123 subdomain (lowercase letters, digits, '-' and '.')", q.name));
    const std::size_t length = name_.size() + q.name.size();
    if (length > kMaxCombinedNameLength)
      reject(q.name_at,
             fmt::format("pods of clique '{}' would be named {}-0-{}-xxxxx: the set's and the clique's names "
                         "are {} characters together, more than the {} Grove allows for pod names",
                         q.name, name_, q.name, length, kMaxCombinedNameLength));
  }
  for (const ScalingGroup& g : groups) {
    if (!is_dns1123_subdomain(g.name))
      reject(g.where,
             fmt::format("scaling group name '{}' is no DNS-1123 subdomain (lowercase letters, digits, '-' and "
                         "'.')",
                         g.name));
    for (std::size_t k = 0; k < g.cliques.size(); ++k) {
      const std::string& clique = g.cliques[k];
      if (!is_dns1123_subdomain(clique))
        reject(g.cliques_at[k], fmt::format("clique name '{}' is no DNS-1123 subdomain (lowercase letters, digits, '-' "
                                            "and '.')",
                                            clique));
      const std::size_t length = name_.size() + g.name.size() + clique.size();
      if (length > kMaxCombinedNameLength)
        reject(g.cliques_at[k],
               fmt::format("pods of clique '{}' would be named {}-0-{}-0-{}-xxxxx: the set's, scaling group's and "
                           "clique's names are {} characters together, more than the {} Grove allows for pod names",
                           clique, name_, g.name, clique, length, kMaxCombinedNameLength));
    }
  }
}

// One scheduler for all of a set's pods, and one Grove can enable. An empty
// schedulerName is OperatorConfiguration's default profile, which only the
// cluster knows: beside a named one it is a warning, not a refusal.
void PodCliqueSetReader::check_scheduler(const std::vector<Clique>& cliques) {
  const Clique* named = nullptr;
  const Clique* unnamed = nullptr;
  for (const Clique& q : cliques) {
    if (q.scheduler.empty()) {
      if (!unnamed) unnamed = &q;
      continue;
    }
    if (!named) {
      named = &q;
      if (std::find(kGroveSchedulers.begin(), kGroveSchedulers.end(), q.scheduler) == kGroveSchedulers.end())
        reject(q.scheduler_at, fmt::format("schedulerName '{}' is no scheduler Grove can enable ({})", q.scheduler,
                                           fmt::join(kGroveSchedulers, ", ")));
    } else if (q.scheduler != named->scheduler) {
      reject(q.scheduler_at, fmt::format("clique '{}' is scheduled by '{}' and clique '{}' by '{}'; all pods of a "
                                         "PodCliqueSet must have the same schedulerName",
                                         q.name, q.scheduler, named->name, named->scheduler));
    }
  }
  if (named && unnamed)
    warn(unnamed->where, fmt::format("clique '{}' gives no schedulerName and clique '{}' gives '{}'; Grove accepts the "
                                     "set only when '{}' is its default scheduler profile",
                                     unnamed->name, named->name, named->scheduler, named->scheduler));
}

void PodCliqueSetReader::read(const yaml::Node& doc) {
  const SourceLocation doc_at = where(doc);
  const std::size_t errors = sink_.size();
  yaml::Node meta = doc["metadata"];
  if (auto n = string(meta["name"], "metadata.name"); n && !n->empty()) {
    name_ = *n;
  } else {
    sink_.error(doc_at, "PodCliqueSet needs metadata.name");
    return;
  }
  yaml::Node spec = doc["spec"];
  yaml::Node tmpl = spec["template"];
  if (!tmpl.IsMap()) {
    sink_.error(spec.IsDefined() ? where(spec) : doc_at, "a PodCliqueSet needs spec.template with its cliques");
    return;
  }
  // spec.replicas defaults to 1 in the CRD; 0 is a scaled-down set.
  std::uint32_t slices = 1;
  if (auto r = string(spec["replicas"], "replicas")) {
    auto v = yaml::parse_integer(*r);
    if (!v || *v < 0 || *v > kMaxCount) {
      sink_.error(where(spec["replicas"]),
                  fmt::format("'replicas' must be a whole number from 0 to {}, not '{}'", kMaxCount, *r));
      return;
    }
    slices = static_cast<std::uint32_t>(*v);
  }
  SourceLocation set_mnnvl_at;
  const std::optional<std::string> set_mnnvl = mnnvl_annotation(meta, set_mnnvl_at);
  const Constraint set_constraint = constraint(tmpl["topologyConstraint"]);

  // Cliques, in manifest order.
  std::vector<Clique> cliques;
  yaml::Node cliques_node = tmpl["cliques"];
  if (!cliques_node.IsDefined() || !cliques_node.IsSequence() || cliques_node.size() == 0) {
    reject(cliques_node.IsDefined() ? where(cliques_node) : where(tmpl),
           "spec.template.cliques: at least one PodClique must be defined");
  } else {
    for (const yaml::Node& c : cliques_node) {
      Clique q;
      q.where = where(c);
      q.name = string(c["name"], "cliques[].name").value_or("");
      q.name_at = c["name"].IsDefined() ? where(c["name"]) : q.where;
      if (q.name.empty()) {
        reject(q.where, "spec.template.cliques[].name: a clique needs a name");
        continue;
      }
      for (const Clique& other : cliques)
        if (other.name == q.name) reject(q.where, fmt::format("clique name '{}' is given twice", q.name));
      yaml::Node cs = c["spec"];
      q.role_name = string(cs["roleName"], "roleName").value_or("");
      for (const Clique& other : cliques)
        if (!q.role_name.empty() && other.role_name == q.role_name)
          reject(where(cs["roleName"]),
                 fmt::format("cliques '{}' and '{}' have the same roleName '{}'", other.name, q.name, q.role_name));
      q.replicas = count(cs["replicas"], "replicas", fmt::format("clique '{}' replicas", q.name), 1);
      if (yaml::Node m = cs["minAvailable"]; m.IsDefined()) {
        const std::uint32_t min = count(m, "minAvailable", fmt::format("clique '{}' minAvailable", q.name), 1);
        if (min > q.replicas)
          reject(where(m), fmt::format("clique '{}': minAvailable {} must not be greater than replicas {}", q.name, min,
                                       q.replicas));
      }
      if (yaml::Node after = cs["startsAfter"]; after.IsDefined() && !after.IsNull()) {
        if (!after.IsSequence())
          sink_.error(where(after), "'startsAfter' must be a list of clique names");
        else
          for (const yaml::Node& n : after)
            q.starts_after.push_back({string(n, "startsAfter[]").value_or(""), where(n)});
      }
      yaml::Node pod = cs["podSpec"];
      if (yaml::Node sched = pod["schedulerName"]; sched.IsDefined()) {
        q.scheduler = string(sched, "schedulerName").value_or("");
        q.scheduler_at = where(sched);
      }
      for (std::string_view forbidden : {"nodeName", "topologySpreadConstraints"})
        if (pod[forbidden].IsDefined())
          reject(where(pod[forbidden]),
                 fmt::format("clique '{}': podSpec.{} must not be set", q.name, forbidden));
      PodSpecInfo info = read_pod_spec(pod, file_, sink_, true);
      q.args = std::move(info.args);
      const long long nvidia = info.requests.value("nvidia.com/gpu");
      const long long amd = info.requests.value("amd.com/gpu");
      q.nvidia = nvidia > 0;
      q.accelerators = static_cast<std::uint32_t>(std::clamp<long long>(nvidia + amd, 0, kMaxCount));
      q.mnnvl = mnnvl_annotation(c, q.mnnvl_at);
      q.constraint = constraint(c["topologyConstraint"]);
      cliques.push_back(std::move(q));
    }
  }
  auto find_clique = [&](std::string_view name) -> Clique* {
    for (Clique& q : cliques)
      if (q.name == name) return &q;
    return nullptr;
  };

  std::vector<ScalingGroup> groups;
  yaml::Node groups_node = tmpl["podCliqueScalingGroups"];
  if (groups_node.IsDefined() && !groups_node.IsNull() && !groups_node.IsSequence())
    sink_.error(where(groups_node), "'podCliqueScalingGroups' must be a list");
  else if (groups_node.IsSequence())
    for (const yaml::Node& g : groups_node) {
      ScalingGroup sg;
      sg.where = where(g);
      sg.name = string(g["name"], "podCliqueScalingGroups[].name").value_or("?");
      for (const ScalingGroup& other : groups)
        if (other.name == sg.name) reject(sg.where, fmt::format("scaling group name '{}' is given twice", sg.name));
      sg.replicas = count(g["replicas"], "replicas", fmt::format("scaling group '{}' replicas", sg.name), 1);
      if (yaml::Node m = g["minAvailable"]; m.IsDefined()) {
        const std::uint32_t min = count(m, "minAvailable", fmt::format("scaling group '{}' minAvailable", sg.name), 1);
        if (min > sg.replicas)
          reject(where(m), fmt::format("scaling group '{}': minAvailable {} must not be greater than replicas {}",
                                       sg.name, min, sg.replicas));
      }
      std::vector<std::string> unknown;
      yaml::Node names = g["cliqueNames"];
      if (names.IsSequence())
        for (const yaml::Node& n : names) {
          std::string name = string(n, "cliqueNames[]").value_or("");
          Clique* q = find_clique(name);
          if (!q) {
            unknown.push_back(name);
            continue;
          }
          if (q->group == static_cast<int>(groups.size()))  // this group, which is not in `groups` yet
            reject(where(n), fmt::format("scaling group '{}' lists clique '{}' twice", sg.name, name));
          else if (q->group >= 0)
            reject(where(n), fmt::format("clique '{}' is in scaling groups '{}' and '{}'", name,
                                         groups[static_cast<std::size_t>(q->group)].name, sg.name));
          else
            q->group = static_cast<int>(groups.size());
          sg.cliques.push_back(name);
          sg.cliques_at.push_back(where(n));
        }
      if (!unknown.empty())
        reject(where(names.IsDefined() ? names : g),
               fmt::format("scaling group '{}': unidentified PodClique names found: {}", sg.name,
                           fmt::join(unknown, ",")));
      SourceLocation unused;
      sg.mnnvl = mnnvl_annotation(g, unused);
      sg.constraint = constraint(g["topologyConstraint"]);
      groups.push_back(std::move(sg));
    }
  if (sink_.size() != errors) return;
  check_startup(tmpl, cliques);
  check_pod_names(cliques, groups);
  check_scheduler(cliques);

  // One ClusterTopologyBinding per set: every topologyName the same, given
  // where no parent's can be inherited.
  std::optional<std::string> topology_name = set_constraint.topology_name;
  SourceLocation topology_at = set_constraint.topology_at;
  auto take_name = [&](const Constraint& c, bool can_inherit) {
    if (!c.given) return;
    if (!c.topology_name) {
      if (!can_inherit || !set_constraint.topology_name)
        reject(c.required_at.line ? c.required_at : c.preferred_at,
               "topologyName is required when topologyConstraint is set and cannot be inherited");
      return;
    }
    if (!topology_name) {
      topology_name = c.topology_name;
      topology_at = c.topology_at;
    } else if (*topology_name != *c.topology_name) {
      reject(c.topology_at, "all topologyConstraint.topologyName values within a PodCliqueSet must match");
    }
  };
  take_name(set_constraint, false);
  for (const ScalingGroup& g : groups) take_name(g.constraint, true);
  for (const Clique& q : cliques) take_name(q.constraint, true);
  if (topology_name) {
    if (!domains_.select(*topology_name))
      warn(topology_at, fmt::format("ClusterTopologyBinding '{}' is not among the inputs; its domains are read as "
                                    "the levels of topology '{}'",
                                    *topology_name, levels_.topology().name()));
  }
  // Every domain named must be a level of the binding.
  auto check_domain = [&](const std::optional<std::string>& d, const SourceLocation& at) {
    if (!d || !domains_.binding() || rank(*d)) return;
    reject(at, fmt::format("topology domain '{}' does not exist in cluster topology '{}' [{}]", *d, *topology_name,
                           domains_.domain_list()));
  };
  auto check_domains = [&](const Constraint& c) {
    check_domain(c.required, c.required_at);
    check_domain(c.preferred, c.preferred_at);
  };
  check_domains(set_constraint);
  for (const ScalingGroup& g : groups) check_domains(g.constraint);
  for (const Clique& q : cliques) check_domains(q.constraint);
  for (const ScalingGroup& g : groups)
    check_hierarchy(set_constraint, "PodCliqueSet", g.constraint, fmt::format("PodCliqueScalingGroup '{}'", g.name));
  for (const Clique& q : cliques) {
    check_hierarchy(set_constraint, "PodCliqueSet", q.constraint, fmt::format("PodClique '{}'", q.name));
    if (q.group >= 0) {
      const ScalingGroup& g = groups[static_cast<std::size_t>(q.group)];
      check_hierarchy(g.constraint, fmt::format("PodCliqueScalingGroup '{}'", g.name), q.constraint,
                      fmt::format("PodClique '{}'", q.name));
    }
  }

  // MNNVL: each clique's effective group (its own, its scaling group's, the
  // set's); a group named on a clique without NVIDIA GPUs is refused.
  std::set<std::string> mnnvl_groups;
  for (const Clique& q : cliques) {
    if (q.mnnvl && *q.mnnvl != kMnnvlOptOut && !q.nvidia)
      reject(q.mnnvl_at,
             fmt::format("clique '{}' asks for {} '{}' but for no nvidia.com/gpu", q.name, kMnnvlGroup, *q.mnnvl));
    std::optional<std::string> effective = q.mnnvl;
    if (!effective && q.group >= 0) effective = groups[static_cast<std::size_t>(q.group)].mnnvl;
    if (!effective) effective = set_mnnvl;
    if (q.nvidia) mnnvl_groups.insert(effective && *effective != kMnnvlOptOut ? *effective : std::string());
  }

  // Roles: the cliques that ask for accelerators; without any, every pod
  // counts one (as for the other Kubernetes workloads).
  auto service = std::make_shared<Service>();
  const ServiceAnnotations notes = read_service_annotations(meta["annotations"], file_, sink_);
  Service& s = *service;
  s.where = doc_at;
  s.slices = slices;
  bool any_accelerators = false;
  for (const Clique& q : cliques) any_accelerators = any_accelerators || q.accelerators > 0;
  std::uint32_t largest = 0;
  {
    const Topology& t = levels_.topology();
    auto [first, last] = t.domains_at(t.host_level());
    for (DomainId n = first; n < last; ++n) largest = std::max(largest, t.domain(n).accelerator_count());
  }
  std::uint64_t pods = 0;
  for (const Clique& q : cliques) {
    if (any_accelerators && q.accelerators == 0) continue;
    ServiceRole role;
    role.name = q.name;
    role.phase = infer_role_phase(
        {q.name, q.role_name, q.group >= 0 ? std::string_view(groups[static_cast<std::size_t>(q.group)].name) : ""},
        read_engine_flags(q.args));
    const std::uint64_t replicas =
        std::uint64_t{q.replicas} * (q.group >= 0 ? groups[static_cast<std::size_t>(q.group)].replicas : 1);
    role.replicas = static_cast<std::uint32_t>(std::min<std::uint64_t>(replicas, kMaxCount));
    role.per_replica = any_accelerators ? q.accelerators : 1;
    // A serving pod's GPUs run one engine, tensor parallel across them (the
    // usual vLLM, SGLang and TensorRT-LLM pod); Grove does not say more.
    role.parallelism.tp = role.per_replica;
    pods += role.replicas;
    if (role.per_replica > largest)
      reject(q.where, fmt::format("the pods of clique '{}' ask for {} accelerators per pod, but the largest node of "
                                  "topology '{}' has {}; they can never be scheduled",
                                  q.name, role.per_replica, levels_.topology().name(), largest));
    s.roles.push_back(std::move(role));
  }
  {
    std::vector<EngineFlags> engines;
    for (const Clique& q : cliques)
      if (!any_accelerators || q.accelerators > 0) engines.push_back(read_engine_flags(q.args));
    std::string named;
    if (auto m = model_of(engines, named)) {
      s.workload = m->workload;
      warn(doc_at, model_note(*m, named, notes.lengths()));
    }
  }
  apply_service_annotations(notes, s);
  std::uint64_t per_slice = 0;
  for (const ServiceRole& role : s.roles) per_slice += std::uint64_t{role.replicas} * role.per_replica;
  if (per_slice > 100'000'000)
    reject(doc_at, fmt::format("{} accelerators a slice are more than topoplan plans (100000000)", per_slice));
  if (!any_accelerators && !cliques.empty())
    warn(doc_at, fmt::format("no clique asks for nvidia.com/gpu or amd.com/gpu; each of the {} pod{} of a slice counts "
                             "as one accelerator",
                             pods, pods == 1 ? "" : "s"));
  if (!rejections_.empty()) {
    for (Diagnostic& d : rejections_) out_.rejections.push_back(std::move(d));
    return;
  }
  if (slices == 0) {
    warn(doc_at, "replicas is 0; nothing to place");
    return;
  }

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

  // The slice's pack: the set's constraint, and a scaling group's or
  // clique's when it alone holds the whole slice; tighter packing of part of
  // a slice is not honoured.
  std::optional<LevelIndex> required, preferred;
  SourceLocation required_at, preferred_at;
  auto tighten = [&](const Constraint& c) {
    if (c.required)
      if (auto l = level_of(*c.required, c.required_at); l && (!required || *l > *required)) {
        required = l;
        required_at = c.required_at;
      }
    if (c.preferred)
      if (auto l = level_of(*c.preferred, c.preferred_at); l && (!preferred || *l > *preferred)) {
        preferred = l;
        preferred_at = c.preferred_at;
      }
  };
  tighten(set_constraint);
  auto partial = [&](const Constraint& c, const std::string& what) {
    for (const auto& [domain, at] : {std::pair{c.required, c.required_at}, std::pair{c.preferred, c.preferred_at}})
      if (domain)
        warn(at, fmt::format("{} packs in '{}' apart from the rest of its slice; topoplan packs whole slices, so "
                             "this is not honoured",
                             what, *domain));
  };
  const bool one_role = s.roles.size() == 1;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const ScalingGroup& g = groups[i];
    if (!g.constraint.given) continue;
    bool all_roles = g.replicas == 1;
    for (const ServiceRole& role : s.roles) {
      const Clique* q = find_clique(role.name);
      all_roles = all_roles && q && q->group == static_cast<int>(i);
    }
    if (all_roles)
      tighten(g.constraint);
    else
      partial(g.constraint, fmt::format("scaling group '{}'", g.name));
  }
  for (const Clique& q : cliques) {
    if (!q.constraint.given) continue;
    const bool whole = one_role && s.roles.front().name == q.name && s.roles.front().replicas == 1;
    if (whole)
      tighten(q.constraint);
    else if (!any_accelerators || q.accelerators > 0)
      partial(q.constraint, fmt::format("clique '{}'", q.name));
  }
  if (sink_.size() != errors) return;
  if (required && preferred && *preferred <= *required) preferred.reset();
  if (required) {
    job.required = levels_.level_name(*required);
    job.level_where.required = required_at;
  }
  if (preferred) {
    job.preferred = levels_.level_name(*preferred);
    job.level_where.preferred = preferred_at;
  }

  // One MNNVL group for all GPU cliques: the slice's pods share one
  // ComputeDomain, so they are best kept in one NVLink domain.
  const bool some_outside = mnnvl_groups.erase(std::string()) > 0;
  if (!mnnvl_groups.empty()) {
    const Topology& t = levels_.topology();
    const LevelIndex nvl = nvlink_domain_level(t);
    if (nvl == t.host_level()) {
      warn(set_mnnvl_at.line ? set_mnnvl_at : doc_at,
           fmt::format("{} asks for multi-node NVLink, which topology '{}' does not have", kMnnvlGroup, t.name()));
    } else if (some_outside || mnnvl_groups.size() > 1) {
      warn(set_mnnvl_at.line ? set_mnnvl_at : doc_at,
           fmt::format("{}: its cliques are in {} MNNVL group{} ({}{}); topoplan keeps no part of a slice in an NVLink "
                       "domain of its own, so only whole-slice packing is planned",
                       kMnnvlGroup, mnnvl_groups.size(), mnnvl_groups.size() == 1 ? "" : "s",
                       fmt::join(mnnvl_groups, ", "), some_outside ? ", and some GPU cliques in none" : ""));
    } else if ((!required || *required < nvl) && (!preferred || *preferred < nvl)) {
      job.preferred = levels_.level_name(nvl);
      job.level_where.preferred = set_mnnvl_at.line ? set_mnnvl_at : doc_at;
    }
  }

  attach_service(job, std::move(service));
  out_.jobs.push_back(std::move(job));
}

}  // namespace

void collect_grove_topologies(const std::vector<yaml::Node>& documents, const std::string& file,
                              GroveTopologies& topologies, DiagnosticSink& sink) {
  for (const yaml::Node& doc : documents) {
    if (!doc.IsDefined() || !doc.IsMap()) continue;
    yaml::Node kind = doc["kind"];
    yaml::Node api = doc["apiVersion"];
    if (!kind.IsScalar() || (kind.Scalar() != "ClusterTopologyBinding" && kind.Scalar() != "ClusterTopology") ||
        !api.IsScalar() ||
        api.Scalar().rfind("grove.io/", 0) != 0)
      continue;
    const std::string& kind_name = kind.Scalar();
    yaml::Node name = doc["metadata"]["name"];
    if (!name.IsScalar() || name.Scalar().empty()) {
      sink.error(yaml::where(file, doc), fmt::format("a {} needs metadata.name", kind_name));
      continue;
    }
    GroveTopologies::Binding b;
    b.where = yaml::where(file, doc);
    yaml::Node levels = doc["spec"]["levels"];
    if (!levels.IsSequence() || levels.size() == 0) {
      sink.error(levels.IsDefined() ? yaml::where(file, levels) : b.where,
                 fmt::format("{} '{}' needs spec.levels: a list of {{domain, key}}, coarsest first", kind_name,
                             name.Scalar()));
      continue;
    }
    bool ok = true;
    for (const yaml::Node& l : levels) {
      yaml::Node domain = l["domain"];
      yaml::Node key = l["key"];
      if (!domain.IsScalar() || domain.Scalar().empty() || !key.IsScalar() || key.Scalar().empty()) {
        sink.error(yaml::where(file, l), fmt::format("{} '{}': each level needs a domain and a key (a node label)",
                                                     kind_name, name.Scalar()));
        ok = false;
        continue;
      }
      for (const GroveTopologies::Level& other : b.levels)
        if (other.domain == domain.Scalar() || other.key == key.Scalar()) {
          sink.error(yaml::where(file, l), fmt::format("{} '{}': domain '{}' or key '{}' is given twice",
                                                       kind_name, name.Scalar(), domain.Scalar(), key.Scalar()));
          ok = false;
        }
      b.levels.push_back({domain.Scalar(), key.Scalar(), yaml::where(file, key)});
    }
    if (ok) topologies.bindings[name.Scalar()] = std::move(b);
  }
}

void read_grove_podcliqueset(const yaml::Node& doc, const std::string& file, const LevelMap& levels,
                             const GroveTopologies& topologies, ManifestJobs& out, DiagnosticSink& sink) {
  PodCliqueSetReader(file, levels, topologies, out, sink).read(doc);
}

}  // namespace topoplan
