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
  // One clique twice in one group (a fuzzer found it indexing a group not yet kept).
  std::string repeated = pcs("", "");
  repeated.replace(repeated.find("[dleader, dworker]"), 18, "[dleader, dworker, dworker]");
  CHECK_THAT(messages(read({{repeated, "p.yaml"}}, t).rejections),
             Catch::Contains("scaling group 'decode' lists clique 'dworker' twice"));
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

TEST_CASE("a PodCliqueSet's topoplan.io annotations give prompt lengths, SLO targets and the same-host switch",
          "[grove]") {
  Topology t = preset("gb200-nvl72:racks=2");
  ManifestJobs m =
      read({{pcs("", "", 2, 1,
                 "  annotations:\n    topoplan.io/prompt-tokens: \"4000\"\n    topoplan.io/ttft-ms: \"800\"\n"
                 "    topoplan.io/kv-same-host: \"false\"\n"),
             "p.yaml"}},
           t);
  REQUIRE(m.jobs.size() == 1);
  REQUIRE(m.jobs[0].service);
  CHECK(m.jobs[0].service->workload.prompt_tokens == 4000);
  CHECK(m.jobs[0].service->ttft_ms == Approx(800));
  CHECK_FALSE(m.jobs[0].service->tpot_ms);
  CHECK_FALSE(m.jobs[0].service->kv_same_host);
  CHECK_THROWS_WITH(read({{pcs("", "", 2, 1, "  annotations:\n    topoplan.io/kv-same-host: \"no\"\n"), "p.yaml"}}, t),
                    Catch::Contains("'topoplan.io/kv-same-host' is \"true\" or \"false\", not 'no'"));
}

namespace {

// A set named `name` of cliques a, b, c (4 GPUs a pod), each with the extra
// spec lines given for it, and `set_extra` lines under the template.
std::string ordered(const std::string& set_extra, const std::vector<std::string>& clique_extra,
                    const std::string& name = "svc") {
  std::string out = "apiVersion: grove.io/v1alpha1\nkind: PodCliqueSet\nmetadata:\n  name: " + name +
                    "\nspec:\n  template:\n" + set_extra + "    cliques:\n";
  const char* names[] = {"a", "b", "c"};
  for (std::size_t i = 0; i < clique_extra.size(); ++i)
    out += std::string("      - name: ") + names[i] + "\n        spec:\n          replicas: 1\n" + clique_extra[i] +
           "          podSpec:\n            containers: [{name: x, resources: {limits: {nvidia.com/gpu: '4'}}}]\n";
  return out;
}

const std::string kExplicit = "    cliqueStartupType: CliqueStartupTypeExplicit\n";

}  // namespace

TEST_CASE("Grove refuses startsAfter cycles and references to cliques that do not exist", "[grove]") {
  const Topology t = preset("gb200-nvl72:racks=2");
  const std::string after_b = "          startsAfter: [b]\n";
  const std::string after_c = "          startsAfter: [c]\n";
  const std::string after_a = "          startsAfter: [a]\n";
  // a -> b -> c is an order; closing it back to a is a cycle, reported once
  // at the entry that closes it.
  CHECK(read({{ordered(kExplicit, {after_b, after_c, ""}), "p.yaml"}}, t).rejections.empty());
  const ManifestJobs cycle = read({{ordered(kExplicit, {after_b, after_c, after_a}), "p.yaml"}}, t);
  REQUIRE(cycle.rejections.size() == 1);
  CHECK(cycle.rejections[0].str() ==
        "p.yaml:24:25: PodCliqueSet 'svc': cliques start after each other in a cycle (a -> b -> c -> a); startsAfter "
        "must not be circular");
  CHECK(cycle.jobs.empty());
  CHECK_THAT(messages(read({{ordered(kExplicit, {"          startsAfter: [a]\n"}), "p.yaml"}}, t).rejections),
             Catch::Contains("clique 'a' cannot start after itself"));
  CHECK_THAT(messages(read({{ordered(kExplicit, {"          startsAfter: [decode]\n", ""}), "p.yaml"}}, t).rejections),
             Catch::Contains("p.yaml:12:25: PodCliqueSet 'svc': clique 'a' starts after 'decode', which is no clique"));
  CHECK_THAT(messages(read({{ordered(kExplicit, {"          startsAfter: [b, b]\n", ""}), "p.yaml"}}, t).rejections),
             Catch::Contains("clique 'a' starts after 'b' twice"));
  // Without the explicit startup type Grove does not read startsAfter: a
  // cycle there is a warning that it is ignored, not a refusal.
  const ManifestJobs ignored = read({{ordered("", {after_b, after_a}), "p.yaml"}}, t);
  CHECK(ignored.rejections.empty());
  CHECK(ignored.jobs.size() == 1);
  CHECK_THAT(messages(ignored.warnings), Catch::Contains("startsAfter is followed only with cliqueStartupType"));
  CHECK_THAT(messages(read({{ordered("    cliqueStartupType: Explicit\n", {""}), "p.yaml"}}, t).rejections),
             Catch::Contains("cliqueStartupType 'Explicit' is none of CliqueStartupTypeAnyOrder"));
}

TEST_CASE("Grove refuses names its pods could not carry: 45 characters for set, scaling group and clique", "[grove]") {
  const Topology t = preset("gb200-nvl72:racks=2");
  // A set name of 44 and clique 'a': 45 in all, accepted; one more is refused.
  CHECK(read({{ordered("", {""}, std::string(44, 's')), "p.yaml"}}, t).rejections.empty());
  const std::string refused = messages(read({{ordered("", {""}, std::string(45, 's')), "p.yaml"}}, t).rejections);
  CHECK_THAT(refused, Catch::Contains("p.yaml:8:15: PodCliqueSet '" + std::string(45, 's') +
                                      "': pods of clique 'a' "
                                      "would be named " +
                                      std::string(45, 's') + "-0-a-xxxxx"));
  CHECK_THAT(refused, Catch::Contains("46 characters together, more than the 45"));
  // In a scaling group the group's name counts too ('svc' + 'decode' +
  // 'dleader' is 16; a set of 30 more passes it).
  const std::string group = pcs("");
  CHECK(read({{group, "p.yaml"}}, t).rejections.empty());
  std::string long_set = group;
  long_set.replace(long_set.find("name: svc"), 9, "name: " + std::string(33, 'v'));
  CHECK_THAT(messages(read({{long_set, "p.yaml"}}, t).rejections),
             Catch::Contains("pods of clique 'dleader' would be named " + std::string(33, 'v') +
                             "-0-decode-0-dleader-xxxxx: the set's, scaling group's and clique's names are 46"));
  std::string upper = ordered("", {""});
  upper.replace(upper.find("name: a"), 7, "name: A");
  CHECK_THAT(messages(read({{upper, "p.yaml"}}, t).rejections), Catch::Contains("clique name 'A' is no DNS-1123"));
}

TEST_CASE("Grove refuses pods of one set under different schedulers, or one it cannot enable", "[grove]") {
  const Topology t = preset("gb200-nvl72:racks=2");
  auto with = [](std::string text, const std::vector<std::string>& schedulers) {
    // Each clique's podSpec gets its schedulerName.
    std::size_t at = 0;
    for (const std::string& s : schedulers) {
      at = text.find("          podSpec:\n", at) + 19;
      if (!s.empty()) text.insert(at, "            schedulerName: " + s + "\n");
    }
    return text;
  };
  CHECK(read({{with(ordered("", {"", ""}), {"kai-scheduler", "kai-scheduler"}), "p.yaml"}}, t).rejections.empty());
  CHECK_THAT(messages(read({{with(ordered("", {"", ""}), {"kai-scheduler", "volcano"}), "p.yaml"}}, t).rejections),
             Catch::Contains("clique 'b' is scheduled by 'volcano' and clique 'a' by 'kai-scheduler'; all pods of a "
                             "PodCliqueSet must have the same schedulerName"));
  CHECK_THAT(messages(read({{with(ordered("", {""}), {"my-scheduler"}), "p.yaml"}}, t).rejections),
             Catch::Contains("p.yaml:12:28: PodCliqueSet 'svc': schedulerName 'my-scheduler' is no scheduler Grove can "
                             "enable"));
  // An empty one is the operator's default: only the cluster knows which.
  const ManifestJobs mixed = read({{with(ordered("", {"", ""}), {"", "kai-scheduler"}), "p.yaml"}}, t);
  CHECK(mixed.rejections.empty());
  CHECK_THAT(messages(mixed.warnings),
             Catch::Contains("Grove accepts the set only when 'kai-scheduler' is its default"));
}
