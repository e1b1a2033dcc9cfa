// NVIDIA Dynamo DynamoGraphDeployments read as services: one slice, GPU
// components as roles (multi-node replicas, engine flags, phases), the
// deployment's packDomain through a Grove ClusterTopology, the KV transfer
// policy, and what Dynamo's webhook refuses.
#include <catch2/catch.hpp>

#include "source_dir.hpp"
#include "test_presets.hpp"

#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/placement/service.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

ManifestJobs read(const std::string& text, const Topology& t) {
  ManifestOptions o;
  o.level_labels = {{"example.com/nvl-block", "su"}};
  return read_job_manifests({{text, "dgd.yaml"}}, t, o);
}

std::string messages(const std::vector<Diagnostic>& ds) {
  std::string out;
  for (const Diagnostic& d : ds) out += d.str() + "\n";
  return out;
}

// A v1alpha1 graph of one frontend and the given worker services.
std::string graph(const std::string& spec_extra, const std::string& services) {
  return "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n  name: g\nspec:\n" + spec_extra +
         "  services:\n    Frontend: {componentType: frontend, replicas: 1}\n" + services;
}

std::string worker(const std::string& name, const std::string& extra, int gpus = 4) {
  return "    " + name + ":\n      componentType: worker\n" + extra + "      resources: {limits: {gpu: \"" +
         std::to_string(gpus) + "\"}}\n";
}

}  // namespace

TEST_CASE("a DynamoGraphDeployment reads the same in v1alpha1 and v1beta1", "[dynamo]") {
  const Topology t = preset("dgx-h100:nodes=4");
  for (const char* path : {"tests/data/dynamo/examples_backends_trtllm_deploy_disagg-multinode.yaml",
                           "tests/data/dynamo/examples_backends_trtllm_deploy_v1beta1_disagg-multinode.yaml"}) {
    INFO(path);
    const ManifestJobs out = read(topoplan::test::source_file(path), t);
    CHECK(out.rejections.empty());
    REQUIRE(out.jobs.size() == 1);
    const Job& job = out.jobs[0];
    CHECK(job.name == "trtllm-disagg-tp8");
    CHECK(job.kind == JobKind::inference);
    CHECK(job.replicas == 1);  // a graph is one slice
    REQUIRE(job.service);
    const Service& s = *job.service;
    // The frontend runs on CPUs; each worker is 1 replica of 2 nodes x 4 GPUs.
    REQUIRE(s.roles.size() == 2);
    for (const ServiceRole& role : s.roles) {
      CHECK(role.replicas == 1);
      CHECK(role.per_replica == 8);
      CHECK(role.parallelism.tp == 4);
      CHECK(role.parallelism.pp == 2);
    }
    // By --disaggregation-mode: the services are named prefill and decode,
    // but their componentType is worker.
    const ServiceRole& prefill = s.roles[0].name == "prefill" ? s.roles[0] : s.roles[1];
    const ServiceRole& decode = s.roles[0].name == "prefill" ? s.roles[1] : s.roles[0];
    CHECK(prefill.phase == RolePhase::prefill);
    CHECK(decode.phase == RolePhase::decode);
    CHECK(job.per_replica == 16);
    CHECK_FALSE(job.required);
  }
}

TEST_CASE("a graph's packDomain and KV transfer policy resolve through its ClusterTopology", "[dynamo]") {
  const Topology t = preset("gb200-nvl72:racks=4");
  const ManifestJobs out = read(topoplan::test::source_file("tests/data/dynamo/serving-gb200.yaml"), t);
  CHECK(out.rejections.empty());
  // The one warning: the engines' --model is in the model table.
  REQUIRE(out.warnings.size() == 1);
  CHECK_THAT(messages(out.warnings), Catch::Contains("model 'meta-llama/Llama-3.3-70B-Instruct': workload facts"));
  REQUIRE(out.jobs.size() == 1);
  const Job& job = out.jobs[0];
  CHECK(job.service->workload.parameters == 70.6e9);
  CHECK(derive_kv_bytes_per_token(job.service->workload) == 327680);
  // block -> example.com/nvl-block -> su.
  REQUIRE(job.required);
  CHECK(*job.required == "su");
  CHECK(job.queue == "serving");
  const Service& s = *job.service;
  REQUIRE(s.roles.size() == 2);
  CHECK(s.roles[0].name == "VllmPrefillWorker");
  CHECK(s.roles[0].phase == RolePhase::prefill);  // subComponentType
  CHECK(s.roles[0].replicas == 4);
  CHECK(s.roles[0].parallelism.tp == 2);  // --tensor-parallel-size in a shell line
  CHECK(s.roles[1].phase == RolePhase::decode);
  CHECK(s.roles[1].parallelism.tp == 4);
  CHECK(s.disaggregated());
  // nvidia.com/gpu.clique is the NVLink domain: the rack of an NVL72.
  REQUIRE(s.kv_level);
  CHECK(*s.kv_level == "rack");
  CHECK(s.kv_required);
}

TEST_CASE("a component's pack is the graph's only when the component is the whole graph", "[dynamo]") {
  const Topology t = preset("gb200-nvl72:racks=2");
  const std::string profile = "  topologyConstraint: {topologyProfile: absent}\n";
  // One GPU component: its pack packs the slice (rack is a level name, the
  // ClusterTopology not being among the inputs).
  ManifestJobs one = read(graph(profile, worker("w", "      replicas: 3\n      topologyConstraint: {packDomain: rack}\n")), t);
  REQUIRE(one.jobs.size() == 1);
  REQUIRE(one.jobs[0].required);
  CHECK(*one.jobs[0].required == "rack");
  CHECK_THAT(messages(one.warnings), Catch::Contains("ClusterTopology 'absent' is not among the inputs"));
  // Two: packing one of them apart is not honoured, and says so.
  ManifestJobs two = read(graph(profile, worker("a", "      topologyConstraint: {packDomain: rack}\n") + worker("b", "")), t);
  REQUIRE(two.jobs.size() == 1);
  CHECK_FALSE(two.jobs[0].required);
  CHECK_THAT(messages(two.warnings), Catch::Contains("component 'a' packs in 'rack' apart from the rest"));
  // A domain that is neither in a ClusterTopology nor a level: an input error.
  CHECK_THROWS_WITH(read(graph("  topologyConstraint: {topologyProfile: absent, packDomain: zone}\n", worker("w", "")), t),
                    Catch::Contains("topology domain 'zone' is not a level of topology 'gb200-nvl72'") &&
                        Catch::Contains("give ClusterTopology 'absent' among the inputs"));
}

TEST_CASE("engine sizes that do not add up to a replica's GPUs fall back, with a warning", "[dynamo]") {
  const Topology t = preset("gb200-nvl72:racks=1");
  const std::string extra =
      "      multinode: {nodeCount: 2}\n      extraPodSpec:\n        mainContainer:\n"
      "          args: [\"python3 -m dynamo.sglang --tp-size 16\"]\n";
  ManifestJobs out = read(graph("", worker("w", extra)), t);
  REQUIRE(out.jobs.size() == 1);
  const ServiceRole& role = out.jobs[0].service->roles.at(0);
  CHECK(role.per_replica == 8);
  CHECK(role.parallelism.tp == 4);
  CHECK(role.parallelism.pp == 2);
  CHECK_THAT(messages(out.warnings), Catch::Contains("its engine's tp 16 x pp 1 x dp 1 is not its 8 GPUs a replica"));
}

TEST_CASE("what a graph without GPUs, or with a KV policy but no prefill, is told", "[dynamo]") {
  const Topology t = preset("gb200-nvl72:racks=1");
  // Scaled to zero: nothing to place.
  ManifestJobs none = read(graph("", worker("w", "      replicas: 0\n")), t);
  CHECK(none.jobs.empty());
  CHECK_THAT(messages(none.warnings), Catch::Contains("no component asks for GPUs"));
  ManifestJobs agg = read(
      graph("  experimental:\n    kvTransferPolicy: {labelKey: nvidia.com/gpu.clique, domain: rack}\n", worker("w", "")), t);
  REQUIRE(agg.jobs.size() == 1);
  CHECK_THAT(messages(agg.warnings), Catch::Contains("kvTransferPolicy needs prefill and decode components"));
  // The policy's enforcement defaults to required.
  CHECK(agg.jobs[0].service->kv_required);
}

TEST_CASE("what Dynamo's webhook refuses is a rejection, one per graph", "[dynamo]") {
  const Topology t = preset("gb200-nvl72:racks=2");
  const ManifestJobs out = read(topoplan::test::source_file("tests/data/dynamo/refused.yaml"), t);
  CHECK(out.jobs.empty());
  const std::string text = messages(out.rejections);
  for (const char* graph_name : {"no-profile", "unknown-domain", "broader", "no-pack-domain", "same-names",
                                 "no-weight", "bad-policy", "too-wide"})
    CHECK_THAT(text, Catch::Contains(std::string("DynamoGraphDeployment '") + graph_name + "'"));
  CHECK_THAT(text, Catch::Contains("packDomain 'block' not found in cluster topology 'fabric' [zone rack host]"));
  CHECK_THAT(text, Catch::Contains("packDomain 'zone' is broader than the deployment's 'rack'"));
}

TEST_CASE("a graph's topoplan.io/perf-class annotation is the service's workload class", "[dynamo]") {
  const Topology t = preset("gb200-nvl72:racks=1");
  std::string text = graph("", worker("w", ""));
  const std::string meta = "metadata:\n  name: g\n";
  text.replace(text.find(meta), meta.size(), meta + "  annotations:\n    topoplan.io/perf-class: serve\n");
  const ManifestJobs out = read(text, t);
  REQUIRE(out.jobs.size() == 1);
  CHECK(out.jobs[0].perf_class == "serve");
  CHECK(read(graph("", worker("w", "")), t).jobs.at(0).perf_class.empty());
}

TEST_CASE("a graph's prompt lengths, SLO and same-host switch come from annotations and its SLA planner", "[dynamo]") {
  const Topology t = preset("dgx-h100:nodes=4");
  const std::string workers =
      worker("prefill", "      subComponentType: prefill\n") + worker("decode", "      subComponentType: decode\n");
  auto with_meta = [](std::string text, const std::string& annotations) {
    const std::string meta = "metadata:\n  name: g\n";
    text.replace(text.find(meta), meta.size(), meta + "  annotations:\n" + annotations);
    return text;
  };
  auto planner = [](const std::string& args) {
    return "    Planner:\n      componentType: planner\n      extraPodSpec:\n        mainContainer:\n"
           "          command: [python3, -m, planner_sla]\n          args: " +
           args + "\n";
  };
  // Nothing said: no lengths, no targets, same-host allowed.
  const ManifestJobs plain = read(graph("", workers), t);
  REQUIRE(plain.jobs.size() == 1);
  const Service& p = *plain.jobs[0].service;
  CHECK(p.workload.prompt_tokens == 0);
  CHECK_FALSE(p.ttft_ms);
  CHECK(p.kv_same_host);
  // The planner's flags are the SLO; an annotation wins over one of them.
  const ManifestJobs planned =
      read(with_meta(graph("", workers + planner("[--environment=kubernetes, --ttft=200, --itl, \"10\"]")),
                     "    topoplan.io/prompt-tokens: \"8000\"\n    topoplan.io/output-tokens: \"500\"\n"
                     "    topoplan.io/tpot-ms: \"25\"\n    topoplan.io/kv-same-host: \"false\"\n"),
           t);
  REQUIRE(planned.jobs.size() == 1);
  const Service& s = *planned.jobs[0].service;
  CHECK(s.workload.prompt_tokens == 8000);
  CHECK(s.workload.output_tokens == 500);
  CHECK(s.ttft_ms == Approx(200));
  CHECK(s.tpot_ms == Approx(25));
  CHECK_FALSE(s.kv_same_host);
  CHECK_THAT(messages(planned.warnings), Catch::Contains("component 'Planner' is Dynamo's SLA planner: its targets "
                                                         "(TTFT 200 ms, ITL 10 ms) are the service's SLO"));
  // A planner without targets runs on its defaults (dynamo/planner/defaults.py).
  const ManifestJobs defaults = read(graph("", workers + planner("[--environment=kubernetes]")), t);
  CHECK(defaults.jobs.at(0).service->ttft_ms == Approx(500));
  CHECK(defaults.jobs.at(0).service->tpot_ms == Approx(50));
  CHECK_THAT(messages(defaults.warnings), Catch::Contains("ITL 50 ms, its defaults"));
  // A malformed annotation is an error at its line.
  const std::string bad = with_meta(graph("", workers), "    topoplan.io/prompt-tokens: \"lots\"\n");
  try {
    read(bad, t);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Contains("dgd.yaml:6:32:"));
    CHECK_THAT(e.what(),
               Catch::Contains("'topoplan.io/prompt-tokens' is a number of tokens from 1 to 10000000, not 'lots'"));
  }
}
