// What a job asks for, resolved against one topology: the levels it must
// honour (with what exclusive_level implies), the unit it is counted in
// (accelerators or whole nodes), how many units each replica needs, and the
// runs of accelerators that must stay together (TP groups, model replicas).
// Shared by the planner state, its failure explanations and the checker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/job.hpp"

namespace topoplan {

/// The levels a placement must honour. exclusive implies each replica inside
/// one domain of that level (or of a finer required level) and, with several
/// replicas, each in a different one.
struct JobLevels {
  std::optional<LevelIndex> required;
  std::optional<LevelIndex> spread;
  std::optional<LevelIndex> within;     // all replicas in one domain (never the root)
  std::optional<LevelIndex> exclusive;  // domains of this level no other job uses
};

/// `levels` with what exclusive_level implies for `replicas` replicas.
JobLevels effective_levels(JobLevels levels, std::uint32_t replicas);

struct JobShape {
  std::optional<LevelIndex> required;
  std::optional<LevelIndex> preferred;
  std::optional<LevelIndex> spread;
  std::optional<LevelIndex> within;
  std::optional<LevelIndex> exclusive;
  std::optional<LevelIndex> spare;  // a whole node kept free in each such domain a shaped job uses
  bool whole_nodes = false;
  std::uint32_t units = 0;      // per replica: accelerators, or nodes
  std::uint32_t ranks = 0;      // per replica: accelerators that get ranks
  std::uint32_t granule = 1;    // keep runs of this many in one node (a TP group)
  std::uint32_t group = 1;      // and runs of this many on one side of a split (TP x PP)
};

/// Resolves a job against a topology whose typical node has `node_size`
/// accelerators. Throws InputError for a level the topology does not have, a
/// whole-node job whose parallelism does not match the node size, and
/// replicas_within contradicting spread.
JobShape resolve_job(const Topology& topology, const Job& job, std::uint32_t node_size);

/// "each in one rack, all in one block", "in a block of its own": how the
/// replicas of a job must sit, for reasons.
std::string shape_text(const Topology& topology, const JobShape& shape, std::uint32_t replicas);

/// "3 whole nodes", "1 GPU", "8 LPUs".
std::string unit_text(const Topology& topology, const JobShape& shape, std::uint64_t n);

}  // namespace topoplan
