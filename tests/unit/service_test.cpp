// Inference services: the native reader's roles, slices, pack, availability,
// workload facts and isolation, KV sizes, memory per GPU and role dealing.
#include "topoplan/placement/service.hpp"

#include <catch2/catch.hpp>

#include <set>

#include "service_fixtures.hpp"
#include "test_presets.hpp"
#include "topoplan/placement/job.hpp"
#include "topoplan/placement/jobs_yaml.hpp"

using namespace topoplan;
using topoplan::test::chat70b;
using topoplan::test::preset;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// chat-70b with everything a service may say.
const std::string kChat70b = chat70b(R"(    kind: inference
    slo: {ttft_ms: 800, tpot_ms: 40}
    tenant: search
    isolation: nvlink-domain
)");

std::string error_of(const std::string& yaml) {
  try {
    parse_jobs_yaml(yaml, "jobs.yaml");
  } catch (const InputError& e) {
    return e.diagnostics().front().str();
  }
  return "";
}

}  // namespace

TEST_CASE("the issue's chat-70b service reads as written and maps onto the job's fields") {
  const std::vector<Job> jobs = parse_jobs_yaml(kChat70b, "jobs.yaml");
  REQUIRE(jobs.size() == 1);
  const Job& job = jobs[0];
  REQUIRE(job.service);
  const Service& s = *job.service;
  CHECK(job.kind == JobKind::inference);
  CHECK(s.slices == 3);
  REQUIRE(s.roles.size() == 2);
  CHECK(s.roles[0].name == "prefill");  // manifest order
  CHECK(s.roles[0].replicas == 2);
  CHECK(s.roles[0].per_replica == 4);
  CHECK(s.roles[0].parallelism.tp == 4);
  CHECK(s.roles[1].name == "decode");
  CHECK(s.roles[1].parallelism.tp == 8);
  CHECK(s.disaggregated());
  // Slices are the job's replicas: 2 x 4 + 8 accelerators each.
  CHECK(job.replicas == 3);
  CHECK(job.per_replica == 16);
  CHECK(job.required == std::optional<std::string>("rack"));
  CHECK(job.spread == std::optional<std::string>("rack"));
  CHECK(job.min_replicas == 2);
  // TP 8 divides every role's replica? No (4): the granule is 4.
  CHECK(job.parallelism.tp == 4);
  CHECK(job.parallelism.ranks() == 16);
  REQUIRE(s.availability);
  CHECK(s.availability->survive == 1);
  CHECK(s.availability->min_slices == 2);
  CHECK(s.workload.kv_bytes_per_token == 327680);
  CHECK(s.workload.prompt_tokens == 8000);
  CHECK(s.workload.output_tokens == 500);
  CHECK(s.workload.parameters == 70e9);
  CHECK(s.ttft_ms == std::optional<double>(800));
  CHECK(s.tpot_ms == std::optional<double>(40));
  CHECK(job.tenant == "search");
  CHECK(s.isolation == Isolation::nvlink_domain);
}

TEST_CASE("a service in today's form stays a plain job unless it uses a service key") {
  const std::vector<Job> plain = parse_jobs_yaml(
      "jobs:\n  - {name: a, replicas: 3, gpus_per_replica: 8, parallelism: {tp: 8}, spread: rack, "
      "workload: {parameters: 70B}}\n",
      "jobs.yaml");
  CHECK_FALSE(plain[0].service);
  const std::vector<Job> guaranteed = parse_jobs_yaml(
      "jobs:\n  - {name: a, replicas: 3, gpus_per_replica: 8, parallelism: {tp: 8}, "
      "availability: {level: rack, survive: 1, min_slices: 2}}\n",
      "jobs.yaml");
  REQUIRE(guaranteed[0].service);
  const Service& s = *guaranteed[0].service;
  CHECK(s.slices == 3);
  REQUIRE(s.roles.size() == 1);
  CHECK(s.roles[0].replicas == 1);
  CHECK(s.roles[0].per_replica == 8);
  CHECK(guaranteed[0].replicas == 3);
  CHECK(guaranteed[0].per_replica == 8);
  CHECK(guaranteed[0].parallelism.tp == 8);
  CHECK(guaranteed[0].spread == std::optional<std::string>("rack"));
  CHECK(guaranteed[0].min_replicas == 2);
}

TEST_CASE("service keys that cannot hold are errors with file, line and column") {
  CHECK(error_of("jobs:\n  - name: a\n    slices: 2\n    availability: {level: rack, survive: 1, min_slices: 2}\n"
                 "    roles: {decode: {gpus_per_replica: 8}}\n") ==
        "jobs.yaml:4:57: 2 slices cannot keep 2 after losing 1 rack domain: with one slice per domain, give "
        "slices: 3");
  CHECK(error_of("jobs:\n  - name: a\n    roles: {decode: {replica: 2, gpus_per_replica: 8}}\n")
            .find("jobs.yaml:3:22: unknown key 'replica' in role 'decode'") == 0);
  CHECK(error_of("jobs:\n  - name: a\n    roles: {decode: {replica: 2, gpus_per_replica: 8}}\n")
            .find("did you mean 'replicas'") != std::string::npos);
  CHECK(error_of("jobs:\n  - name: a\n    roles: {decode: {gpus_per_replica: 8}}\n    isolation: rack\n") ==
        "jobs.yaml:4:16: 'isolation' keeps a tenant's domains to itself; give job 'a' a 'tenant'");
  CHECK(error_of("jobs:\n  - name: a\n    tenant: t\n    roles: {decode: {gpus_per_replica: 8}}\n    isolation: "
                 "nvlink\n")
            .find("jobs.yaml:5:16: unknown isolation 'nvlink'") == 0);
  CHECK(error_of("jobs:\n  - name: a\n    replicas: 2\n    roles: {decode: {gpus_per_replica: 8}}\n") ==
        "jobs.yaml:3:15: job 'a' has roles: give 'replicas' per role (slices count copies of the role set)");
  CHECK(error_of("jobs:\n  - name: a\n    roles: {decode: {gpus_per_replica: 8, parallelism: {tp: 4}}}\n")
            .find("jobs.yaml:3:56: role 'decode': parallelism tp 4 x pp 1 x dp 1 = 4 ranks, but gpus_per_replica "
                  "is 8") == 0);
  CHECK(error_of("jobs:\n  - name: a\n    kind: training\n    roles: {decode: {gpus_per_replica: 8}}\n")
            .find("jobs.yaml:3:11: job 'a' has service keys") == 0);
  CHECK(error_of("jobs:\n  - name: a\n    roles: {decode: {gpus_per_replica: 8}}\n    pack: rack\n    required: "
                 "node\n")
            .find("jobs.yaml:4:11: job 'a' gives 'pack' and 'required'") == 0);
  CHECK(error_of("jobs:\n  - name: a\n    roles: {decode: {gpus_per_replica: 8}}\n    workload: {kv_heads: 8}\n")
            .find("jobs.yaml:4:26: 'kv_heads' needs 'head_dim'") == 0);
  // 1,000,000 x 100,000,000 would wrap a 32-bit count.
  CHECK(error_of("jobs:\n  - name: a\n    roles: {d: {replicas: 1000000, gpus_per_replica: 100000000}}\n") ==
        "jobs.yaml:3:12: service 'a' asks for 100000000000000 accelerators a slice; at most 100000000");
  CHECK(error_of("jobs:\n  - name: a\n    roles: {decode: {gpus_per_replica: 8}}\n    workload: {kv_head: 8}\n")
            .find("did you mean 'kv_heads'") != std::string::npos);
}

TEST_CASE("KV bytes per token follow GQA and MLA as the reference note derives them") {
  ServiceWorkload llama;  // Llama-3-70B: 80 layers, 8 KV heads of 128, bf16
  llama.layers = 80;
  llama.kv_heads = 8;
  llama.head_dim = 128;
  CHECK(derive_kv_bytes_per_token(llama) == 327680);  // 320 KiB
  ServiceWorkload llama8b;  // Llama-3.1-8B: 32 layers, 8 KV heads of 128
  llama8b.layers = 32;
  llama8b.kv_heads = 8;
  llama8b.head_dim = 128;
  CHECK(derive_kv_bytes_per_token(llama8b) == 131072);
  ServiceWorkload deepseek;  // DeepSeek-V3: 61 layers, latent 512 + rope 64
  deepseek.layers = 61;
  deepseek.kv_latent = 576;
  CHECK(derive_kv_bytes_per_token(deepseek) == 70272);
  deepseek.kv_bytes_per_token = 1000;  // given wins
  CHECK(derive_kv_bytes_per_token(deepseek) == 1000);
  CHECK(derive_kv_bytes_per_token(ServiceWorkload{}) == 0);
}

TEST_CASE("memory per GPU: weights over tp x pp, KV split down to one head a rank, MLA latent whole") {
  Service s;
  s.workload.parameters = 70e9;
  s.workload.layers = 80;
  s.workload.kv_heads = 8;
  s.workload.head_dim = 128;
  s.workload.prompt_tokens = 8000;
  s.workload.output_tokens = 500;
  s.workload.batch = 4;
  ServiceRole decode{"decode", 1, 8, {}, 0, RolePhase::decode};
  decode.parallelism.tp = 8;
  // 140e9 bytes of weights / 8 + 4 x 8500 tokens x 327,680 bytes / 8 ranks.
  CHECK(role_memory_bytes(s, decode) == Approx(140e9 / 8 + 4.0 * 8500 * 327680 / 8));
  // At tp 16 the 8 KV heads are replicated: KV per GPU stops shrinking.
  decode.parallelism.tp = 16;
  CHECK(role_memory_bytes(s, decode) == Approx(140e9 / 16 + 4.0 * 8500 * 327680 / 8));
  // A prefill role holds its prompts only.
  ServiceRole prefill{"prefill", 1, 4, {}, 0, RolePhase::prefill};
  prefill.parallelism.tp = 4;
  CHECK(role_memory_bytes(s, prefill) == Approx(140e9 / 4 + 4.0 * 8000 * 327680 / 4));
  // MLA: the latent is on every TP rank.
  Service mla;
  mla.workload.parameters = 1e9;
  mla.workload.layers = 61;
  mla.workload.kv_latent = 576;
  mla.workload.tokens_in_flight = 10000;
  ServiceRole r{"decode", 1, 4, {}, 0, RolePhase::decode};
  r.parallelism.tp = 4;
  CHECK(role_memory_bytes(mla, r) == Approx(2e9 / 4 + 10000.0 * 70272));
  // Experts are split over ep as well; data-parallel ranks hold their own requests.
  Service moe;
  moe.workload.parameters = 671e9;
  moe.workload.expert_parameters = 654e9;
  moe.workload.bytes_per_parameter = 1;
  ServiceRole wide{"decode", 1, 64, {}, 0, RolePhase::decode};
  wide.parallelism.dp = 64;
  wide.parallelism.ep = 64;
  CHECK(role_memory_bytes(moe, wide) == Approx(17e9 + 654e9 / 64));
}

TEST_CASE("a service that fits no GPU's HBM is refused with the numbers and the tp that fits") {
  const Topology t = preset("dgx-h100:nodes=2");
  std::vector<Job> jobs = parse_jobs_yaml(R"(jobs:
  - name: big
    roles:
      decode: {replicas: 1, gpus_per_replica: 1}
    workload: {parameters: 70B, kv_bytes_per_token: 320KiB, tokens_in_flight: 10000}
)",
                                          "jobs.yaml");
  // 140e9 B = 130.4 GiB + 10,000 x 320 KiB = 3.05 GiB on one GPU; at tp 2
  // 65.2 + 1.5 GiB fits 80.
  CHECK(memory_refusal(t, jobs[0]) == "role 'decode' needs 133.4 GiB per GPU at tp 1; a H100 has 80: use tp 2");
  const double need = (140e9 + 10000.0 * 327680) / kGiB;
  CHECK(need == Approx(133.43).epsilon(1e-3));
  std::vector<Job> small = parse_jobs_yaml(
      "jobs:\n  - {name: s, roles: {decode: {gpus_per_replica: 1}}, workload: {parameters: 8B}}\n", "jobs.yaml");
  CHECK(memory_refusal(t, small[0]).empty());
}

TEST_CASE("a slice's devices go to the largest roles first, runs in topology order, listed in manifest order") {
  const Topology t = preset("dgx-h100:nodes=2");
  const std::vector<Job> jobs = parse_jobs_yaml(kChat70b, "jobs.yaml");
  const Service& s = *jobs[0].service;
  // The second node first, then the first: dealing sorts by topology order.
  std::vector<DeviceId> slice(t.accelerators().begin() + 8, t.accelerators().begin() + 16);
  slice.insert(slice.end(), t.accelerators().begin(), t.accelerators().begin() + 8);
  const std::vector<RoleReplica> roles = assign_roles(t, s, slice);
  REQUIRE(roles.size() == 3);
  CHECK(roles[0].role == 0);  // prefill 1: the second node's first half
  CHECK(roles[0].replica == 0);
  CHECK(roles[0].devices == std::vector<DeviceId>(t.accelerators().begin() + 8, t.accelerators().begin() + 12));
  CHECK(roles[1].role == 0);
  CHECK(roles[1].replica == 1);
  CHECK(roles[1].devices == std::vector<DeviceId>(t.accelerators().begin() + 12, t.accelerators().begin() + 16));
  CHECK(roles[2].role == 1);  // decode: the whole first node
  CHECK(roles[2].devices == std::vector<DeviceId>(t.accelerators().begin(), t.accelerators().begin() + 8));
}

TEST_CASE("same_host false deals prefill and decode to different nodes when the slice's nodes allow it") {
  const Topology t = preset("dgx-h100:nodes=3");
  auto service = [](bool same_host) {
    const std::vector<Job> jobs = parse_jobs_yaml(std::string(R"(jobs:
  - name: s
    roles:
      prefill: {gpus_per_replica: 4, parallelism: {tp: 4}}
      decode: {gpus_per_replica: 4, parallelism: {tp: 4}}
      router: {gpus_per_replica: 2}
    kv_transfer: {same_host: )") + (same_host ? "true" : "false") +
                                                      "}\n",
                                                  "jobs.yaml");
    return *jobs[0].service;
  };
  auto gpus = [&](std::ptrdiff_t node, std::ptrdiff_t first, std::ptrdiff_t count) {
    return std::vector<DeviceId>(t.accelerators().begin() + node * 8 + first,
                                 t.accelerators().begin() + node * 8 + first + count);
  };
  auto node_of = [&](const RoleReplica& rr) {
    std::set<DomainId> nodes;
    for (DeviceId d : rr.devices) nodes.insert(t.device(d).domain);
    return nodes;
  };
  // Six GPUs of the first node and four of the second: dealt in order, the
  // first node holds prefill and half of decode.
  std::vector<DeviceId> slice = gpus(0, 0, 6);
  const std::vector<DeviceId> second = gpus(1, 0, 4);
  slice.insert(slice.end(), second.begin(), second.end());
  const Service together = service(true);
  const std::vector<RoleReplica> plain = assign_roles(t, together, slice);
  REQUIRE(plain.size() == 3);
  CHECK(plain[0].devices == gpus(0, 0, 4));
  const auto shared = prefill_decode_shared_node(t, together, plain);
  REQUIRE(shared);
  CHECK(shared->node == t.device(slice.front()).domain);
  CHECK(shared->prefill == &plain[0]);
  CHECK(shared->decode == &plain[1]);
  // Kept apart: prefill takes the second node whole, decode and the router
  // the first.
  const Service apart = service(false);
  const std::vector<RoleReplica> split = assign_roles(t, apart, slice);
  REQUIRE(split.size() == 3);
  CHECK(split[0].devices == second);
  CHECK(split[1].devices == gpus(0, 0, 4));
  CHECK(split[2].devices == gpus(0, 4, 2));
  CHECK_FALSE(prefill_decode_shared_node(t, apart, split));
  CHECK(node_of(split[0]).size() == 1);
  CHECK(node_of(split[1]) == node_of(split[2]));
  // Three nodes of 2, 4 and 4: prefill gets the first node that holds 4
  // alone, decode the other whole one, the router what is left.
  slice = gpus(0, 0, 2);
  for (std::ptrdiff_t node : {1, 2}) {
    const std::vector<DeviceId> more = gpus(node, 0, 4);
    slice.insert(slice.end(), more.begin(), more.end());
  }
  const std::vector<RoleReplica> three = assign_roles(t, apart, slice);
  CHECK(three[0].devices == gpus(1, 0, 4));
  CHECK(three[1].devices == gpus(2, 0, 4));
  CHECK(three[2].devices == gpus(0, 0, 2));
  CHECK_FALSE(prefill_decode_shared_node(t, apart, three));
  // One node cannot keep them apart: the plain dealing, and the pair is found.
  const std::vector<RoleReplica> one = assign_roles(t, apart, gpus(2, 0, 8));
  CHECK(one[0].devices == gpus(2, 0, 4));
  CHECK(prefill_decode_shared_node(t, apart, one));
}

TEST_CASE("isolation units: the node, the NVLink domain and the rack of a topology") {
  Service s;
  s.isolation = Isolation::nvlink_domain;
  const Topology h100 = preset("dgx-h100:nodes=2");
  const Topology nvl72 = preset("gb200-nvl72:racks=2");
  CHECK(isolation_level(h100, s) == h100.host_level());
  CHECK(isolation_level(nvl72, s) == nvl72.find_level("rack"));
  s.isolation = Isolation::rack;
  CHECK_FALSE(isolation_level(h100, s));
  s.isolation = Isolation::node;
  CHECK(isolation_level(nvl72, s) == nvl72.host_level());
  s.isolation = Isolation::none;
  CHECK_FALSE(isolation_level(nvl72, s));
}
