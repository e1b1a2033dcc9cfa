// What a placed service gets and breaks: the guarantee per level, the KV
// path, memory against HBM, TP/EP groups in one NVLink domain, tenant
// isolation; the topo planner against hand-made and peer placements.
#include "topoplan/placement/service_report.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <set>
#include <sstream>

#include "../../lib/src/placement/price_cache.hpp"
#include "service_fixtures.hpp"
#include "test_presets.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/plan_io.hpp"
#include "topoplan/placement/service_latency.hpp"

using namespace topoplan;
using topoplan::test::chat70b;
using topoplan::test::preset;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool any_problem(const JobPlacement& p, const std::string& part) {
  for (const std::string& problem : p.problems)
    if (contains(problem, part)) return true;
  return false;
}

std::string problems_text(const JobPlacement& p) {
  std::string out;
  for (const std::string& problem : p.problems) out += problem + "\n";
  return out;
}

// One prefill and one decode replica of 4 GPUs (TP 4), 8B, 8,000-token prompts.
const char* const kDisaggregated = R"(jobs:
  - name: disagg
    roles:
      prefill: {gpus_per_replica: 4, parallelism: {tp: 4}}
      decode: {gpus_per_replica: 4, parallelism: {tp: 4}}
    workload: {parameters: 8B, kv_bytes_per_token: 128KiB, prompt_tokens: 8000}
)";

Plan planned(const Topology& t, const std::string& jobs, const std::string& policy, const JobPricer& pricer) {
  PlanOptions o;
  o.policy = policy;
  o.pricer = &pricer;
  return plan_jobs(t, parse_jobs_yaml(jobs, "jobs.yaml"), o);
}

Plan evaluated(const Topology& t, const std::string& yaml, const JobPricer& pricer) {
  Plan p = parse_plan_yaml(yaml, "plan.yaml", t);
  price_plan(t, p, &pricer);
  return p;
}

// The racks (level-2 domains of gb200-nvl72) each slice of job `j` touches.
std::vector<std::set<DomainId>> racks_of(const Topology& t, const Plan& p, std::size_t j) {
  const LevelIndex rack = *t.find_level("rack");
  std::vector<std::set<DomainId>> out;
  for (const auto& slice : p.placements[j].replicas) {
    out.emplace_back();
    for (DeviceId d : slice) out.back().insert(t.ancestor(t.device(d).domain, rack));
  }
  return out;
}

// chat-70b of one tenant, isolated to its NVLink domains.
const std::string kChat = chat70b("    tenant: search\n    isolation: nvlink-domain\n");

// chat-70b's job spec with its slices placed by hand.
std::string chat_plan(const std::string& slice1, const std::string& slice2, const std::string& slice3) {
  return chat70b("    replica_devices: [\"" + slice1 + "\", \"" + slice2 + "\", \"" + slice3 + "\"]\n");
}

}  // namespace

TEST_CASE("topo places chat-70b one slice per rack, keeps the guarantee and hands KV over NVLink") {
  const Topology t = preset("gb200-nvl72:racks=4");
  const JobPricer pricer(t);
  const Plan p = planned(t, kChat, "topo", pricer);
  REQUIRE(p.placements[0].placed);
  CHECK(problems_text(p.placements[0]).empty());
  const auto racks = racks_of(t, p, 0);
  REQUIRE(racks.size() == 3);
  std::set<DomainId> all;
  for (const auto& r : racks) {
    CHECK(r.size() == 1);  // packed
    all.insert(r.begin(), r.end());
  }
  CHECK(all.size() == 3);  // spread

  const CostModel model(t);
  const ServiceReport r = service_report(t, p, 0, &model);
  REQUIRE(r.guarantee);
  CHECK(r.guarantee_ok);
  CHECK(r.guarantee->survives == 1);  // 3 slices, min 2: one rack may go
  CHECK(r.guarantee->slices_after_worst == 2);
  CHECK(r.guarantee->worst_slices == 1);
  REQUIRE(r.kv.known);
  CHECK(r.kv.scale_up);
  CHECK(r.kv.bytes == 8000.0 * 327680);
  // The cost model's own price of that hand-over, between the dealt pools.
  const std::vector<RoleReplica> roles = assign_roles(t, *p.jobs[0].service, p.placements[0].replicas[r.kv.slice]);
  const KvTransferCost direct = model.kv_transfer(roles[0].devices, roles[2].devices, 8000ull * 327680);
  CHECK(r.kv.seconds >= direct.seconds * 0.999);
  // Every device has a role and a slice: 3 x 16 entries, 8 decode a slice.
  REQUIRE(r.placement.size() == 48);
  std::size_t decode = 0;
  for (const auto& e : r.placement) decode += p.jobs[0].service->roles[e.role].is_decode() ? 1u : 0u;
  CHECK(decode == 24);
  // Memory: 140e9 B / tp 4 + 8000 x 320 KiB / 4 on the prefill GPUs.
  REQUIRE(r.memory.size() == 2);
  CHECK(r.memory[0].need_gib == Approx((35e9 + 8000.0 * 327680 / 4) / (1024.0 * 1024 * 1024)));
  CHECK(r.memory[0].have_gib == Approx(186));
  CHECK(r.memory[0].fits);
}

TEST_CASE("two slices in one rack break the rack guarantee, and check says by how much") {
  const Topology t = preset("gb200-nvl72:racks=4");
  const JobPricer pricer(t);
  // Slices 1 and 2 in rack 0, slice 3 in rack 1: losing rack 0 leaves 1.
  const Plan p = evaluated(t,
                           chat_plan("r0000-n[00-03]/gpu[0-3]", "r0000-n[04-07]/gpu[0-3]", "r0001-n[00-03]/gpu[0-3]"),
                           pricer);
  REQUIRE(p.placements[0].placed);
  CHECK(any_problem(p.placements[0], "availability: losing rack su000/r0000 takes 2 of 3 slices and leaves 1, "
                                     "fewer than min_slices 2"));
  const CostModel model(t);
  const ServiceReport r = service_report(t, p, 0, &model);
  REQUIRE(r.guarantee);
  CHECK_FALSE(r.guarantee_ok);
  CHECK(r.guarantee->survives == 0);
  CHECK(r.guarantee->slices_after_worst == 1);
  // The same slices over three racks hold.
  const Plan good = evaluated(
      t, chat_plan("r0000-n[00-03]/gpu[0-3]", "r0001-n[00-03]/gpu[0-3]", "r0002-n[00-03]/gpu[0-3]"), pricer);
  CHECK_FALSE(any_problem(good.placements[0], "availability"));
}

TEST_CASE("an EP group split over two NVL72 racks is a problem, inside one it is not") {
  const Topology t = preset("gb200-nvl72:racks=2");
  const JobPricer pricer(t);
  const std::string spec = R"(jobs:
  - name: moe
    roles:
      decode: {replicas: 1, gpus_per_replica: 64, parallelism: {dp: 64, ep: 64}}
    workload: {parameters: 671B, expert_parameters: 654B, precision: fp8}
)";
  const Plan split = evaluated(t, spec + "    devices: \"r0000-n[00-07]/gpu[0-3],r0001-n[00-07]/gpu[0-3]\"\n", pricer);
  CHECK(any_problem(split.placements[0], "decode 1: its EP group of 64 spans 2 NVLink domains; one holds 72"));
  const Plan one = evaluated(t, spec + "    devices: \"r0000-n[00-15]/gpu[0-3]\"\n", pricer);
  CHECK_FALSE(any_problem(one.placements[0], "EP group"));
  // Topo keeps it in one rack.
  const Plan p = planned(t, "jobs:\n  - name: moe\n    roles: {decode: {gpus_per_replica: 64, parallelism: {dp: 64, ep: 64}}}\n",
                         "topo", pricer);
  CHECK(racks_of(t, p, 0)[0].size() == 1);
  CHECK_FALSE(any_problem(p.placements[0], "EP group"));
}

TEST_CASE("a service's plan cost is what its worst slice adds to one request, and a split EP group costs more") {
  const Topology t = preset("gb200-nvl72:racks=2");
  const JobPricer pricer(t);
  const CostModel model(t);
  // DeepSeek-R1's sizes: 61 layers (58 MoE), hidden 7168, 8 experts a token.
  const std::string spec = R"(jobs:
  - name: moe
    roles:
      prefill: {replicas: 1, gpus_per_replica: 8, parallelism: {tp: 8}}
      decode: {replicas: 1, gpus_per_replica: 64, parallelism: {dp: 64, ep: 64}}
    workload: {parameters: 671B, expert_parameters: 654B, precision: fp8, layers: 61, moe_layers: 58,
               hidden: 7168, experts_per_token: 8, kv_bytes_per_token: 70272, prompt_tokens: 4000,
               output_tokens: 500, batch: 8}
)";
  auto cost_of = [&](const std::string& devices) {
    const Plan p = evaluated(t, spec + "    devices: \"" + devices + "\"\n", pricer);
    REQUIRE(p.placements[0].placed);
    const double request = request_communication_seconds(
        t, *p.jobs[0].service, assign_roles(t, *p.jobs[0].service, p.placements[0].replicas[0]), model);
    REQUIRE(request > 0);
    CHECK(p.placements[0].step_seconds == Approx(request));
    CHECK(p.placements[0].shared_step_seconds == Approx(request));
    CHECK(p.summary.step_seconds_total == Approx(request));
    CHECK_FALSE(p.placements[0].breakdown);  // no training step to break down
    return request;
  };
  const double one = cost_of("r0000-n[00-17]/gpu[0-3]");
  const double split = cost_of("r0000-n[00-09]/gpu[0-3],r0001-n[00-07]/gpu[0-3]");
  CHECK(split > one * 1.03);  // its output token 0.88 -> 1.42 ms, KV 0.47 -> 1.42 ms
  // Without hidden and layers the slice is priced as one job, as before.
  const Plan unpriced = evaluated(t, R"(jobs:
  - name: moe
    roles:
      decode: {replicas: 1, gpus_per_replica: 8, parallelism: {tp: 8}}
    workload: {parameters: 70B, prompt_tokens: 4000}
    devices: "r0000-n[00-01]/gpu[0-3]"
)",
                                  pricer);
  CHECK(unpriced.placements[0].breakdown);
}

TEST_CASE("the policies weigh a service's candidates by what they add to one request") {
  const Topology t = preset("gb200-nvl72:racks=2");
  const JobPricer pricer(t);
  const CostModel model(t);
  auto spec = [](int prompt) {
    return fmt::format(R"(jobs:
  - name: moe
    roles:
      prefill: {{replicas: 1, gpus_per_replica: 8, parallelism: {{tp: 8}}}}
      decode: {{replicas: 1, gpus_per_replica: 8, parallelism: {{tp: 8}}}}
    workload: {{parameters: 70B, layers: 80, hidden: 8192, kv_bytes_per_token: 327680, prompt_tokens: {},
               output_tokens: 200, batch: 8}}
    devices: "r0000-n[00-01]/gpu[0-3],r0001-n[00-01]/gpu[0-3]"
)",
                       prompt);
  };
  const Plan shorter = evaluated(t, spec(1000), pricer);
  const Plan longer = evaluated(t, spec(8000), pricer);
  const std::vector<DeviceId>& slice = shorter.placements[0].replicas[0];
  REQUIRE(slice == longer.placements[0].replicas[0]);
  // The candidate price (what topo compares) is the plan's price.
  const double request = request_communication_seconds(t, *shorter.jobs[0].service,
                                                       assign_roles(t, *shorter.jobs[0].service, slice), model);
  REQUIRE(request > 0);
  CHECK(pricer.step_seconds(shorter.jobs[0], slice) == Approx(request));
  CHECK(pricer.step_seconds(shorter.jobs[0], slice) == Approx(shorter.placements[0].step_seconds));
  // Two services alike in every job field but their prompts do not share a
  // cached price: the longer prompt hands over more KV.
  PriceCache cache(t, pricer);
  const double a = cache.step_seconds(shorter.jobs[0], slice);
  const double b = cache.step_seconds(longer.jobs[0], slice);
  CHECK(cache.misses() == 2);
  CHECK(b > a);
  CHECK(b == Approx(pricer.step_seconds(longer.jobs[0], slice)));
}

TEST_CASE("a KV hand-over across the SU spine when one node would hold both is a problem") {
  const Topology t = preset("dgx-h100:nodes=64");  // two 32-node SUs
  const JobPricer pricer(t);
  const std::string spec = kDisaggregated;
  // Dealing puts the first 4 accelerators (in topology order) on prefill.
  const Plan far = evaluated(t, spec + "    devices: \"h100-00000/gpu[0-3],h100-00040/gpu[0-3]\"\n", pricer);
  CHECK(any_problem(far.placements[0], "kv path: slice 1 hands its KV over through the cluster level"));
  CHECK(any_problem(far.placements[0], "one node holds a prefill and a decode replica"));
  const CostModel model(t);
  const ServiceReport r = service_report(t, far, 0, &model);
  REQUIRE(r.kv.known);
  CHECK_FALSE(r.kv.scale_up);
  CHECK(t.levels()[r.kv.level].name == "cluster");
  // In one node the path is NVLink and there is no problem.
  const Plan near = evaluated(t, spec + "    devices: \"h100-00000/gpu[0-7]\"\n", pricer);
  CHECK_FALSE(any_problem(near.placements[0], "kv path"));
  CHECK(service_report(t, near, 0, &model).kv.scale_up);
  // A required KV policy at node level fails on the far plan only.
  const std::string policy = spec + "    kv_transfer: {level: node, enforcement: required}\n";
  CHECK(any_problem(evaluated(t, policy + "    devices: \"h100-00000/gpu[0-3],h100-00040/gpu[0-3]\"\n", pricer)
                        .placements[0],
                    "kv_transfer: slice 1 prefill 1 is in node"));
  CHECK_FALSE(any_problem(evaluated(t, policy + "    devices: \"h100-00000/gpu[0-7]\"\n", pricer).placements[0],
                          "kv_transfer"));
}

TEST_CASE("tenants with isolation never share an NVLink domain under topo, a hand plan that mixes them fails") {
  const Topology t = preset("gb200-nvl72:racks=4");
  const JobPricer pricer(t);
  const std::string jobs = R"(jobs:
  - {name: train, gpus: 48, parallelism: {tp: 4, dp: 12}, tenant: research, priority: 5}
  - {name: chat, replicas: 2, gpus_per_replica: 8, parallelism: {tp: 8}, tenant: search, isolation: nvlink-domain,
     availability: {level: rack, survive: 1}}
  - {name: ads, gpus: 16, parallelism: {tp: 4, dp: 4}, tenant: ads, isolation: nvlink-domain}
  - {name: late, gpus: 8, tenant: research}
)";
  const Plan p = planned(t, jobs, "topo", pricer);
  std::vector<std::set<DomainId>> by_job;
  for (std::size_t j = 0; j < p.jobs.size(); ++j) {
    REQUIRE(p.placements[j].placed);
    CHECK(problems_text(p.placements[j]).empty());
    std::set<DomainId> racks;
    for (const auto& r : racks_of(t, p, j)) racks.insert(r.begin(), r.end());
    by_job.push_back(racks);
  }
  // chat and ads share no rack with anyone of another tenant.
  for (std::size_t a : {std::size_t{1}, std::size_t{2}})
    for (std::size_t b = 0; b < p.jobs.size(); ++b) {
      if (a == b) continue;
      for (DomainId r : by_job[a]) CHECK(by_job[b].count(r) == 0);
    }
  // The naive peer fills rack 0 in order: chat lands beside train.
  const Plan naive = planned(t, jobs, "naive", pricer);
  bool shared = false;
  for (std::size_t j = 0; j < naive.jobs.size(); ++j) shared = shared || any_problem(naive.placements[j], "isolation:");
  CHECK(shared);
}

TEST_CASE("memory over HBM: topo refuses with the tp that fits, a peer places it and check fails") {
  const Topology t = preset("dgx-h100:nodes=2");
  const JobPricer pricer(t);
  const std::string jobs = R"(jobs:
  - name: big
    roles:
      decode: {replicas: 2, gpus_per_replica: 2, parallelism: {tp: 2}}
    workload: {parameters: 70B, kv_bytes_per_token: 320KiB, tokens_in_flight: 100000}
)";
  // 70e9 B = 65.2 GiB of weights and 100,000 x 320 KiB / 2 = 15.3 GiB of KV: 80.5 > 80.
  const Plan p = planned(t, jobs, "topo", pricer);
  CHECK_FALSE(p.placements[0].placed);
  CHECK(p.placements[0].reason == "role 'decode' needs 80.5 GiB per GPU at tp 2; a H100 has 80: use tp 4");
  const Plan peer = planned(t, jobs, "slurm", pricer);
  REQUIRE(peer.placements[0].placed);
  CHECK(any_problem(peer.placements[0], "memory: role 'decode' needs 80.5 GiB per accelerator at tp 2; it has 80: use "
                                        "tp 4"));
}

TEST_CASE("a service's plan reads back with its roles, slices, guarantee and workload") {
  const Topology t = preset("gb200-nvl72:racks=4");
  const JobPricer pricer(t);
  const Plan p = planned(t, kChat, "topo", pricer);
  for (bool json : {false, true}) {
    std::ostringstream out;
    if (json)
      write_plan_json(out, t, p);
    else
      write_plan_yaml(out, t, p);
    const Plan back = parse_plan_yaml(out.str(), "plan", t);
    REQUIRE(back.jobs.size() == 1);
    REQUIRE(back.jobs[0].service);
    const Service& a = *p.jobs[0].service;
    const Service& b = *back.jobs[0].service;
    CHECK(b.slices == a.slices);
    REQUIRE(b.roles.size() == 2);
    for (std::size_t k = 0; k < 2; ++k) {
      CHECK(b.roles[k].name == a.roles[k].name);
      CHECK(b.roles[k].replicas == a.roles[k].replicas);
      CHECK(b.roles[k].per_replica == a.roles[k].per_replica);
      CHECK(b.roles[k].parallelism.tp == a.roles[k].parallelism.tp);
    }
    REQUIRE(b.availability);
    CHECK(b.availability->min_slices == 2);
    CHECK(b.isolation == Isolation::nvlink_domain);
    CHECK(b.workload.kv_bytes_per_token == a.workload.kv_bytes_per_token);
    CHECK(b.workload.prompt_tokens == 8000);
    CHECK(back.jobs[0].required == p.jobs[0].required);
    CHECK(back.jobs[0].spread == p.jobs[0].spread);
    CHECK(back.placements[0].replicas == p.placements[0].replicas);
    // JSON carries the report's keys for machines.
    if (json) {
      for (const char* key : {"\"availability\"", "\"survives\"", "\"slices_after_worst\"", "\"kv_transfer_ms\"",
                              "\"kv_path\"", "\"need_gib\"", "\"have_gib\"", "\"fits\"", "\"placement\"",
                              "\"role\": \"decode\"", "\"slice\": 3"})
        CHECK(contains(out.str(), key));
    }
  }
}

TEST_CASE("kv_transfer same_host: false keeps a slice's prefill and decode off a shared node") {
  // AWS EFA: NIXL's same-node transfers fail (inference.md), so prefill and
  // decode of one slice must sit on different nodes.
  const Topology t = preset("dgx-h100:nodes=64");
  const JobPricer pricer(t);
  const std::string spec = std::string(kDisaggregated) + "    kv_transfer: {same_host: false}\n";
  const CostModel model(t);
  // One node holds both: a problem, and no KV path is priced (the only
  // decode cannot be reached).
  const Plan shared = evaluated(t, spec + "    devices: \"h100-00000/gpu[0-7]\"\n", pricer);
  CHECK(any_problem(shared.placements[0], "kv_transfer: slice 1 prefill 1 and decode 1 share node h100-00000"));
  CHECK_FALSE(service_report(t, shared, 0, &model).kv.known);
  // Two nodes under one leaf: no problem, the KV goes over the network, and
  // one node holding both is not held up as the better path.
  const Plan apart = evaluated(t, spec + "    devices: \"h100-00000/gpu[0-3],h100-00001/gpu[0-3]\"\n", pricer);
  CHECK_FALSE(any_problem(apart.placements[0], "kv_transfer"));
  CHECK_FALSE(any_problem(apart.placements[0], "kv path"));
  const ServiceReport r = service_report(t, apart, 0, &model);
  REQUIRE(r.kv.known);
  CHECK_FALSE(r.kv.scale_up);
  // Across the SU spine it is still a worse path than two nodes of one SU.
  const Plan far = evaluated(t, spec + "    devices: \"h100-00000/gpu[0-3],h100-00040/gpu[0-3]\"\n", pricer);
  CHECK(any_problem(far.placements[0], "kv path: slice 1 hands its KV over through the cluster level"));
  // Without the switch, sharing the node is the best path and no problem.
  CHECK(problems_text(
            evaluated(t, kDisaggregated + std::string("    devices: \"h100-00000/gpu[0-7]\"\n"), pricer).placements[0])
            .empty());
  // The switch survives a plan file round trip.
  std::ostringstream out;
  write_plan_yaml(out, t, apart);
  CHECK(contains(out.str(), "same_host: false"));
  const Plan back = parse_plan_yaml(out.str(), "plan", t);
  REQUIRE(back.jobs[0].service);
  CHECK_FALSE(back.jobs[0].service->kv_same_host);
}

TEST_CASE("topo keeps a slice's prefill and decode on different nodes of one SU when same_host is false") {
  const Topology t = preset("dgx-h100:nodes=64");
  const JobPricer pricer(t);
  const CostModel model(t);
  const LevelIndex su = *t.find_level("su");
  const std::string together = std::string(kDisaggregated) + "    slices: 2\n";
  const std::string apart = together + "    kv_transfer: {same_host: false}\n";
  const Plan p = planned(t, apart, "topo", pricer);
  REQUIRE(p.placements[0].placed);
  CHECK(problems_text(p.placements[0]).empty());
  REQUIRE(p.placements[0].replicas.size() == 2);
  for (const std::vector<DeviceId>& slice : p.placements[0].replicas) {
    const std::vector<RoleReplica> roles = assign_roles(t, *p.jobs[0].service, slice);
    CHECK_FALSE(prefill_decode_shared_node(t, *p.jobs[0].service, roles));
    // The KV stays under the SU's leaves, not across the spine.
    std::set<DomainId> sus;
    for (DeviceId d : slice) sus.insert(t.ancestor(t.device(d).domain, su));
    CHECK(sus.size() == 1);
  }
  const ServiceReport r = service_report(t, p, 0, &model);
  REQUIRE(r.kv.known);
  CHECK_FALSE(r.kv.scale_up);
  // Allowed to share a node, each slice keeps to one, and KV goes over NVLink.
  const Plan shared = planned(t, together, "topo", pricer);
  for (const std::vector<DeviceId>& slice : shared.placements[0].replicas)
    CHECK(t.device(slice.front()).domain == t.device(slice.back()).domain);
  CHECK(service_report(t, shared, 0, &model).kv.scale_up);
  // The peers do not know the switch: each of their slices fits one node,
  // and check says what that breaks.
  for (const char* peer : {"slurm", "kueue", "naive"})
    CHECK(any_problem(planned(t, apart, peer, pricer).placements[0], "share node"));
  // One node cannot keep them apart: the slice stays there and check says so.
  const Topology one = preset("dgx-h100:nodes=1");
  const JobPricer one_pricer(one);
  const Plan alone =
      planned(one, std::string(kDisaggregated) + "    kv_transfer: {same_host: false}\n", "topo", one_pricer);
  REQUIRE(alone.placements[0].placed);
  CHECK(any_problem(alone.placements[0], "prefill 1 and decode 1 share node h100-00000"));
}

TEST_CASE("kv_transfer: same_host is true or false, and enforcement needs a level") {
  const Topology t = preset("dgx-h100:nodes=2");
  auto error_of = [&](const std::string& kv) {
    try {
      parse_jobs_yaml(
          "jobs:\n  - name: d\n    roles: {prefill: {gpus_per_replica: 4}, decode: {gpus_per_replica: 4}}\n"
          "    kv_transfer: " +
              kv + "\n",
          "jobs.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of("{same_host: false}").empty());
  CHECK(error_of("{level: node, same_host: true}").empty());
  CHECK(contains(error_of("{same_host: maybe}"), "'same_host' is true or false, not 'maybe'"));
  CHECK(contains(error_of("{enforcement: required, same_host: false}"), "'enforcement' applies to a 'level'"));
  CHECK(contains(error_of("{enforcement: required}"), "level"));
}
