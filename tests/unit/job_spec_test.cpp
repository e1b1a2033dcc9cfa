// Inline jobs: KEY=VALUE fields of topoplan-jobs(5), with the manifest's checks.
#include "topoplan/placement/job_spec.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("inline job specs") {
  Job a = parse_job_spec("gpus=72,required=rack", "--capacity");
  CHECK(a.name == "gpus=72,required=rack");
  CHECK(a.per_replica == 72);
  CHECK(a.required == std::optional<std::string>("rack"));
  CHECK(a.kind == JobKind::training);
  Job s = parse_job_spec("kind=inference,replicas=4,gpus_per_replica=8,tp=8,spread=rack,min_replicas=3", "--for");
  CHECK(s.kind == JobKind::inference);
  CHECK(s.replicas == 4);
  CHECK(s.per_replica == 8);
  CHECK(s.parallelism.tp == 8);
  CHECK(s.min_replicas == 3);
  CHECK(s.needed_replicas() == 3);
  Job w = parse_job_spec("name=big,gpus=16,parallelism.tp=4,parallelism.dp=4,workload.parameters=70B,priority=-3",
                         "--for");
  CHECK(w.name == "big");
  CHECK(w.parallelism.tp == 4);
  CHECK(w.workload.parameters == 70e9);
  CHECK(w.priority == -3);
  CHECK(looks_like_job_spec("gpus=8"));
  CHECK_FALSE(looks_like_job_spec("job.yaml"));
}

TEST_CASE("inline job specs with mistakes") {
  CHECK_THROWS_WITH(parse_job_spec("gpu=8", "--capacity"), "--capacity: unknown key 'gpu' in a job; did you mean 'gpus'?");
  CHECK_THROWS_WITH(parse_job_spec("gpus", "--capacity"),
                    "--capacity: 'gpus' is not a field; write KEY=VALUE,KEY=VALUE (e.g. gpus=72,required=rack)");
  CHECK_THROWS_WITH(parse_job_spec("gpus=-1", "--capacity"), "--capacity: 'gpus' is -1; it must be between 1 and 100000000");
  CHECK_THROWS_WITH(parse_job_spec("replicas=2,gpus_per_replica=1,min_replicas=3", "--for"),
                    "--for: job 'replicas=2,gpus_per_replica=1,min_replicas=3' needs 3 replicas (min_replicas) but has 2");
  CHECK_THROWS_WITH(parse_job_spec("gpus=8,tp=3", "--for"),
                    "--for: parallelism tp 3 x pp 1 x dp 1 = 3 ranks, but job 'gpus=8,tp=3' asks for 8 accelerators");
}
