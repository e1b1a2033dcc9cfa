// A serving role's phase: from `phase:` or the role's name in native jobs,
// and what follows from it (KV pricing between the pools, a plan that reads
// back). Manifests' phases: engine_flags_test.cpp.
#include "topoplan/placement/role_phase.hpp"

#include <catch2/catch.hpp>

#include <sstream>

#include "service_fixtures.hpp"
#include "test_presets.hpp"
#include "topoplan/cost/cost_model.hpp"
#include "topoplan/placement/job_pricer.hpp"
#include "topoplan/placement/jobs_yaml.hpp"
#include "topoplan/placement/plan_io.hpp"
#include "topoplan/placement/service_report.hpp"
#include "topoplan/support/error.hpp"

using namespace topoplan;

TEST_CASE("role phase: names") {
  CHECK(phase_named("prefill") == RolePhase::prefill);
  CHECK(phase_named("decode") == RolePhase::decode);
  CHECK(phase_named("Prefill") == RolePhase::other);
  CHECK(phase_named("router") == RolePhase::other);
  CHECK(role_phase_name(RolePhase::decode) == "decode");
  CHECK(role_phase_name(RolePhase::other) == "other");
}

namespace {

// chat-70b with its roles renamed: ctx and gen, phases given.
std::string renamed(const std::string& ctx_phase, const std::string& gen_phase) {
  std::string jobs = test::chat70b();
  auto replace = [&](const std::string& from, const std::string& to) {
    jobs.replace(jobs.find(from), from.size(), to);
  };
  replace("prefill: {replicas: 2,", "ctx: {" + ctx_phase + "replicas: 2,");
  replace("decode:  {replicas: 1,", "gen: {" + gen_phase + "replicas: 1,");
  return jobs;
}

}  // namespace

TEST_CASE("role phase: a native role's phase prices its KV whatever its name, and survives a plan") {
  const Topology t = test::preset("gb200-nvl72:racks=4");
  const JobPricer pricer(t);
  const CostModel model(t);
  PlanOptions o;
  o.policy = "topo";
  o.pricer = &pricer;
  auto kv_of = [&](const std::string& jobs) {
    const Plan p = plan_jobs(t, parse_jobs_yaml(jobs, "jobs.yaml"), o);
    REQUIRE(p.placements[0].placed);
    return service_report(t, p, 0, &model).kv;
  };
  const auto named = kv_of(test::chat70b());
  REQUIRE(named.known);
  // Renamed without phases: no pool is prefill, so there is no hand-over.
  CHECK_FALSE(kv_of(renamed("", "")).known);
  // With them, the same hand-over as the roles named prefill and decode.
  const std::string phased = renamed("phase: prefill, ", "phase: decode, ");
  const auto given = kv_of(phased);
  REQUIRE(given.known);
  CHECK(given.bytes == named.bytes);
  CHECK(given.seconds == Approx(named.seconds));

  // A plan writes the phase a name does not imply, and reads it back.
  const Plan p = plan_jobs(t, parse_jobs_yaml(phased, "jobs.yaml"), o);
  for (bool json : {false, true}) {
    std::ostringstream out;
    json ? write_plan_json(out, t, p) : write_plan_yaml(out, t, p);
    const Plan back = parse_plan_yaml(out.str(), "plan", t);
    REQUIRE(back.jobs.at(0).service);
    CHECK(back.jobs[0].service->roles.at(0).phase == RolePhase::prefill);
    CHECK(back.jobs[0].service->roles.at(1).phase == RolePhase::decode);
  }
  // A role named decode may say it is not one.
  const Plan other = plan_jobs(t, parse_jobs_yaml(renamed("", "phase: other, "), "jobs.yaml"), o);
  CHECK(other.jobs[0].service->roles[1].phase == RolePhase::other);
}

TEST_CASE("role phase: an unknown phase is a located error") {
  try {
    (void)parse_jobs_yaml(renamed("phase: prefil, ", ""), "jobs.yaml");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("jobs.yaml:7:") != std::string::npos);
    CHECK(std::string(e.what()).find("'phase' is prefill, decode or other, not 'prefil'") != std::string::npos);
  }
}
