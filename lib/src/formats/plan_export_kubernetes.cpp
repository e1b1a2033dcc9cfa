// export-plan --to kubernetes (and --to kueue, the same): per placed job a v1
// PodTemplate whose template is a strategic merge patch for the workload's
// pod templates: required node affinity on kubernetes.io/hostname, In the
// job's nodes.
//
// Why node affinity and not Kueue's topology annotations: an annotation
// (kueue.x-k8s.io/podset-required-topology and its slice forms) names a
// level, never a domain; Kueue chooses the domain at admission from the free
// capacity it sees then (BestFit: the tightest domain that fits), so the same
// annotations put a job where the plan did only if Kueue's algorithm and the
// cluster's state at that moment agree with the plan. Required node affinity
// names the nodes: kube-scheduler keeps to it, and so does Kueue's
// topology-aware scheduling, which filters nodes by a pod set's required node
// affinity since v0.15 (kubernetes-sigs/kueue #7899,
// pkg/cache/scheduler/tas_flavor_snapshot.go findTopologyAssignment); a
// workload whose nodes are taken waits instead of landing elsewhere.
//
// What a pod template cannot say: which pod of the set goes to which node
// (Kueue's TAS gives consecutive pod indices to nodes in the order of their
// label values, topology_ungater.go; kube-scheduler in no order), which
// accelerators of a node a pod gets (the device plugin's choice), and, for
// several replicas sharing one template (a JobSet's child jobs, an LWS's
// groups, Kueue slices), which replica gets which nodes. Replicas get a
// template each as well, for workloads run one per replica.
#include <fmt/format.h>

#include "format_functions.hpp"
#include "io/kubernetes_names.hpp"
#include "topoplan/placement/placement_check.hpp"
#include "topoplan/formats/job_layout.hpp"
#include "topoplan/io/hostlist.hpp"

namespace topoplan::formats {

namespace {

constexpr std::string_view kHostname = "kubernetes.io/hostname";

// A YAML double-quoted scalar.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < ' ' || c == 0x7f) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string comment_text(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < ' ' || c == 0x7f) c = '?';
  return out;
}

std::string plural(std::size_t n, std::string_view word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

void pod_template(std::string& out, const std::string& name, const Job& job, const std::string& replica,
                  const std::vector<std::string>& hosts) {
  out += fmt::format("apiVersion: v1\nkind: PodTemplate\nmetadata:\n  name: {}\n  annotations:\n", quoted(name));
  out += fmt::format("    \"topoplan.io/job\": {}\n", quoted(job.name));
  if (!replica.empty()) out += fmt::format("    \"topoplan.io/replica\": {}\n", quoted(replica));
  out += "template:\n"
         "  spec:\n"
         "    affinity:\n"
         "      nodeAffinity:\n"
         "        requiredDuringSchedulingIgnoredDuringExecution:\n"
         "          nodeSelectorTerms:\n"
         "          - matchExpressions:\n";
  out += fmt::format("            - key: {}\n              operator: \"In\"\n              values:\n", quoted(kHostname));
  for (const std::string& h : hosts) out += fmt::format("              - {}\n", quoted(h));
}

}  // namespace

PlanExport export_plan_kubernetes(const Topology& t, const Plan& plan, const PlanExportOptions& o) {
  PlanExport result;
  auto warn = [&](const Job& job, std::string message) {
    result.warnings.push_back({job.where, fmt::format("job '{}': {}", job.name, message)});
  };
  {
    DiagnosticSink sink;
    for (std::size_t j = 0; j < plan.jobs.size(); ++j) {
      const JobPlacement& p = plan.placements[j];
      if (!p.placed || p.occupied) continue;
      for (DomainId node : span_of(t, p.replicas).nodes)
        if (!is_dns1123_subdomain(t.hostname(node)))
          sink.error(plan.jobs[j].where,
                     fmt::format("job '{}': hostname '{}' is not a Kubernetes node name (a lower-case DNS subdomain)",
                                 plan.jobs[j].name, t.hostname(node)));
    }
    sink.throw_if_any();
  }

  std::string& out = result.text;
  out += "# Node affinity patches, written by topoplan export-plan\n";
  out += fmt::format("# plan: {}, topology: {}\n", comment_text(o.plan_file.empty() ? "given" : o.plan_file),
                     comment_text(o.topology_argument.empty() ? t.name() : o.topology_argument));
  out += "# One v1 PodTemplate per placed job, named after it (annotation topoplan.io/job:\n"
         "# the plan's name). Its template is a strategic merge patch for every pod\n"
         "# template of the job's workload: it replaces their required node affinity with\n"
         "# the job's nodes by label kubernetes.io/hostname, which kube-scheduler and\n"
         "# Kueue's topology-aware scheduling (v0.15 and later) keep to. A job of several\n"
         "# replicas also gets one per replica (NAME-replica-K, annotation\n"
         "# topoplan.io/replica), for workloads run one per replica.\n";

  UniqueNames names;
  for (std::size_t j = 0; j < plan.jobs.size(); ++j) {
    const Job& job = plan.jobs[j];
    const JobPlacement& p = plan.placements[j];
    if (p.occupied) continue;
    if (!p.placed) {
      warn(job, "not placed in the plan, so it has no patch");
      out += fmt::format("# job {}: not placed ({}), no patch\n", comment_text(job.name), comment_text(p.reason));
      continue;
    }
    JobLayout l = layout_of(t, p);
    std::vector<std::string> hosts = hostnames(t, l.nodes);
    out += fmt::format("---\n# job {} ({}, {}): {} {}\n", comment_text(job.name),
                       job.kind == JobKind::training ? "training" : "inference",
                       plural(p.device_count(), std::string(kind_name(l.kind))), describe_nodes(l),
                       compress_hostlist(hosts));
    std::string name = names.claim(to_dns1123_label(job.name), job.name);
    pod_template(out, name, job, "", hosts);
    if (p.replicas.size() > 1) {
      for (std::size_t r = 0; r < l.replica_nodes.size(); ++r) {
        std::vector<std::string> replica_hosts = hostnames(t, l.replica_nodes[r]);
        out += fmt::format("---\n# job {}, replica {}: {}\n", comment_text(job.name), r,
                           compress_hostlist(replica_hosts));
        std::string replica_name =
            names.claim(to_dns1123_label(fmt::format("{}-replica-{}", name, r)), fmt::format("{}/{}", job.name, r));
        pod_template(out, replica_name, job, std::to_string(r), replica_hosts);
      }
      if (l.nodes.size() > 1)
        warn(job, fmt::format("its {} replicas share one pod template (a JobSet's jobs, an LWS's groups, Kueue "
                              "slices): the patch keeps them to the job's {}, not each replica to its own; for that, "
                              "run a workload per replica with the {}-replica-K patches",
                              p.replicas.size(), plural(l.nodes.size(), "node"), name));
    }
    if (!l.whole_nodes) {
      for (const NodeShare& s : l.nodes)
        if (!s.whole) {
          warn(job, fmt::format("node affinity chooses nodes, not accelerators: on {} the device plugin picks which "
                                "{} of {} the pods get, and kube-scheduler how many of the job's pods go to each node",
                                t.hostname(s.node), s.accelerators, t.domain(s.node).accelerator_count()));
          break;
        }
    }
    if (!l.rank_order.empty())
      warn(job, fmt::format("pods take their nodes in Kueue's order (by node label values) or in none "
                            "(kube-scheduler), not in the plan's rank order: {}",
                            l.rank_order));
  }
  return result;
}

}  // namespace topoplan::formats
