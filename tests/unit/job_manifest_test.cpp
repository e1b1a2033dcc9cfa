// Kubernetes workloads and sbatch scripts as job inputs: what each kind and
// annotation becomes, what is warned about, rejected or refused as input.
#include "topoplan/manifests/job_manifest.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include <fstream>
#include <sstream>

#include "source_dir.hpp"
#include "topoplan/io/topology_source.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

ManifestJobs read(const std::string& text, const Topology& t, const std::vector<LevelLabel>& labels = {},
                  const std::string& file = "m.yaml") {
  ManifestOptions o;
  o.level_labels = labels;
  return read_job_manifests({{text, file}}, t, o);
}

std::string messages(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const Diagnostic& d : ds) out += d.str() + "\n";
  return out;
}

std::string error_of(const std::string& text, const Topology& t, const std::string& file = "m.yaml") {
  try {
    read(text, t, {}, file);
  } catch (const InputError& e) {
    return messages(e.diagnostics());
  }
  return "(no error)";
}

std::string job_yaml(const std::string& annotations, const std::string& resources, int parallelism = 4) {
  return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  parallelism: " +
         std::to_string(parallelism) + "\n  template:\n    metadata:\n      annotations:\n" + annotations +
         "    spec:\n      containers:\n        - name: c\n          resources: " + resources + "\n";
}

}  // namespace

TEST_CASE("formats are told apart by content") {
  CHECK(detect_manifest_format("jobs:\n  - {name: a, gpus: 4}\n") == ManifestFormat::native);
  CHECK(detect_manifest_format("- {name: a, gpus: 4}\n") == ManifestFormat::native);
  CHECK(detect_manifest_format("# comment\napiVersion: batch/v1\nkind: Job\n") == ManifestFormat::kubernetes);
  CHECK(detect_manifest_format("---\nkind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n") ==
        ManifestFormat::kubernetes);
  CHECK(detect_manifest_format("#!/bin/bash\nsrun x\n") == ManifestFormat::slurm);
  CHECK(detect_manifest_format("# job\n#SBATCH -N 2\nsrun x\n") == ManifestFormat::slurm);
  // A directive after the first command is no directive.
  CHECK(detect_manifest_format("echo hi\n#SBATCH -N 2\n") == ManifestFormat::native);
}

TEST_CASE("batch Job: pods, GPUs and Kueue's required topology") {
  Topology t = preset("gb200-nvl72:racks=4");
  ManifestJobs m = read(job_yaml("        kueue.x-k8s.io/podset-required-topology: topoplan.io/rack\n",
                                 "{limits: {nvidia.com/gpu: 2}}", 6),
                        t);
  REQUIRE(m.jobs.size() == 1);
  const Job& j = m.jobs[0];
  CHECK(j.name == "j");
  CHECK(j.per_replica == 12);
  CHECK(j.replicas == 1);
  CHECK(j.parallelism.tp == 2);  // a pod's GPUs stay in one node
  CHECK(j.parallelism.dp == 6);
  CHECK(j.required == "rack");
  CHECK_FALSE(j.exclusive);
  CHECK(m.warnings.empty());
  CHECK(j.where.line == 1);
}

TEST_CASE("completions below parallelism bound the pods, requests count when limits are absent") {
  Topology t = preset("gb200-nvl72:racks=1");
  std::string text = job_yaml("        a: b\n", "{requests: {amd.com/gpu: 1}}", 8);
  text.insert(text.find("  template:"), "  completions: 3\n");
  ManifestJobs m = read(text, t);
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].per_replica == 3);
}

TEST_CASE("pods with all of a node's GPUs take whole nodes") {
  Topology t = preset("dgx-h100:nodes=8");
  ManifestJobs m = read(job_yaml("        a: b\n", "{limits: {nvidia.com/gpu: 8}}", 4), t);
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].nodes == 4);
  CHECK(m.jobs[0].exclusive);
}

TEST_CASE("preferred, unconstrained and label rules") {
  Topology t = preset("gb200-nvl72:racks=4");
  auto one = [&](const std::string& annotation, const std::vector<LevelLabel>& labels = {}) {
    ManifestJobs m = read(job_yaml("        " + annotation + "\n", "{limits: {nvidia.com/gpu: 4}}"), t, labels);
    REQUIRE(m.jobs.size() == 1);
    return m.jobs[0];
  };
  CHECK(one("kueue.x-k8s.io/podset-preferred-topology: cloud.provider.com/topology-rack").preferred == "rack");
  CHECK(one("kueue.x-k8s.io/podset-required-topology: example.com/SU").required == "su");
  CHECK(one("kueue.x-k8s.io/podset-required-topology: nvidia.com/gpu.clique").required == "rack");
  CHECK(one("kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname").required == "node");
  CHECK(one("kueue.x-k8s.io/podset-required-topology: cloud.google.com/gce-topology-block", {{"cloud.google.com/gce-topology-block", "su"}})
            .required == "su");
  Job u = one("kueue.x-k8s.io/podset-unconstrained-topology: \"true\"");
  CHECK_FALSE(u.required);
  CHECK_FALSE(u.preferred);
}

TEST_CASE("a label that names no level is an error at the annotation") {
  Topology t = preset("gb200-nvl72:racks=4");
  std::string e = error_of(job_yaml("        kueue.x-k8s.io/podset-required-topology: cloud.google.com/gke-nodepool\n",
                                    "{limits: {nvidia.com/gpu: 4}}"),
                           t);
  CHECK(e.find("m.yaml:10:50: kueue.x-k8s.io/podset-required-topology: node label 'cloud.google.com/gke-nodepool' "
               "names no level of topology 'gb200-nvl72' (cluster, su, rack, node)") != std::string::npos);
  CHECK(e.find("kubernetes.io/hostname (node)") != std::string::npos);
  CHECK(e.find("--level-label cloud.google.com/gke-nodepool=LEVEL") != std::string::npos);
  CHECK_THROWS_AS(read("apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\n", t, {{"x", "rak"}}), InputError);
  CHECK_THROWS_AS(parse_level_label("no-equals"), InputError);
  CHECK(parse_level_label("a/b=rack").label == "a/b");
}

TEST_CASE("Kueue slices become replicas of the slice level, bad slices are rejected") {
  Topology t = preset("gb200-nvl72:racks=4");
  ManifestJobs m = read(job_yaml("        kueue.x-k8s.io/podset-slice-required-topology: topoplan.io/rack\n"
                                 "        kueue.x-k8s.io/podset-slice-size: \"4\"\n",
                                 "{limits: {nvidia.com/gpu: 2}}", 12),
                        t);
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].replicas == 3);
  CHECK(m.jobs[0].per_replica == 8);
  CHECK(m.jobs[0].required == "rack");
  CHECK(m.jobs[0].kind == JobKind::training);

  CHECK_FALSE(m.jobs[0].replicas_within);

  // With a coarser required level, all slices go into one domain of it.
  ManifestJobs inside = read(job_yaml("        kueue.x-k8s.io/podset-required-topology: topoplan.io/su\n"
                                      "        kueue.x-k8s.io/podset-slice-required-topology: topoplan.io/rack\n"
                                      "        kueue.x-k8s.io/podset-slice-size: \"4\"\n",
                                      "{limits: {nvidia.com/gpu: 2}}", 12),
                             t);
  REQUIRE(inside.jobs.size() == 1);
  CHECK(inside.jobs[0].replicas == 3);
  CHECK(inside.jobs[0].required == "rack");
  CHECK(inside.jobs[0].replicas_within == "su");
  CHECK(inside.warnings.empty());
  // One slice: in one rack is in one SU.
  ManifestJobs whole = read(job_yaml("        kueue.x-k8s.io/podset-required-topology: topoplan.io/su\n"
                                     "        kueue.x-k8s.io/podset-slice-required-topology: topoplan.io/rack\n"
                                     "        kueue.x-k8s.io/podset-slice-size: \"4\"\n",
                                     "{limits: {nvidia.com/gpu: 2}}", 4),
                            t);
  REQUIRE(whole.jobs.size() == 1);
  CHECK(whole.jobs[0].replicas == 1);
  CHECK(whole.jobs[0].required == "rack");
  CHECK_FALSE(whole.jobs[0].replicas_within);

  ManifestJobs bad = read(job_yaml("        kueue.x-k8s.io/podset-slice-required-topology: topoplan.io/rack\n"
                                   "        kueue.x-k8s.io/podset-slice-size: \"5\"\n",
                                   "{limits: {nvidia.com/gpu: 2}}", 12),
                          t);
  CHECK(bad.jobs.empty());
  REQUIRE(bad.rejections.size() == 1);
  CHECK(bad.rejections[0].message.find("slice size 5 does not divide the 12 pods") != std::string::npos);

  ManifestJobs lone = read(job_yaml("        kueue.x-k8s.io/podset-slice-size: \"4\"\n", "{limits: {nvidia.com/gpu: 2}}"), t);
  CHECK(lone.jobs.empty());
  CHECK(lone.rejections.size() == 1);

  ManifestJobs two = read(job_yaml("        kueue.x-k8s.io/podset-required-topology: topoplan.io/rack\n"
                                   "        kueue.x-k8s.io/podset-unconstrained-topology: \"true\"\n",
                                   "{limits: {nvidia.com/gpu: 2}}"),
                          t);
  CHECK(two.jobs.empty());
  REQUIRE(two.rejections.size() == 1);
  CHECK(two.rejections[0].message.find("more than one topology annotation") != std::string::npos);
}

TEST_CASE("a pod larger than any node can never run") {
  Topology t = preset("gb200-nvl72:racks=1");
  ManifestJobs m = read(job_yaml("        a: b\n", "{limits: {nvidia.com/gpu: 8}}", 2), t);
  CHECK(m.jobs.empty());
  REQUIRE(m.rejections.size() == 1);
  CHECK(m.rejections[0].message.find("largest node of topology 'gb200-nvl72' has 4") != std::string::npos);
}

TEST_CASE("pods without accelerators count one each, with a warning") {
  Topology t = preset("gb200-nvl72:racks=1");
  ManifestJobs m = read(job_yaml("        a: b\n", "{requests: {cpu: 1}}", 10), t);
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].per_replica == 10);
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].message.find("each of its 10 pods counts as one accelerator") != std::string::npos);
}

TEST_CASE("JobSet: all replicated jobs' pods together, or one per domain when exclusive") {
  Topology t = preset("gb200-nvl72:racks=4");
  std::string js = R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: js
ANNOTATIONS
spec:
  replicatedJobs:
    - name: w
      replicas: 3
      template:
        spec:
          parallelism: 2
          template:
            spec:
              containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]
)";
  std::string plain = js;
  plain.replace(plain.find("ANNOTATIONS"), 11, "  labels: {kueue.x-k8s.io/queue-name: q}");
  ManifestJobs m = read(plain, t);
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].nodes == 6);
  CHECK(m.jobs[0].queue == "q");

  std::string exclusive = js;
  exclusive.replace(exclusive.find("ANNOTATIONS"), 11,
                    "  annotations: {alpha.jobset.sigs.k8s.io/exclusive-topology: topoplan.io/rack}");
  ManifestJobs e = read(exclusive, t);
  REQUIRE(e.jobs.size() == 1);
  CHECK(e.jobs[0].replicas == 3);
  CHECK(e.jobs[0].per_replica == 8);
  // One rack per child job, which no other job shares (the planner adds the
  // required and spread levels this implies).
  CHECK(e.jobs[0].exclusive_level == "rack");
  CHECK_FALSE(e.jobs[0].required);
  CHECK_FALSE(e.jobs[0].spread);
  CHECK(e.warnings.empty());

  // One child job in slices: the slices are not groups to keep apart.
  ManifestJobs s = read(R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: js
  annotations: {alpha.jobset.sigs.k8s.io/exclusive-topology: topoplan.io/su}
spec:
  replicatedJobs:
    - name: w
      template:
        spec:
          parallelism: 4
          template:
            metadata:
              annotations:
                kueue.x-k8s.io/podset-slice-required-topology: topoplan.io/rack
                kueue.x-k8s.io/podset-slice-size: "2"
            spec:
              containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]
)",
                        t);
  REQUIRE(s.jobs.size() == 1);
  CHECK(s.jobs[0].replicas == 2);
  CHECK_FALSE(s.jobs[0].exclusive_level);
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings[0].message.find("not honoured for a sliced workload") != std::string::npos);
}

TEST_CASE("LeaderWorkerSet: each group is a replica of a service") {
  Topology t = preset("gb200-nvl72:racks=4");
  std::string lws = R"(apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: serve}
spec:
  replicas: 3
  leaderWorkerTemplate:
    size: 4
    leaderTemplate:
      spec: {containers: [{name: l, resources: {limits: {cpu: 1}}}]}
    workerTemplate:
      metadata:
        annotations: {kueue.x-k8s.io/podset-required-topology: topoplan.io/rack}
      spec: {containers: [{name: w, resources: {limits: {nvidia.com/gpu: 2}}}]}
)";
  ManifestJobs m = read(lws, t);
  REQUIRE(m.jobs.size() == 1);
  const Job& j = m.jobs[0];
  CHECK(j.kind == JobKind::inference);
  CHECK(j.replicas == 3);
  CHECK(j.per_replica == 6);  // the CPU-only leader takes no GPU
  CHECK(j.required == "rack");  // only the workers carry GPUs, and they all ask
  CHECK_FALSE(j.exclusive_level);

  std::string exclusive = lws;
  exclusive.replace(exclusive.find("metadata: {name: serve}"), 23,
                    "metadata:\n  name: serve\n  annotations: {leaderworkerset.sigs.k8s.io/exclusive-topology: "
                    "topoplan.io/su}");
  ManifestJobs e = read(exclusive, t);
  REQUIRE(e.jobs.size() == 1);
  CHECK(e.jobs[0].required == "rack");        // each group in one rack...
  CHECK(e.jobs[0].exclusive_level == "su");   // ...of an SU no other job uses
  CHECK(e.warnings.empty());
}

TEST_CASE("Kubeflow replica specs, MPIJob launcher, TrainJob, Volcano tiers and partitions") {
  Topology t = preset("gb200-nvl72:racks=4");
  ManifestJobs m = read(R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt}
spec:
  runPolicy: {schedulingPolicy: {queue: research, priorityClass: high}}
  pytorchReplicaSpecs:
    Master: {replicas: 1, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]}}}
    Worker: {replicas: 3, template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]}}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 100
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj}
spec: {trainer: {numNodes: 3, resourcesPerNode: {limits: {nvidia.com/gpu: 2}}}}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: vj}
spec:
  networkTopology: {mode: hard, highestTierAllowed: 1}
  tasks:
    - name: t
      replicas: 8
      template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]}}
---
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata: {name: soft}
spec:
  networkTopology: {mode: soft, highestTierAllowed: 2}
  tasks:
    - name: t
      replicas: 8
      partitionPolicy: {totalPartitions: 2, partitionSize: 4, networkTopology: {mode: hard, highestTierAllowed: 1}}
      template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]}}
)",
                        t);
  REQUIRE(m.jobs.size() == 4);
  CHECK(m.jobs[0].nodes == 4);
  CHECK(m.jobs[0].queue == "research");
  CHECK(m.jobs[0].priority == 100);  // defined in a later document
  CHECK(m.jobs[1].per_replica == 6);
  CHECK(m.jobs[2].required == "rack");  // tier 1: the level above the hosts
  CHECK(m.jobs[3].replicas == 2);
  CHECK(m.jobs[3].required == "rack");
  CHECK_FALSE(m.jobs[3].replicas_within);  // a soft job-level tier is not required
  CHECK(messages(m.warnings).find("training runtime") != std::string::npos);
}

TEST_CASE("KAI workload annotations combine required and preferred") {
  Topology t = preset("gb200-nvl72:racks=16");
  ManifestJobs m = read(R"(apiVersion: batch/v1
kind: Job
metadata:
  name: kai
  annotations:
    kai.scheduler/topology-required-placement: topoplan.io/su
    kai.scheduler/topology-preferred-placement: topoplan.io/rack
spec:
  parallelism: 4
  template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 4}}}]}}
)",
                        t);
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].required == "su");
  CHECK(m.jobs[0].preferred == "rack");
}

TEST_CASE("unknown kinds and missing apiVersion are input errors, configuration kinds are skipped") {
  Topology t = preset("gb200-nvl72:racks=1");
  std::string e = error_of("apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: x}\n", t);
  CHECK(e.find("m.yaml:2:7: unknown kind 'Deploymnet' (apps/v1)") != std::string::npos);
  CHECK(e.find("did you mean 'Deployment'?") != std::string::npos);
  CHECK(error_of("kind: Job\nmetadata: {name: x}\n", t).find("needs apiVersion and kind") != std::string::npos);
  // Kueue's flavors are read for the workloads of other files; a file of
  // only other configuration has nothing to place.
  ManifestJobs config = read("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n", t);
  CHECK(config.jobs.empty());
  CHECK(config.warnings.empty());
  ManifestJobs other = read("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", t);
  CHECK(other.jobs.empty());
  REQUIRE(other.warnings.size() == 1);
  CHECK(other.warnings[0].message.find("nothing to place") != std::string::npos);
}

TEST_CASE("sbatch: directives until the first command, both option forms") {
  Topology t = preset("gb200-nvl72:racks=4");
  ManifestJobs m = read("#!/bin/bash\n"
                        "#SBATCH -N 8 --gpus-per-node 4   # trailing comment\n"
                        "#SBATCH --job-name=train\n"
                        "#SBATCH -p gb200\n"
                        "#SBATCH --switches=1@5:00\n"
                        "#SBATCH --priority=7\n"
                        "srun python train.py\n"
                        "#SBATCH -N 64\n",
                        t, {}, "dir/train.sbatch");
  REQUIRE(m.jobs.size() == 1);
  const Job& j = m.jobs[0];
  CHECK(j.name == "train");
  CHECK(j.nodes == 8);  // 4 GPUs per node is a whole GB200 tray
  CHECK(j.queue == "gb200");
  CHECK(j.required == "rack");  // the leaf-switch level
  CHECK(j.priority == 7);
}

TEST_CASE("sbatch: job name from the file, GPU type as model, segments as replicas") {
  Topology t = preset("gb200-nvl72:racks=4");
  ManifestJobs m = read("#!/bin/bash\n#SBATCH -N 4\n#SBATCH --gpus-per-node=gb200:2\n", t, {}, "x/fine-tune.sh");
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].name == "fine-tune");
  CHECK(m.jobs[0].per_replica == 8);
  CHECK(m.jobs[0].parallelism.tp == 2);
  CHECK(m.jobs[0].accelerator_model == "*GB200*");

  ManifestJobs s = read("#!/bin/bash\n#SBATCH -N 36 --exclusive --segment=18\n", t, {}, "seg.sbatch");
  REQUIRE(s.jobs.size() == 1);
  CHECK(s.jobs[0].replicas == 2);
  CHECK(s.jobs[0].per_replica == 72);
  CHECK(s.jobs[0].exclusive);
  CHECK(s.jobs[0].required == "rack");  // the NVL72 block

  ManifestJobs bad = read("#!/bin/bash\n#SBATCH -N 10 --gpus-per-node=4 --segment=4\n", t, {}, "b.sbatch");
  CHECK(bad.jobs.empty());
  REQUIRE(bad.rejections.size() == 1);
  CHECK(bad.rejections[0].where.str() == "b.sbatch:2:33");

  ManifestJobs range = read("#!/bin/bash\n#SBATCH -N 2-4 --exclusive\n", t, {}, "r.sbatch");
  REQUIRE(range.jobs.size() == 1);
  CHECK(range.jobs[0].nodes == 2);
  CHECK(range.warnings.size() == 1);
}

TEST_CASE("sbatch: --gpus-per-task counts one task per node without -n, and an uneven total warns at it") {
  Topology t = preset("dgx-h100:nodes=4");
  // sbatch(1): without --ntasks, one task per node.
  ManifestJobs per_node = read("#!/bin/bash\n#SBATCH -N 3\n#SBATCH --gpus-per-task=4\n", t, {}, "a.sh");
  REQUIRE(per_node.jobs.size() == 1);
  CHECK(per_node.jobs[0].accelerators() == 12);
  CHECK(per_node.warnings.empty());
  // 2 tasks x 4 GPUs over 3 nodes: the warning points at --gpus-per-task (a
  // fuzzer found it dereferencing a --gpus that was never given).
  ManifestJobs uneven = read("#!/bin/bash\n#SBATCH -N 3 -n 2\n#SBATCH --gpus-per-task=4\n", t, {}, "b.sh");
  REQUIRE(uneven.jobs.size() == 1);
  CHECK(uneven.jobs[0].accelerators() == 8);
  REQUIRE(uneven.warnings.size() == 1);
  CHECK(uneven.warnings[0].where.str() == "b.sh:3:9");
  CHECK_THAT(uneven.warnings[0].message, Catch::Contains("8 GPUs do not split evenly over 3 nodes"));
}

TEST_CASE("sbatch: unknown options and missing values are input errors") {
  Topology t = preset("gb200-nvl72:racks=1");
  std::string e = error_of("#!/bin/bash\n#SBATCH --nodez=4\n#SBATCH -N four\n#SBATCH --gpus-per-node\n", t, "e.sh");
  CHECK(e.find("e.sh:2:9: sbatch has no option '--nodez'; did you mean '--nodes'?") != std::string::npos);
  CHECK(e.find("e.sh:3:9: --nodes takes a whole number, not 'four'") != std::string::npos);
  CHECK(e.find("e.sh:4:9: --gpus-per-node needs a value") != std::string::npos);
}

TEST_CASE("the project's reference manifests all load") {
  Topology t = load_topology(std::string(TOPOPLAN_SOURCE_DIR) + "/tests/data/manifests/kind-tas-cluster.yaml",
                             [](const std::string& path) -> std::optional<std::string> {
                               std::ifstream in(path);
                               if (!in) return std::nullopt;
                               std::ostringstream s;
                               s << in.rdbuf();
                               return s.str();
                             });
  // Each file with the workloads it holds (its `kind:` lines, counted by
  // hand; configuration kinds hold none), so that a missing or empty file fails.
  const std::pair<const char*, std::size_t> files[] = {
      {"tas_kind-cluster.yaml", 0},  // a kind Cluster
      {"tas_sample-gpu-queues.yaml", 0},  // Topology, ResourceFlavor, ClusterQueue, LocalQueue
      {"tas_sample-job-preferred.yaml", 1},
      {"tas_sample-job-required.yaml", 1},
      {"tas_sample-job-unconstrained.yaml", 1},
      {"jobs_sample-jobset-tas-required.yaml", 1},
      {"trainer-v2_examples_yaml_01-multi-node.yaml", 1},
      {"trainingoperator-v1_pytorch_simple.yaml", 1},
      {"ug-networktopology-job-1.yaml", 1},
      {"docs_examples_sample_lws-exclusive-placement.yaml", 1},
      {"slices-in-block.yaml", 3}};
  for (const auto& [f, workloads] : files) {
    INFO(f);
    std::ifstream in(std::string(TOPOPLAN_SOURCE_DIR) + "/tests/data/manifests/" + f);
    REQUIRE(in);
    std::ostringstream s;
    s << in.rdbuf();
    REQUIRE(!s.str().empty());
    ManifestJobs m;
    REQUIRE_NOTHROW(m = read(s.str(), t, {{"cloud.google.com/gke-nodepool", "block"}}, f));
    CHECK(m.jobs.size() + m.rejections.size() == workloads);
  }
}

TEST_CASE("priority classes: Kueue's label first, global default, undefined ones warn") {
  Topology t = preset("gb200-nvl72:racks=1");
  std::string classes = R"(apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: normal}
value: 10
globalDefault: true
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: urgent}
value: 900
)";
  std::string jobs = R"(apiVersion: batch/v1
kind: Job
metadata: {name: plain}
spec: {template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: labelled
  labels: {kueue.x-k8s.io/priority-class: urgent}
spec: {template: {spec: {priorityClassName: normal, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: unknown}
spec: {template: {spec: {priorityClassName: nope, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}
)";
  // Classes in one file apply to workloads in another.
  ManifestJobs m = read_job_manifests({{jobs, "jobs.yaml"}, {classes, "classes.yaml"}}, t);
  REQUIRE(m.jobs.size() == 3);
  CHECK(m.jobs[0].priority == 10);
  CHECK(m.jobs[0].priority_class == "normal");
  CHECK(m.jobs[1].priority == 900);
  CHECK(m.jobs[1].priority_class == "urgent");
  CHECK(m.jobs[2].priority == 0);
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0].str().find("jobs.yaml:16:45: Job 'unknown': priority class 'nope' is not defined") == 0);
}

TEST_CASE("priority classes: Kubernetes' own system classes, above 10^9, are read") {
  // As `kubectl get priorityclasses -o yaml` lists them on every cluster.
  Topology t = preset("gb200-nvl72:racks=1");
  ManifestJobs m = read(R"(apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-node-critical}
value: 2000001000
---
apiVersion: batch/v1
kind: Job
metadata: {name: daemon}
spec: {template: {spec: {priorityClassName: system-node-critical, containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}}
)",
                        t);
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].priority == 2000001000);
  CHECK_THROWS_WITH(read("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: x}\nvalue: 2147483648\n", t),
                    Catch::Contains("'value' is 2147483648; it must be between -2147483648 and 2147483647"));
}

TEST_CASE("a requirement of only some pod sets is only preferred") {
  Topology t = preset("gb200-nvl72:racks=4");
  ManifestJobs m = read(R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt}
spec:
  pytorchReplicaSpecs:
    Master:
      template:
        metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: topoplan.io/rack}}
        spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]}
    Worker:
      replicas: 2
      template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]}}
)",
                        t);
  REQUIRE(m.jobs.size() == 1);
  CHECK_FALSE(m.jobs[0].required);
  CHECK(m.jobs[0].preferred == "rack");
  CHECK(m.warnings.size() == 1);
}

TEST_CASE("Deployments are services of one-pod replicas, huge requests are refused, not overflowed") {
  Topology t = preset("gb200-nvl72:racks=1");
  ManifestJobs m = read(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 5
  template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}
)",
                        t);
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].kind == JobKind::inference);
  CHECK(m.jobs[0].replicas == 5);
  CHECK(m.jobs[0].per_replica == 1);

  ManifestJobs huge = read(R"(apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: huge}
spec:
  replicas: 1000000
  leaderWorkerTemplate:
    size: 1000
    workerTemplate: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}
)",
                           t);
  CHECK(huge.jobs.empty());
  CHECK(huge.rejections.size() == 1);
  CHECK_THROWS_AS(read(job_yaml("        a: b\n", "{limits: {nvidia.com/gpu: 2}}", 2'000'000'000), t), InputError);
  CHECK_THROWS_AS(read("#!/bin/sh\n#SBATCH -N 9999999 --ntasks-per-node=999999 --gpus-per-task=999999\n", t, {},
                       "h.sh"),
                  InputError);
}

TEST_CASE("reading is deterministic") {
  Topology t = preset("gb200-nvl72:racks=4");
  std::ifstream in(std::string(TOPOPLAN_SOURCE_DIR) + "/tests/data/manifests/gpu-workloads.yaml");
  std::ostringstream s;
  s << in.rdbuf();
  ManifestJobs a = read(s.str(), t);
  ManifestJobs b = read(s.str(), t);
  REQUIRE(a.jobs.size() == b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    CHECK(a.jobs[i].name == b.jobs[i].name);
    CHECK(a.jobs[i].per_replica == b.jobs[i].per_replica);
    CHECK(a.jobs[i].required == b.jobs[i].required);
  }
  CHECK(messages(a.warnings) == messages(b.warnings));
}

TEST_CASE("manifests parsed ahead of the topology report what they hold when read, in input order") {
  const Topology t = preset("dgx-h100:nodes=4");
  // A Kubernetes Job naming a level label no topology has, topoplan's own
  // jobs with a wrong type, and an unreadable YAML file.
  const std::string k8s = job_yaml("        kueue.x-k8s.io/podset-required-topology: no.such/label\n",
                                   "{limits: {nvidia.com/gpu: 8}}");
  const std::string native = "jobs:\n  - {name: a, gpus: many}\n";
  const std::string broken = "jobs: [\n";
  std::vector<ManifestInput> inputs{{k8s, "k.yaml"}, {native, "n.yaml"}, {broken, "b.yaml"}};
  // Parsing alone needs no topology and throws nothing.
  ParsedManifests parsed(inputs);
  CHECK(parsed.inputs().size() == 3);
  std::string ahead, at_once;
  try {
    read_job_manifests(std::move(parsed), t);
  } catch (const InputError& e) {
    ahead = messages(e.diagnostics());
  }
  try {
    read_job_manifests(inputs, t);
  } catch (const InputError& e) {
    at_once = messages(e.diagnostics());
  }
  CHECK(ahead == at_once);
  // The unreadable file is found first (while parsing), the others in input order.
  const std::size_t b = ahead.find("b.yaml:"), k = ahead.find("k.yaml:"), n = ahead.find("n.yaml:");
  REQUIRE(b != std::string::npos);
  REQUIRE(k != std::string::npos);
  REQUIRE(n != std::string::npos);
  CHECK(k < n);

  // Good jobs come through whole.
  ParsedManifests good(std::vector<ManifestInput>{{"jobs:\n  - {name: a, gpus: 8}\n  - {name: b, gpus: 16}\n", "g.yaml"}});
  ManifestJobs jobs = read_job_manifests(std::move(good), t);
  REQUIRE(jobs.jobs.size() == 2);
  CHECK(jobs.jobs[1].name == "b");
}

TEST_CASE("a workload class for --device-perf: the Kubernetes annotation and an sbatch --comment word") {
  Topology t = preset("dgx-h100:nodes=2");
  ManifestJobs k = read("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n"
                        "    topoplan.io/perf-class: bert\nspec:\n  template:\n    spec:\n      containers:\n"
                        "        - {name: c, resources: {limits: {nvidia.com/gpu: 8}}}\n",
                        t);
  REQUIRE(k.jobs.size() == 1);
  CHECK(k.jobs[0].perf_class == "bert");
  CHECK(k.jobs[0].perf_class_where.line == 6);  // reported there when the file lacks the class
  // A job without it names none.
  CHECK(read(job_yaml("", "{limits: {nvidia.com/gpu: 8}}", 1), t).jobs.at(0).perf_class.empty());

  auto sbatch = [&](const std::string& comment) {
    return read("#!/bin/bash\n#SBATCH -N 1 --gpus-per-node=8\n#SBATCH --comment=\"" + comment + "\"\nsrun x\n", t, {},
                "x.sbatch");
  };
  CHECK(sbatch("owner=vision topoplan.io/perf-class=resnet").jobs.at(0).perf_class == "resnet");
  CHECK(sbatch("topoplan.io/perf-class=bert,owner=nlp").jobs.at(0).perf_class == "bert");
  // A longer key that merely ends the same way is not the key.
  CHECK(sbatch("x-topoplan.io/perf-class=bert").jobs.at(0).perf_class.empty());
  CHECK(sbatch("nightly run").jobs.at(0).perf_class.empty());
}
