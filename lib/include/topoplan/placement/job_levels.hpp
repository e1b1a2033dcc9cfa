// The level names a job's constraints use (required, preferred, spread,
// replicas_within, exclusive_level), checked against a topology before any
// job is placed, so that every wrong name of every job is reported at once,
// each where it is written.
#pragma once

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/job.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

/// Reports to `sink` each level name of `job` that is not a level of
/// `topology`, at the key's value, with the levels there are and a
/// suggestion for a close one.
void check_job_levels(const Topology& topology, const Job& job, DiagnosticSink& sink);

}  // namespace topoplan
