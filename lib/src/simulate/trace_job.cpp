#include "trace_job.hpp"

namespace topoplan {

Job to_job(const TraceJob& t) {
  Job j;
  j.name = t.id;
  j.kind = t.kind;
  j.replicas = 1;
  j.per_replica = t.gpus;
  if (t.parallelism) j.parallelism = *t.parallelism;
  else j.parallelism.dp = t.gpus;
  j.required = t.required;
  j.preferred = t.preferred;
  j.priority = t.priority;
  j.tenant = t.tenant;
  j.accelerator_model = t.accelerator_model;
  j.where = t.where;
  return j;
}

}  // namespace topoplan
