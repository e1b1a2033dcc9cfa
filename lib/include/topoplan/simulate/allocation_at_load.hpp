// The allocation-ratio experiment of FGD (Weng et al., "Beware of
// Fragmentation", USENIX ATC'23, section 6): jobs drawn from a trace arrive
// one after another and never leave, until the accelerators they asked for
// reach a multiple of the cluster's (the "load", 1.3 for 130 %); a job the
// policy cannot place when it arrives is dropped, not queued. What is left
// is fragmentation: the share of accelerators allocated at the end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "topoplan/model/topology.hpp"
#include "topoplan/simulate/trace.hpp"

namespace topoplan {

struct AllocationAtLoadOptions {
  /// Accelerators asked for by the arrivals over the cluster's; arrivals
  /// stop with the one that reaches it. Above 0.
  double load = 1.3;
  /// Draw arrivals uniformly from the trace's jobs, with replacement, from
  /// this seed (std::mt19937_64, the same sequence everywhere).
  std::uint64_t seed = 1;
};

struct AllocationAtLoad {
  std::string policy;
  std::uint64_t accelerators = 0;      // of the topology
  std::uint64_t arrived_jobs = 0;
  std::uint64_t arrived_accelerators = 0;
  std::uint64_t placed_jobs = 0;
  std::uint64_t allocated_accelerators = 0;
  /// allocated_accelerators / accelerators.
  double allocation_ratio = 0;
  /// The allocated share when the first job was dropped (the onset of
  /// fragmentation); allocation_ratio when none was.
  double first_drop_ratio = 0;
};

/// Runs the experiment under one policy (make_policy's names). Throws
/// InputError for an unknown policy, an empty trace, a load that is not
/// above 0, or a job the topology cannot interpret.
AllocationAtLoad allocation_at_load(const Topology& topology, const Trace& trace, std::string_view policy,
                                    const AllocationAtLoadOptions& options = {});

}  // namespace topoplan
