// Level names of job constraints, checked before planning: every wrong name
// of every job, each at the key that names it.
#include "topoplan/placement/job_levels.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"
#include "topoplan/manifests/job_manifest.hpp"
#include "topoplan/placement/jobs_yaml.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

std::vector<std::string> errors_of(const std::string& text, const Topology& t) {
  std::vector<std::string> out;
  try {
    read_job_manifests({{text, "jobs.yaml"}}, t);
  } catch (const InputError& e) {
    for (const Diagnostic& d : e.diagnostics()) out.push_back(d.str());
  }
  return out;
}

}  // namespace

TEST_CASE("job levels: every job's wrong level names, each at its key") {
  Topology t = preset("gb200-nvl72:racks=2");
  std::vector<std::string> errors = errors_of(R"(jobs:
  - name: a
    gpus: 8
    required: rak
  - name: b
    gpus: 8
    preferred: rack
  - name: c
    replicas: 2
    gpus_per_replica: 4
    spread: nodes
    exclusive_level: pod
)",
                                              t);
  REQUIRE(errors.size() == 3);
  CHECK(errors[0] == "jobs.yaml:4:15: job 'a': required level 'rak' is not a level of topology 'gb200-nvl72' "
                     "(cluster, su, rack, node); did you mean 'rack'?");
  CHECK(errors[1] == "jobs.yaml:11:13: job 'c': spread level 'nodes' is not a level of topology 'gb200-nvl72' "
                     "(cluster, su, rack, node); did you mean 'node'?");
  CHECK(errors[2] == "jobs.yaml:12:22: job 'c': exclusive_level level 'pod' is not a level of topology "
                     "'gb200-nvl72' (cluster, su, rack, node)");
}

TEST_CASE("job levels: a job built in memory is reported at the job") {
  Topology t = preset("dgx-h100:nodes=2");
  Job job;
  job.name = "x";
  job.where = {"api", 3, 1};
  job.replicas_within = "rack";
  DiagnosticSink sink;
  check_job_levels(t, job, sink);
  REQUIRE(sink.size() == 1);
  CHECK(sink.diagnostics()[0].str() ==
        "api:3:1: job 'x': replicas_within level 'rack' is not a level of topology 'dgx-h100' (cluster, su, node)");
  job.replicas_within = "su";
  DiagnosticSink clean;
  check_job_levels(t, job, clean);
  CHECK(clean.empty());
}
