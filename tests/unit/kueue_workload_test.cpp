// Kubernetes manifests as Kueue sees them (the pod sets the kueue policy
// places), the pods already running, and node matching. Expected values are
// worked out from the Kubernetes and Kueue rules the comments name.
#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/manifests/pod_list.hpp"
#include "topoplan/placement/kueue_workload.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

ManifestJobs read(const std::string& text, const Topology& t) { return read_job_manifests({{text, "m.yaml"}}, t); }

const KueueWorkload& workload(const ManifestJobs& m, std::size_t i = 0) {
  REQUIRE(m.jobs.size() > i);
  REQUIRE(m.jobs[i].kueue);
  return *m.jobs[i].kueue;
}

std::string rejection(const ManifestJobs& m) {
  REQUIRE(m.rejections.size() == 1);
  return m.rejections.front().message;
}

// Every rejection, one a line (Kueue's webhook reports each broken rule).
std::string rejections(const ManifestJobs& m) {
  REQUIRE_FALSE(m.rejections.empty());
  std::string out;
  for (const Diagnostic& d : m.rejections) out += d.message + "\n";
  return out;
}

const char* kKueueConfig = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: dc}
spec:
  levels:
  - nodeLabel: cloud.provider.com/topology-block
  - nodeLabel: cloud.provider.com/topology-rack
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: other}
spec: {topologyName: dc, nodeLabels: {pool: b}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: gpus}
spec:
  topologyName: dc
  nodeLabels: {pool: a}
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors: [{name: gpus, resources: []}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team}
spec: {clusterQueue: cq}
)";

}  // namespace

TEST_CASE("a pod's requests are Kubernetes' effective requests") {
  // PodRequests: containers summed (limits stand in for missing requests in
  // a workload's templates), init containers one at a time with the
  // sidecars started before them, sidecars alongside, the larger per
  // resource, plus the overhead.
  Topology t = preset("dgx-h100:nodes=2");
  ManifestJobs m = read(R"(apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      overhead: {cpu: 100m}
      initContainers:
      - {name: s1, restartPolicy: Always, resources: {requests: {cpu: 250m, memory: 256Mi}}}
      - {name: i1, resources: {requests: {cpu: "2"}}}
      containers:
      - {name: c1, resources: {requests: {cpu: 500m, memory: 1Gi}}}
      - {name: c2, resources: {limits: {cpu: "1", nvidia.com/gpu: 2}}}
)",
                        t);
  const KueuePodSet& p = workload(m).pod_sets.at(0);
  // running: 1500m + sidecar 250m = 1750m; init peak: 2000m + 250m = 2250m.
  CHECK(p.requests == ResourceList{{"cpu", 2350}, {"memory", 1280LL << 20}, {"nvidia.com/gpu", 2}});
  CHECK(m.jobs[0].per_replica == 2);  // the accelerators, for the other policies
  CHECK(p.topology.implied);          // no annotation: TAS implied
}

TEST_CASE("the flavor comes from the queue, annotation labels are the Topology's") {
  Topology t = preset("dgx-h100:nodes=2");
  std::string job = std::string(kKueueConfig) + R"(---
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  namespace: team
  labels: {kueue.x-k8s.io/queue-name: lq}
spec:
  parallelism: 2
  template:
    metadata:
      annotations: {kueue.x-k8s.io/podset-required-topology: cloud.provider.com/topology-rack}
    spec:
      nodeSelector: {nvidia.com/gpu.product: H100}
      tolerations: [{key: dedicated, operator: Equal, value: ml, effect: NoExecute}]
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a, b]}]}]
          preferredDuringSchedulingIgnoredDuringExecution:
          - {weight: 20, preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}}
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]
)";
  ManifestJobs m = read(job, t);
  const KueueWorkload& w = workload(m);
  CHECK(w.flavor.name == "gpus");  // lq -> cq -> the TAS flavor of its resource group
  CHECK(w.flavor.topology == "dc");
  CHECK(w.flavor.node_labels == Labels{{"pool", "a"}});
  REQUIRE(w.flavor.tolerations.size() == 1);
  CHECK(w.flavor.tolerations[0].key == "nvidia.com/gpu");
  REQUIRE(w.flavor.levels.size() == 3);
  CHECK(w.flavor.levels[1].key == "cloud.provider.com/topology-rack");
  CHECK(w.flavor.levels[2].key == "kubernetes.io/hostname");
  const KueuePodSet& p = w.pod_sets.at(0);
  CHECK(p.count == 2);
  CHECK(p.topology.required == "cloud.provider.com/topology-rack");
  CHECK(p.node_selector == Labels{{"nvidia.com/gpu.product", "H100"}});
  REQUIRE(p.required_affinity.size() == 1);
  CHECK(p.required_affinity[0].expressions[0].values == std::vector<std::string>{"a", "b"});
  REQUIRE(p.preferred_affinity.size() == 1);
  CHECK(p.preferred_affinity[0].weight == 20);
  REQUIRE(p.tolerations.size() == 1);
  CHECK(p.tolerations[0].effect == "NoExecute");

  // A level the Topology lacks: Kueue never admits the workload.
  std::string rack_less = job;
  rack_less.replace(rack_less.find("podset-required-topology: cloud.provider.com/topology-rack"),
                    std::string("podset-required-topology: cloud.provider.com/topology-rack").size(),
                    "podset-required-topology: cloud.provider.com/topology-row");
  ManifestJobs r = read(rack_less, t);
  CHECK(r.jobs.empty());
  CHECK_THAT(rejection(r), Catch::Contains("Kueue would not admit it: no requested topology level: "
                                           "cloud.provider.com/topology-row"));
}

TEST_CASE("without a Kueue Topology the topology's levels are Kueue's, and labels map onto them") {
  Topology t = preset("gb200-nvl72:racks=2");
  std::vector<KueueLevel> levels = default_kueue_levels(t);
  REQUIRE(levels.size() == 3);  // su, rack, hostname: every level below the root
  CHECK(levels[1].level == t.find_level("rack"));
  CHECK(levels[2].key == "kubernetes.io/hostname");
  ManifestJobs m = read(R"(apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  parallelism: 4
  template:
    metadata:
      annotations: {kueue.x-k8s.io/podset-preferred-topology: cloud.provider.com/topology-rack}
    spec:
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
)",
                        t);
  const KueueWorkload& w = workload(m);
  CHECK(w.flavor.levels.size() == 3);
  CHECK(w.pod_sets.at(0).topology.preferred == levels[1].key);
}

TEST_CASE("Kueue's webhook rules for groups and slices are rejections") {
  Topology t = preset("dgx-h100:nodes=2");
  auto lws = [&](const std::string& leader, const std::string& worker, int size = 3) {
    return read("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata: {name: l}\nspec:\n"
                "  replicas: 2\n  leaderWorkerTemplate:\n    size: " + std::to_string(size) +
                    "\n    leaderTemplate:\n      metadata: {annotations: {" + leader +
                    "}}\n      spec: {containers: [{name: c}]}\n    workerTemplate:\n      metadata: {annotations: {" +
                    worker + "}}\n      spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}\n",
                t);
  };
  const std::string group = "kueue.x-k8s.io/podset-group-name: g, ";
  const std::string rack = "kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname";
  ManifestJobs ok = lws(group + rack, group + rack);
  const KueueWorkload& w = workload(ok);
  CHECK(w.workloads == 2);  // one Kueue workload per group
  REQUIRE(w.pod_sets.size() == 2);
  CHECK(w.pod_sets[0].count == 1);
  CHECK(w.pod_sets[1].count == 2);
  CHECK(w.pod_sets[1].group == "g");
  CHECK_THAT(rejection(lws(group + rack, rack)),
             Catch::Contains("can only define groups of exactly 2 pod sets, got: 1 pod set(s)"));
  CHECK_THAT(rejection(lws(group + rack, group + "kueue.x-k8s.io/podset-preferred-topology: kubernetes.io/hostname")),
             Catch::Contains("must ask for the same"));
  CHECK_THAT(rejection(lws(group + rack, group + rack +
                                             ", kueue.x-k8s.io/podset-slice-required-topology: kubernetes.io/hostname"
                                             ", kueue.x-k8s.io/podset-slice-size: '2'")),
             Catch::Contains("may not be set together with slice annotations"));
  const std::string numbered = "kueue.x-k8s.io/podset-group-name: '12', ";
  CHECK_THAT(rejections(lws(numbered + rack, numbered + rack)), Catch::Contains("must not be a number"));
}

TEST_CASE("multi-layer slice constraints: parsed, validated, the outer layer for other policies") {
  Topology t = preset("gb200-nvl72:racks=2");
  auto job = [&](const std::string& constraints, const std::string& extra = "") {
    return read("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: 16\n  template:\n"
                "    metadata:\n      annotations:\n        kueue.x-k8s.io/podset-required-topology: su\n"
                "        kueue.x-k8s.io/podset-slice-required-topology-constraints: '" +
                    constraints + "'\n" + extra +
                    "    spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}\n",
                t);
  };
  ManifestJobs m = job(R"([{"topology": "rack", "size": 8}, {"topology": "kubernetes.io/hostname", "size": 4}])");
  const KueuePodSet& p = workload(m).pod_sets.at(0);
  REQUIRE(p.topology.slices.size() == 2);
  CHECK(p.topology.slices[1].size == 4);
  CHECK(m.jobs[0].replicas == 2);  // two rack slices of 8 for the other policies
  REQUIRE_FALSE(m.warnings.empty());
  CHECK_THAT(m.warnings.back().message, Catch::Contains("the inner layers are honoured by the kueue policy only"));
  CHECK_THAT(rejection(job(R"([{"topology": "rack", "size": 8}, {"topology": "kubernetes.io/hostname", "size": 3}])")),
             Catch::Contains("size 3 must evenly divide the parent layer size 8"));
  CHECK_THAT(rejection(job("[1, 2")), Catch::Contains("must be a valid JSON array"));
  CHECK_THAT(rejection(job("[]")), Catch::Contains("between 1 and 3 entries"));
  CHECK_THAT(rejections(job(R"([{"topology": "rack", "size": 8}])",
                            "        kueue.x-k8s.io/podset-slice-size: '8'\n")),
             Catch::Contains("podset-slice-required-topology-constraints may not be set when"));
}

TEST_CASE("Deployments are a workload per pod, StatefulSets one pod group") {
  Topology t = preset("dgx-h100:nodes=2");
  auto apps = [&](const std::string& kind) {
    return read("apiVersion: apps/v1\nkind: " + kind +
                    "\nmetadata: {name: s}\nspec:\n  replicas: 3\n  template:\n    spec: {containers: [{name: c, "
                    "resources: {limits: {nvidia.com/gpu: 2}}}]}\n",
                t);
  };
  ManifestJobs d = apps("Deployment");
  CHECK(workload(d).workloads == 3);
  CHECK(workload(d).pod_sets.at(0).count == 1);
  ManifestJobs s = apps("StatefulSet");
  CHECK(workload(s).workloads == 1);
  CHECK(workload(s).pod_sets.at(0).count == 3);
}

TEST_CASE("a Kubeflow job's pod sets are named and ordered as Kueue lists them") {
  // Kueue lowercases role names and lists the roles in a fixed order
  // (launcher before worker; chief, master, ps, worker for TFJob) whatever
  // the order of the manifest's map.
  Topology t = preset("dgx-h100:nodes=2");
  ManifestJobs m = read(R"(apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: m}
spec:
  mpiReplicaSpecs:
    Worker:
      replicas: 2
      template: {spec: {containers: [{name: w, resources: {limits: {nvidia.com/gpu: 8}}}]}}
    Launcher:
      replicas: 1
      template: {spec: {containers: [{name: l}]}}
---
apiVersion: kubeflow.org/v1
kind: TFJob
metadata: {name: tf}
spec:
  tfReplicaSpecs:
    Worker: {replicas: 1, template: {spec: {containers: [{name: w, resources: {limits: {nvidia.com/gpu: 1}}}]}}}
    PS: {replicas: 1, template: {spec: {containers: [{name: p}]}}}
    Chief: {replicas: 1, template: {spec: {containers: [{name: c}]}}}
)",
                        t);
  const KueueWorkload& mpi = workload(m, 0);
  REQUIRE(mpi.pod_sets.size() == 2);
  CHECK(mpi.pod_sets[0].name == "launcher");
  CHECK(mpi.pod_sets[0].count == 1);
  CHECK(mpi.pod_sets[1].name == "worker");
  CHECK(mpi.pod_sets[1].count == 2);
  const KueueWorkload& tf = workload(m, 1);
  REQUIRE(tf.pod_sets.size() == 3);
  CHECK(tf.pod_sets[0].name == "chief");
  CHECK(tf.pod_sets[1].name == "ps");
  CHECK(tf.pod_sets[2].name == "worker");
}

TEST_CASE("running pods: bound and not finished ones count on their nodes") {
  Topology t = preset("dgx-h100:nodes=2");
  const std::string pods = R"(apiVersion: v1
kind: List
items:
- {kind: Pod, metadata: {name: a}, spec: {nodeName: h100-00000, containers: [{name: c, resources: {requests: {cpu: "2", nvidia.com/gpu: 3}}}]}, status: {phase: Running}}
- {kind: Pod, metadata: {name: b}, spec: {nodeName: h100-00000, containers: [{name: c, resources: {requests: {cpu: 500m}}}]}, status: {phase: Pending}}
- {kind: Pod, metadata: {name: c}, spec: {nodeName: h100-00001, containers: [{name: c, resources: {requests: {cpu: "8"}}}]}, status: {phase: Succeeded}}
- {kind: Pod, metadata: {name: d}, spec: {containers: [{name: c, resources: {requests: {cpu: "8"}}}]}}
- {kind: Pod, metadata: {name: e}, spec: {nodeName: elsewhere, containers: [{name: c}]}}
)";
  CHECK(is_pod_list(pods));
  CHECK_FALSE(is_pod_list("apiVersion: v1\nkind: List\nitems:\n- {kind: Node, metadata: {name: n}}\n"));
  CHECK_FALSE(is_pod_list("topology: x\njobs: []\n"));
  std::vector<Diagnostic> warnings;
  RunningPods r = read_pod_list({{pods, "pods.yaml"}}, t, warnings);
  CHECK(r.pods == 2);  // finished, unbound and elsewhere pods do not count
  REQUIRE(r.nodes.size() == 1);
  CHECK(t.hostname(r.nodes[0].node) == "h100-00000");
  CHECK(r.nodes[0].requests == ResourceList{{"cpu", 2500}, {"nvidia.com/gpu", 3}, {"pods", 2}});
  CHECK(r.nodes[0].accelerators == 3);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0].message, Catch::Contains("elsewhere"));
}

TEST_CASE("node selector terms and tolerations match as Kubernetes matches them") {
  Labels labels{{"gpu", "h100"}, {"rank", "7"}, {"zone", "a"}};
  auto term = [](std::string key, std::string op, std::vector<std::string> values) {
    NodeSelectorTerm t;
    t.expressions.push_back({std::move(key), std::move(op), std::move(values)});
    return t;
  };
  CHECK(term_matches(term("zone", "In", {"a", "b"}), labels, "n1"));
  CHECK_FALSE(term_matches(term("zone", "NotIn", {"a"}), labels, "n1"));
  CHECK(term_matches(term("pool", "NotIn", {"a"}), labels, "n1"));  // absent: not in
  CHECK(term_matches(term("gpu", "Exists", {}), labels, "n1"));
  CHECK(term_matches(term("pool", "DoesNotExist", {}), labels, "n1"));
  CHECK(term_matches(term("rank", "Gt", {"6"}), labels, "n1"));
  CHECK_FALSE(term_matches(term("rank", "Lt", {"7"}), labels, "n1"));
  CHECK_FALSE(term_matches(NodeSelectorTerm{}, labels, "n1"));  // an empty term selects nothing
  NodeSelectorTerm by_name;
  by_name.fields.push_back({"metadata.name", "In", {"n1"}});
  CHECK(term_matches(by_name, labels, "n1"));
  CHECK_FALSE(term_matches(by_name, labels, "n2"));

  Taint gpu{"nvidia.com/gpu", "present", "NoSchedule"};
  CHECK(tolerates({{"nvidia.com/gpu", "Exists", "", ""}}, gpu));
  CHECK(tolerates({{"", "Exists", "", ""}}, gpu));  // an empty key with Exists tolerates everything
  CHECK(tolerates({{"nvidia.com/gpu", "Equal", "present", "NoSchedule"}}, gpu));
  CHECK_FALSE(tolerates({{"nvidia.com/gpu", "Equal", "absent", ""}}, gpu));
  CHECK_FALSE(tolerates({{"nvidia.com/gpu", "Exists", "", "NoExecute"}}, gpu));
}
