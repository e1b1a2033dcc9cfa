// Grove PodCliqueSets read as services: replicas are slices, cliques with
// accelerators roles, pack constraints through ClusterTopologyBinding labels,
// MNNVL groups, and what Grove's webhook refuses.
#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/placement/service.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

const char* const kBinding = R"(apiVersion: grove.io/v1alpha1
kind: ClusterTopologyBinding
metadata: {name: fabric}
spec:
  levels:
    - {domain: block, key: example.com/block}
    - {domain: rack, key: nvidia.com/gpu.clique}
    - {domain: host, key: kubernetes.io/hostname}
)";

// A set of `replicas` slices: prefill (2 pods of 4 GPUs), a decode scaling
// group of `decode_replicas` x (leader + worker, 4 GPUs each) and a CPU router.
std::string pcs(const std::string& set_extra, const std::string& group_extra = "", int replicas = 2,
                int decode_replicas = 1, const std::string& meta_extra = "") {
  return "apiVersion: grove.io/v1alpha1\nkind: PodCliqueSet\nmetadata:\n  name: svc\n" + meta_extra +
         "spec:\n  replicas: " + std::to_string(replicas) + "\n  template:\n" + set_extra +
         "    podCliqueScalingGroups:\n      - name: decode\n        replicas: " + std::to_string(decode_replicas) +
         "\n        cliqueNames: [dleader, dworker]\n" + group_extra +
         "    cliques:\n"
         "      - name: router\n        spec:\n          replicas: 1\n          podSpec:\n"
         "            containers: [{name: r, resources: {requests: {cpu: '1'}}}]\n"
         "      - name: prefill\n        spec:\n          replicas: 2\n          podSpec:\n"
         "            containers: [{name: p, resources: {limits: {nvidia.com/gpu: '4'}}}]\n"
         "      - name: dleader\n        spec:\n          replicas: 1\n          podSpec:\n"
         "            containers: [{name: d, resources: {limits: {nvidia.com/gpu: '4'}}}]\n"
         "      - name: dworker\n        spec:\n          replicas: 1\n          podSpec:\n"
         "            containers: [{name: d, resources: {limits: {nvidia.com/gpu: '4'}}}]\n";
}

ManifestJobs read(const std::vector<ManifestInput>& inputs, const Topology& t) {
  ManifestOptions o;
  o.level_labels = {{"example.com/block", "su"}};
  return read_job_manifests(inputs, t, o);
}

std::string messages(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const Diagnostic& d : ds) out += d.str() + "\n";
  return out;
}

const std::string kPackBlock = "    topologyConstraint:\n      topologyName: fabric\n      pack: {required: block}\n";

}  // namespace

TEST_CASE("a PodCliqueSet is a service: replicas are slices, GPU cliques roles", "[grove]") {
  Topology t = preset("gb200-nvl72:racks=2");
  ManifestJobs out = read({{kBinding, "b.yaml"}, {pcs(kPackBlock, "", 3, 2), "p.yaml"}}, t);
  REQUIRE(out.jobs.size() == 1);
  const Job& job = out.jobs.front();
  CHECK(job.kind == JobKind::inference);
  CHECK(job.replicas == 3);
  REQUIRE(job.service);
  const Service& s = *job.service;
  CHECK(s.slices == 3);
  // The CPU router is no role; the decode cliques count their scaling
  // group's 2 replicas.
  REQUIRE(s.roles.size() == 3);
  CHECK(s.roles[0].name == "prefill");
  CHECK(s.roles[0].replicas == 2);
  CHECK(s.roles[0].per_replica == 4);
  CHECK(s.roles[0].parallelism.tp == 4);
  CHECK(s.roles[1].name == "dleader");
  CHECK(s.roles[1].replicas == 2);
  CHECK(s.roles[2].replicas == 2);
  CHECK(job.per_replica == 2 * 4 + 2 * 4 + 2 * 4);
  // Phases: prefill by its name, the decode cliques by their scaling group.
  CHECK(s.roles[0].phase == RolePhase::prefill);
  CHECK(s.roles[1].phase == RolePhase::decode);
  CHECK(s.roles[2].phase == RolePhase::decode);
  CHECK(s.disaggregated());
  // block -> example.com/block -> su (the binding in the other input).
  REQUIRE(job.required);
  CHECK(*job.required == "su");
  CHECK(job.level_where.required.file == "p.yaml");
  CHECK(out.rejections.empty());
}

TEST_CASE("a PodCliqueSet without GPUs counts each pod as one accelerator", "[grove]") {
  Topology t = preset("gb200-nvl72:racks=1");
  std::string text =
      "apiVersion: grove.io/v1alpha1\nkind: PodCliqueSet\nmetadata: {name: cpu}\nspec:\n  template:\n"
      "    cliques:\n      - name: a\n        spec: {replicas: 3, podSpec: {containers: [{name: c}]}}\n";
  ManifestJobs out = read({{text, "m.yaml"}}, t);
  REQUIRE(out.jobs.size() == 1);
  CHECK(out.jobs.front().per_replica == 3);
  CHECK(out.jobs.front().replicas == 1);
  CHECK_THAT(messages(out.warnings), Catch::Contains("each of the 3 pods of a slice counts as one accelerator"));
}

TEST_CASE("a scaling group's pack is the slice's only when the group holds the whole slice", "[grove]") {
  Topology t = preset("gb200-nvl72:racks=2");
  const std::string group_rack = "        topologyConstraint: {pack: {required: rack}}\n";
  // The decode group is part of the slice: its pack is warned about, not kept.
  ManifestJobs part = read({{kBinding, "b.yaml"}, {pcs(kPackBlock, group_rack), "p.yaml"}}, t);
  REQUIRE(part.jobs.size() == 1);
  CHECK(*part.jobs.front().required == "su");
  CHECK_THAT(messages(part.warnings), Catch::Contains("scaling group 'decode' packs in 'rack' apart from the rest"));

  // A set of one scaling group of one replica: the group is the slice.
  std::string whole = std::string(kBinding) + "---\n" +
                      "apiVersion: grove.io/v1alpha1\nkind: PodCliqueSet\nmetadata: {name: g}\nspec:\n  template:\n"
                      "    topologyConstraint: {topologyName: fabric, pack: {required: block}}\n"
                      "    podCliqueScalingGroups:\n      - name: all\n        cliqueNames: [w]\n"
                      "        topologyConstraint: {pack: {required: rack}}\n"
                      "    cliques:\n      - name: w\n        spec:\n          replicas: 4\n"
                      "          podSpec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: '4'}}}]}\n";
  ManifestJobs all = read({{whole, "w.yaml"}}, t);
  REQUIRE(all.jobs.size() == 1);
  CHECK(*all.jobs.front().required == "rack");
  CHECK(messages(all.warnings).find("apart from the rest") == std::string::npos);
}

TEST_CASE("Grove refuses a child constraint coarser than its parent's, and unknown domains", "[grove]") {
  Topology t = preset("gb200-nvl72:racks=2");
  const std::string set_rack = "    topologyConstraint:\n      topologyName: fabric\n      pack: {required: rack}\n";
  const std::string group_block = "        topologyConstraint: {pack: {required: block}}\n";
  ManifestJobs coarser = read({{kBinding, "b.yaml"}, {pcs(set_rack, group_block), "p.yaml"}}, t);
  CHECK(coarser.jobs.empty());
  CHECK_THAT(messages(coarser.rejections),
             Catch::Contains("PodCliqueSet topology constraint domain 'rack' is narrower than PodCliqueScalingGroup "
                             "'decode' topology constraint domain 'block'"));
  // The same domain at both levels is allowed.
  const std::string group_rack = "        topologyConstraint: {pack: {required: rack}}\n";
  CHECK(read({{kBinding, "b.yaml"}, {pcs(set_rack, group_rack), "p.yaml"}}, t).rejections.empty());

  const std::string set_zone = "    topologyConstraint:\n      topologyName: fabric\n      pack: {required: zone}\n";
  ManifestJobs unknown = read({{kBinding, "b.yaml"}, {pcs(set_zone), "p.yaml"}}, t);
  CHECK(unknown.jobs.empty());
  CHECK_THAT(messages(unknown.rejections),
             Catch::Contains("p.yaml:10:24: PodCliqueSet 'svc': topology domain 'zone' does not exist in cluster "
                             "topology 'fabric' [block rack host]"));
}

TEST_CASE("without its ClusterTopologyBinding a set's domains are topology levels", "[grove]") {
  Topology t = preset("gb200-nvl72:racks=2");
  const std::string set_rack = "    topologyConstraint:\n      topologyName: elsewhere\n      pack: {required: rack}\n";
  ManifestJobs out = read({{pcs(set_rack), "p.yaml"}}, t);
  REQUIRE(out.jobs.size() == 1);
  CHECK(*out.jobs.front().required == "rack");
  CHECK_THAT(messages(out.warnings), Catch::Contains("ClusterTopologyBinding 'elsewhere' is not among the inputs"));
  // A domain that is no level is an input error at its position.
  try {
    read({{pcs(kPackBlock), "p.yaml"}}, t);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(messages(e.diagnostics()),
               Catch::Contains("p.yaml:10:24: topology domain 'block' is not a level of topology 'gb200-nvl72' "
                               "(cluster, su, rack, node); give ClusterTopologyBinding 'fabric' among the inputs"));
  }
}

TEST_CASE("one MNNVL group for a slice prefers one NVLink domain", "[grove]") {
  const std::string mnnvl = "  annotations: {grove.io/mnnvl-group: kv}\n";
  Topology gb200 = preset("gb200-nvl72:racks=2");
  ManifestJobs out = read({{kBinding, "b.yaml"}, {pcs(kPackBlock, "", 2, 1, mnnvl), "p.yaml"}}, gb200);
  REQUIRE(out.jobs.size() == 1);
  REQUIRE(out.jobs.front().preferred);
  CHECK(*out.jobs.front().preferred == "rack");
  CHECK(*out.jobs.front().required == "su");

  // On DGX H100 there is no multi-node NVLink to keep.
  Topology h100 = preset("dgx-h100:nodes=8");
  ManifestJobs h = read({{pcs("", "", 2, 1, mnnvl), "p.yaml"}}, h100);
  REQUIRE(h.jobs.size() == 1);
  CHECK_FALSE(h.jobs.front().preferred);
  CHECK_THAT(messages(h.warnings), Catch::Contains("asks for multi-node NVLink, which topology 'dgx-h100' does not "
                                                   "have"));

  // Decode in a group of its own: two groups in a slice, not planned apart.
  const std::string group_own = "        annotations: {grove.io/mnnvl-group: decode}\n";
  ManifestJobs two = read({{kBinding, "b.yaml"}, {pcs(kPackBlock, group_own, 2, 1, mnnvl), "p.yaml"}}, gb200);
  REQUIRE(two.jobs.size() == 1);
  CHECK_FALSE(two.jobs.front().preferred);
  CHECK_THAT(messages(two.warnings), Catch::Contains("2 MNNVL groups (decode, kv)"));
}

TEST_CASE("Grove refuses MNNVL groups that are no DNS label or sit on cliques without NVIDIA GPUs", "[grove]") {
  Topology t = preset("gb200-nvl72:racks=1");
  ManifestJobs bad = read({{pcs("", "", 1, 1, "  annotations: {grove.io/mnnvl-group: KV_cache}\n"), "p.yaml"}}, t);
  CHECK(bad.jobs.empty());
  CHECK_THAT(messages(bad.rejections),
             Catch::Contains("grove.io/mnnvl-group 'KV_cache' must be \"none\" or a DNS-1123"));
  // Inherited by the CPU router it is skipped (no rejection); "none" opts out.
  CHECK(read({{pcs("", "", 1, 1, "  annotations: {grove.io/mnnvl-group: kv}\n"), "p.yaml"}}, t).rejections.empty());
  std::string cpu =
      "apiVersion: grove.io/v1alpha1\nkind: PodCliqueSet\nmetadata: {name: c}\nspec:\n  template:\n"
      "    cliques:\n      - name: web\n        annotations: {grove.io/mnnvl-group: web}\n"
      "        spec: {replicas: 1, podSpec: {containers: [{name: c}]}}\n";
  CHECK_THAT(messages(read({{cpu, "c.yaml"}}, t).rejections),
             Catch::Contains("c.yaml:8:45: PodCliqueSet 'c': clique 'web' asks for grove.io/mnnvl-group 'web' but for "
                             "no nvidia.com/gpu"));
}

TEST_CASE("Grove refuses counts and clique names its webhook does not accept", "[grove]") {
  Topology t = preset("gb200-nvl72:racks=1");
  const std::string bad_group = "        minAvailable: 3\n";
  ManifestJobs out = read({{pcs("", bad_group, 1, 2), "p.yaml"}}, t);
  CHECK(out.jobs.empty());
  CHECK_THAT(messages(out.rejections),
             Catch::Contains("scaling group 'decode': minAvailable 3 must not be greater than replicas 2"));
  std::string unknown = pcs("", "");
  unknown.replace(unknown.find("[dleader, dworker]"), 18, "[dleader, dworkers]");
  CHECK_THAT(messages(read({{unknown, "p.yaml"}}, t).rejections),
             Catch::Contains("unidentified PodClique names found: dworkers"));
  std::string zero = pcs("", "");
  zero.replace(zero.find("replicas: 2\n          podSpec"), 11, "replicas: 0");
  CHECK_THAT(messages(read({{zero, "p.yaml"}}, t).rejections),
             Catch::Contains("clique 'prefill' replicas: must be greater than 0"));
  // Clique roleNames and scaling group names are unique, and a clique is in
  // one scaling group at most.
  std::string roles = pcs("", "");
  roles.replace(roles.find("spec:\n          replicas: 1\n          podSpec:\n            containers: [{name: d"), 5,
                "spec:\n          roleName: same");
  roles.replace(roles.rfind("spec:\n          replicas: 1\n          podSpec:\n            containers: [{name: d"), 5,
                "spec:\n          roleName: same");
  CHECK_THAT(messages(read({{roles, "p.yaml"}}, t).rejections),
             Catch::Contains("cliques 'dleader' and 'dworker' have the same roleName 'same'"));
  const std::string twice = "      - name: decode\n        cliqueNames: [dworker]\n";
  const std::string both = messages(read({{pcs("", twice), "p.yaml"}}, t).rejections);
  CHECK_THAT(both, Catch::Contains("scaling group name 'decode' is given twice"));
  CHECK_THAT(both, Catch::Contains("clique 'dworker' is in scaling groups 'decode' and 'decode'"));
  // Malformed input is an input error, not a verdict.
  std::string junk = pcs("", "");
  junk.replace(junk.find("replicas: 2\n  template"), 11, "replicas: two");
  CHECK_THROWS_AS(read({{junk, "p.yaml"}}, t), InputError);
}

TEST_CASE("a PodCliqueSet's topoplan.io/perf-class annotation is the service's workload class", "[grove]") {
  Topology t = preset("gb200-nvl72:racks=2");
  ManifestJobs m = read({{pcs("", "", 2, 1, "  annotations:\n    topoplan.io/perf-class: decode\n"), "p.yaml"}}, t);
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].perf_class == "decode");
  CHECK(read({{pcs(""), "p.yaml"}}, t).jobs.at(0).perf_class.empty());
}
