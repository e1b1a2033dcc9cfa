// LWS DisaggregatedSets read as services: slices of roles whose replicas are
// LeaderWorkerSet groups, placementPolicy as pack, spread and exclusivity,
// and what the API server and the webhook refuse.
#include <catch2/catch.hpp>

#include "test_presets.hpp"

#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/placement/service.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

std::string role(const std::string& name, const std::string& replicas, int size, int gpus,
                 const std::string& extra = "") {
  return "    - name: " + name + "\n" + extra + "      spec:\n" + replicas +
         "        leaderWorkerTemplate:\n          size: " + std::to_string(size) +
         "\n          workerTemplate:\n            spec:\n              containers:\n"
         "                - {name: c, resources: {limits: {nvidia.com/gpu: " +
         std::to_string(gpus) + "}}}\n";
}

std::string ds(const std::string& spec_extra, const std::string& roles) {
  return "apiVersion: disaggregatedset.x-k8s.io/v1\nkind: DisaggregatedSet\nmetadata:\n  name: llm\nspec:\n" +
         spec_extra + "  roles:\n" + roles;
}

const std::string kRoles = role("prefill", "        replicas: 2\n", 2, 4) + role("decode", "", 1, 4);

ManifestJobs read(const std::string& text, const Topology& t) { return read_job_manifests({{text, "d.yaml"}}, t); }

std::string messages(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const Diagnostic& d : ds) out += d.str() + "\n";
  return out;
}

}  // namespace

TEST_CASE("a DisaggregatedSet is a service of slices whose role replicas are LWS groups", "[disaggregatedset]") {
  Topology t = preset("gb200-nvl72:racks=2");
  ManifestJobs out = read(ds("  slices: 3\n", kRoles), t);
  REQUIRE(out.jobs.size() == 1);
  const Job& job = out.jobs.front();
  REQUIRE(job.service);
  const Service& s = *job.service;
  CHECK(s.slices == 3);
  CHECK(job.replicas == 3);
  REQUIRE(s.roles.size() == 2);
  // A prefill group is a leader and a worker of 4 GPUs: one engine, TP 4 in
  // each pod, PP 2 across them.
  CHECK(s.roles[0].name == "prefill");
  CHECK(s.roles[0].replicas == 2);
  CHECK(s.roles[0].per_replica == 8);
  CHECK(s.roles[0].parallelism.tp == 4);
  CHECK(s.roles[0].parallelism.pp == 2);
  CHECK(s.roles[1].replicas == 1);  // replicas default to 1
  CHECK(s.roles[1].per_replica == 4);
  CHECK(job.per_replica == 2 * 8 + 4);
  CHECK_FALSE(job.required);
  CHECK_FALSE(job.spread);
  CHECK(s.roles[0].phase == RolePhase::prefill);
  CHECK(s.roles[1].phase == RolePhase::decode);
}

TEST_CASE("a DisaggregatedSet role's phase comes from its engine's flags before its name", "[disaggregatedset]") {
  Topology t = preset("gb200-nvl72:racks=2");
  std::string roles = role("ctx", "", 1, 4) + role("gen", "", 1, 4);
  // The gen role's container runs SGLang as a decode server.
  roles.replace(roles.rfind("{name: c,"), 9,
                "{name: c, args: [--disaggregation-mode, decode, --model, meta-llama/Llama-3.1-8B-Instruct],");
  ManifestJobs out = read(ds("", roles), t);
  REQUIRE(out.jobs.size() == 1);
  const Service& s = *out.jobs.front().service;
  CHECK(s.roles[0].phase == RolePhase::other);
  CHECK(s.roles[1].phase == RolePhase::decode);
  CHECK_FALSE(s.disaggregated());
  // Its --model is in the model table: the service and the job get its facts.
  CHECK(s.workload.parameters == 8.03e9);
  CHECK(out.jobs.front().workload.layers == 32);
  CHECK_THAT(messages(out.warnings), Catch::Contains("model 'meta-llama/Llama-3.1-8B-Instruct' (read as meta-llama/Llama-3.1-8B): workload facts"));
}

TEST_CASE("placementPolicy packs and spreads slices, or keeps domains to one slice", "[disaggregatedset]") {
  Topology t = preset("gb200-nvl72:racks=2");
  ManifestJobs slice =
      read(ds("  slices: 2\n  placementPolicy: {type: ExclusiveSlice, topology: nvidia.com/gpu.clique}\n", kRoles), t);
  REQUIRE(slice.jobs.size() == 1);
  CHECK(slice.jobs.front().required == std::optional<std::string>("rack"));
  CHECK(slice.jobs.front().spread == std::optional<std::string>("rack"));
  CHECK_FALSE(slice.jobs.front().exclusive_level);
  // One slice has nothing to spread.
  ManifestJobs one =
      read(ds("  placementPolicy: {type: ExclusiveSlice, topology: nvidia.com/gpu.clique}\n", kRoles), t);
  REQUIRE(one.jobs.size() == 1);
  CHECK_FALSE(one.jobs.front().spread);

  ManifestJobs excl = read(
      ds("  slices: 2\n  placementPolicy: {type: ExclusiveTopology, topology: nvidia.com/gpu.clique}\n", kRoles), t);
  REQUIRE(excl.jobs.size() == 1);
  CHECK(excl.jobs.front().exclusive_level == std::optional<std::string>("rack"));

  // A label that names no level is an input error at the label.
  try {
    read(ds("  placementPolicy: {type: ExclusiveSlice, topology: example.com/pool}\n", kRoles), t);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(messages(e.diagnostics()), Catch::Contains("d.yaml:6:53: placementPolicy.topology: node label "
                                                          "'example.com/pool' names no level"));
  }
}

TEST_CASE("what the API server and the DisaggregatedSet webhook refuse is a rejection", "[disaggregatedset]") {
  Topology t = preset("gb200-nvl72:racks=2");
  auto rejected = [&](const std::string& text) {
    ManifestJobs out = read(text, t);
    CHECK(out.jobs.empty());
    return messages(out.rejections);
  };
  CHECK_THAT(rejected(ds("", role("serve", "", 1, 4))), Catch::Contains("spec.roles has 1 role; a DisaggregatedSet has "
                                                                        "2 to 10"));
  CHECK_THAT(rejected(ds("  slices: 101\n", kRoles)), Catch::Contains("spec.slices is 101; it must be from 1 to 100"));
  CHECK_THAT(rejected(ds("  placementPolicy: {type: Spread, topology: nvidia.com/gpu.clique}\n", kRoles)),
             Catch::Contains("placementPolicy.type 'Spread' is not one of None, ExclusiveSlice, ExclusiveTopology"));
  CHECK_THAT(rejected(ds("  placementPolicy: {type: ExclusiveSlice}\n", kRoles)),
             Catch::Contains("topology is required when type is not None"));
  CHECK_THAT(rejected(ds("", role("prefill", "        replicas: 0\n", 1, 4) + role("decode", "", 1, 4))),
             Catch::Contains("replicas must be zero for all non-External roles or non-zero"));
  CHECK_THAT(rejected(ds("", role("Prefill", "", 1, 4) + role("decode", "", 1, 4))),
             Catch::Contains("role name 'Prefill' must be a DNS-1123 label"));
  const std::string external = "      scaling: {mode: External}\n";
  CHECK_THAT(rejected(ds("  slices: 2\n", role("prefill", "", 1, 4, external) + role("decode", "", 1, 4))),
             Catch::Contains("spec.slices > 1 is not supported while any role has scaling.mode: External"));
  // A pod larger than any node can never be scheduled.
  CHECK_THAT(rejected(ds("", role("prefill", "", 1, 8) + role("decode", "", 1, 4))),
             Catch::Contains("the pods of role 'prefill' ask for 8 accelerators per pod, but the largest node"));
  // Every role at zero replicas is a scaled-down set: nothing to place, no refusal.
  ManifestJobs zero =
      read(ds("", role("prefill", "        replicas: 0\n", 1, 4) + role("decode", "        replicas: 0\n", 1, 4)), t);
  CHECK(zero.jobs.empty());
  CHECK(zero.rejections.empty());
  CHECK_THAT(messages(zero.warnings), Catch::Contains("every role has 0 replicas; nothing to place"));
}

TEST_CASE("a DisaggregatedSet larger than topoplan plans is refused, not wrapped around", "[disaggregatedset]") {
  Topology t = preset("gb200-nvl72:racks=1");
  ManifestJobs out =
      read(ds("", role("prefill", "        replicas: 1000000\n", 1000000, 4) + role("decode", "", 1, 4)), t);
  CHECK(out.jobs.empty());
  CHECK_THAT(messages(out.rejections), Catch::Contains("accelerators a slice are more than topoplan plans"));
}

TEST_CASE("Kueue TAS annotations on a DisaggregatedSet's roles act per LWS group, never across roles",
          "[disaggregatedset]") {
  Topology t = preset("gb200-nvl72:racks=2");
  // Each role's worker template asks Kueue for one NVLink domain per group and
  // names the same podset group.
  auto annotated = [](const std::string& name, int size) {
    std::string r = role(name, "", size, 4);
    const std::string at = "          workerTemplate:\n";
    r.replace(r.find(at), at.size(),
              at + "            metadata:\n              annotations:\n"
              "                kueue.x-k8s.io/podset-group-name: pd\n"
              "                kueue.x-k8s.io/podset-required-topology: nvidia.com/gpu.clique\n");
    return r;
  };
  ManifestJobs out = read(ds("", annotated("prefill", 2) + annotated("decode", 1)), t);
  REQUIRE(out.jobs.size() == 1);
  const std::string text = messages(out.warnings);
  // prefill's groups are 2 pods: packing each is not honoured; decode's are
  // one pod, which any domain holds.
  CHECK_THAT(text, Catch::Contains("role 'prefill': kueue.x-k8s.io/podset-required-topology packs each of the role's "
                                   "LeaderWorkerSet groups"));
  CHECK_THAT(text, !Catch::Contains("role 'decode': kueue.x-k8s.io/podset-required-topology"));
  CHECK_THAT(text, Catch::Contains("podset-group-name 'pd' is on roles prefill, decode"));
  CHECK(out.rejections.empty());
}

TEST_CASE("a DisaggregatedSet's topoplan.io/perf-class annotation is the service's workload class",
          "[disaggregatedset]") {
  Topology t = preset("gb200-nvl72:racks=2");
  std::string text = ds("", kRoles);
  const std::string meta = "metadata:\n  name: llm\n";
  text.replace(text.find(meta), meta.size(), meta + "  annotations:\n    topoplan.io/perf-class: serve\n");
  ManifestJobs m = read(text, t);
  REQUIRE(m.jobs.size() == 1);
  CHECK(m.jobs[0].perf_class == "serve");
  CHECK(read(ds("", kRoles), t).jobs.at(0).perf_class.empty());
}

TEST_CASE("a DisaggregatedSet's topoplan.io annotations give prompt lengths and SLO targets", "[disaggregatedset]") {
  Topology t = preset("gb200-nvl72:racks=2");
  std::string text = ds("", kRoles);
  const std::string meta = "metadata:\n  name: llm\n";
  text.replace(text.find(meta), meta.size(),
               meta + "  annotations:\n    topoplan.io/output-tokens: \"300\"\n    topoplan.io/tpot-ms: \"40\"\n");
  ManifestJobs m = read(text, t);
  REQUIRE(m.jobs.size() == 1);
  REQUIRE(m.jobs[0].service);
  CHECK(m.jobs[0].service->workload.output_tokens == 300);
  CHECK(m.jobs[0].service->tpot_ms == Approx(40));
  CHECK(m.jobs[0].service->kv_same_host);
  text.replace(text.find("\"40\""), 4, "\"0\"");
  CHECK_THROWS_WITH(read(text, t), Catch::Contains("'topoplan.io/tpot-ms' is a time in milliseconds above 0, not '0'"));
}
