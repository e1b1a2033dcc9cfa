// The serving latency model: prefill compute-bound and decode
// bandwidth-bound against the datasheet roofs, scaled by the slowest
// member's speed, with communication and the KV hand-over on top; and the
// planner that puts a service on slower devices only while its SLO holds.
#include "topoplan/placement/service_latency.hpp"

#include <catch2/catch.hpp>

#include "service_fixtures.hpp"
#include "test_presets.hpp"
#include "topoplan/cost/accelerator_spec.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/io/device_perf.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/service_report.hpp"
#include "topoplan/placement/straggler_model.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

// One aggregated 70B service on a node of 8 GPUs at tp 8, with the given
// SLO line; a second job after it when `more` says so.
std::string chat(const std::string& slo, const std::string& more = "") {
  return R"(jobs:
  - name: chat
    kind: inference
    slices: 1
    priority: 20
    roles:
      serve: {replicas: 1, gpus_per_replica: 8, parallelism: {tp: 8}}
    workload: {parameters: 70B, layers: 80, kv_heads: 8, head_dim: 128, hidden: 8192,
               prompt_tokens: 4000, output_tokens: 500, batch: 8}
)" + slo + more;
}

const std::string kTraining = R"(
  - name: train
    kind: training
    gpus: 16
    parallelism: {tp: 8, dp: 2}
    workload: {parameters: 8B}
)";

Service service_of(const std::string& yaml) {
  std::vector<Job> jobs = parse_jobs_yaml(yaml, "jobs.yaml");
  REQUIRE(jobs.front().service);
  return *jobs.front().service;
}

std::vector<DeviceId> first(const Topology& t, std::size_t n) {
  auto a = t.accelerators();
  return {a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n)};
}

// Four DGX H100 nodes, the first two at half speed.
Topology half_slow() {
  const Topology base = preset("dgx-h100:nodes=4");
  return with_device_overrides(base, read_device_perf("device,speed\nh100-0000[0-1]/gpu*,0.5\n", "perf.csv", base));
}

Plan planned(const Topology& t, const std::string& yaml, const JobPricer& pricer, const std::string& policy = "topo") {
  PlanOptions o;
  o.policy = policy;
  o.pricer = &pricer;
  return plan_jobs(t, parse_jobs_yaml(yaml, "jobs.yaml"), o);
}

double slowest(const Topology& t, const Plan& p, std::size_t j) {
  return slowest_speed(t, p.placements[j].replicas.front());
}

}  // namespace

TEST_CASE("prefill is 2 x parameters x prompt FLOPs over the replica's datasheet FLOP/s") {
  const Topology t = preset("dgx-h100");
  const Service s = service_of(chat(""));
  const ServiceRole& role = s.roles.front();
  const auto spec = accelerator_spec("H100");
  REQUIRE(spec);
  const double expected = 2 * 70e9 * 4000 / (8 * spec->peak_flops * kPrefillEfficiency);
  CHECK(prefill_compute_seconds(t, s, role, first(t, 8), 1.0) == Approx(expected));
  // Half the speed, twice the time; a part without a datasheet row: unknown.
  CHECK(prefill_compute_seconds(t, s, role, first(t, 8), 0.5) == Approx(2 * expected));
  CHECK(prefill_compute_seconds(preset("groq"), s, role, first(preset("groq"), 8), 1.0) < 0);
}

TEST_CASE("decode reads the weights and KV one GPU holds per token over HBM bandwidth") {
  const Service s = service_of(chat(""));
  const ServiceRole& role = s.roles.front();
  const Topology h100 = preset("dgx-h100"), h200 = preset("dgx-h200");
  const double bytes = role_weight_bytes(s, role) + role_kv_bytes(s, role);
  const auto spec = accelerator_spec("H100");
  REQUIRE(spec);
  const double on_h100 = decode_compute_seconds(h100, s, role, first(h100, 8), 1.0);
  CHECK(on_h100 == Approx(bytes / (spec->hbm_bytes_per_s * kDecodeEfficiency)));
  // Same FLOP/s, faster HBM: decode gains by the bandwidth ratio.
  const double on_h200 = decode_compute_seconds(h200, s, role, first(h200, 8), 1.0);
  CHECK(on_h100 / on_h200 == Approx(accelerator_spec("H200")->hbm_bytes_per_s / spec->hbm_bytes_per_s));
  // A stated efficiency replaces the published one.
  Service own = s;
  own.workload.decode_efficiency = 0.3;
  CHECK(decode_compute_seconds(h100, own, own.roles.front(), first(h100, 8), 1.0) == Approx(2 * on_h100));
}

TEST_CASE("an MoE model without active_parameters has no prefill estimate, with them it does") {
  Service s = service_of(chat(""));
  s.workload.expert_parameters = 60e9;
  const Topology t = preset("dgx-h100");
  CHECK(active_parameters(s.workload) == 0);
  CHECK(prefill_compute_seconds(t, s, s.roles.front(), first(t, 8), 1.0) < 0);
  s.workload.active_parameters = 14e9;
  CHECK(prefill_compute_seconds(t, s, s.roles.front(), first(t, 8), 1.0) > 0);
}

TEST_CASE("TTFT and TPOT are compute plus communication, and the SLO verdict reads them") {
  const Topology t = preset("dgx-h100:nodes=2");
  const JobPricer pricer(t);
  const Plan p = planned(t, chat("    slo: {ttft_ms: 1000, tpot_ms: 50}\n"), pricer);
  REQUIRE(p.placements[0].placed);
  const ServiceReport r = service_report(t, p, 0, pricer.cost_model());
  REQUIRE(r.replicas.size() == 1);
  const ReplicaLatency& l = r.replicas.front();
  REQUIRE((l.ttft_compute > 0 && l.ttft_comm > 0 && l.tpot_compute > 0 && l.tpot_comm > 0));
  CHECK(l.ttft() == Approx(l.ttft_compute + l.ttft_comm));
  CHECK(l.tpot() == Approx(l.tpot_compute + l.tpot_comm));
  REQUIRE(r.slo.size() == 2);
  CHECK(r.slo[0].estimate_ms == Approx(l.ttft() * 1e3));
  CHECK(r.slo[1].estimate_ms == Approx(l.tpot() * 1e3));
  CHECK(r.slo[0].ok);
  // A target below the estimate is missed.
  const Plan tight = planned(t, chat("    slo: {tpot_ms: 1}\n"), pricer);
  const ServiceReport rt = service_report(t, tight, 0, pricer.cost_model());
  REQUIRE(rt.slo.size() == 1);
  CHECK_FALSE(rt.slo[0].ok);
}

TEST_CASE("a service whose SLO holds on slow devices takes them and leaves the fast ones to training") {
  // Three nodes, the last at half speed: two fast nodes are what training needs.
  const Topology base = preset("dgx-h100:nodes=3");
  const Topology t = with_device_overrides(base, read_device_perf("device,speed\nh100-00002/gpu*,0.5\n", "perf.csv", base));
  const JobPricer pricer(t);
  const Plan p = planned(t, chat("    slo: {ttft_ms: 1000, tpot_ms: 50}\n", kTraining), pricer);
  REQUIRE((p.placements[0].placed && p.placements[1].placed));
  CHECK(slowest(t, p, 0) == Approx(0.5));
  CHECK(slowest(t, p, 1) == Approx(1.0));
  const ServiceReport r = service_report(t, p, 0, pricer.cost_model());
  for (const ReplicaLatency& l : r.replicas) CHECK(l.meets(*p.jobs[0].service));
  // Without an SLO the service is placed as before (topology first), on a
  // fast node, and training has to take the slow one.
  const Plan blind = planned(t, chat("", kTraining), pricer);
  REQUIRE(blind.placements[1].placed);
  CHECK(slowest(t, blind, 0) == Approx(1.0));
  CHECK(slowest(t, blind, 1) == Approx(0.5));
}

TEST_CASE("a service whose SLO only fast devices meet never lands on slow ones while fast ones are free") {
  const Topology t = half_slow();
  const JobPricer pricer(t);
  // The policy's own first choice is the first node, a slow one.
  const std::string tight = "    slo: {ttft_ms: 150, tpot_ms: 50}\n";
  const Plan p = planned(t, chat(tight), pricer);
  REQUIRE(p.placements[0].placed);
  CHECK(slowest(t, p, 0) == Approx(1.0));
  const ServiceReport r = service_report(t, p, 0, pricer.cost_model());
  for (const ReplicaLatency& l : r.replicas) CHECK(l.meets(*p.jobs[0].service));
  // The same target on the slow node is missed: the choice mattered.
  const Topology slow_only = with_device_overrides(
      preset("dgx-h100:nodes=4"), read_device_perf("device,speed\nh100-*/gpu*,0.5\n", "perf.csv", preset("dgx-h100:nodes=4")));
  const JobPricer slow_pricer(slow_only);
  const Plan missed = planned(slow_only, chat(tight), slow_pricer);
  const ServiceReport rm = service_report(slow_only, missed, 0, slow_pricer.cost_model());
  REQUIRE_FALSE(rm.replicas.empty());
  CHECK_FALSE(rm.replicas.front().meets(*missed.jobs[0].service));
}
