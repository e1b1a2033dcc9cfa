// A job written inline on the command line, as the fields of topoplan-jobs(5)
// in KEY=VALUE form: `gpus=72,required=rack`, `replicas=4,gpus_per_replica=8,
// spread=rack,kind=inference`. `tp`, `pp`, `dp` and `ep` stand for the
// parallelism's fields, `parallelism.KEY` and `workload.KEY` reach inside
// those maps. Without `name` the job is named after the spec itself.
#pragma once

#include <string>
#include <string_view>

#include "topoplan/placement/job.hpp"

namespace topoplan {

/// Whether `text` is written as KEY=VALUE fields (not a file name).
bool looks_like_job_spec(std::string_view text);

/// Parses an inline job. Throws InputError with every problem, located at
/// `option` (the command-line option that gave it).
Job parse_job_spec(std::string_view spec, const std::string& option);

}  // namespace topoplan
