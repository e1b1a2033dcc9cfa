// A trace's job as the planner's Job: one replica of `gpus` accelerators,
// data-parallel unless the trace gives its parallelism. Shared by the
// simulator and the allocation-at-load experiment.
#pragma once

#include "topoplan/placement/job.hpp"
#include "topoplan/simulate/trace.hpp"

namespace topoplan {

Job to_job(const TraceJob& t);

}  // namespace topoplan
