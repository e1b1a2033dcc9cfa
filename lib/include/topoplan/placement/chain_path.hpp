// A job's chips as the shape it asked for (job.hpp, ChainShape): each hop of
// the chain (consecutive chips; a ring also last to first; a group every
// pair) over the direct chip-to-chip link it uses, whether the hop stays in
// a node (local) or leaves it (global), its latency, and whether the shape
// holds at all. Plans report it; check and what-if read it to tell a shape
// that a failure broke (recompile and re-place) from one that still holds.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/job.hpp"
#include "topoplan/placement/scenario_mask.hpp"

namespace topoplan {

std::string_view chain_shape_name(ChainShape shape);

struct ChainHop {
  DeviceId from = kNone;
  DeviceId to = kNone;
  LinkId link = kNone;      // the direct link it uses; kNone when there is none (or none up)
  bool global = false;      // the two chips are in different nodes
  double latency_us = 0;    // of the link; 0 when there is none
};

struct ChainPath {
  std::vector<ChainHop> hops;  // chain: n-1, ring: n (the last closes it), group: every pair
  std::uint32_t local_hops = 0;
  std::uint32_t global_hops = 0;
  /// Chain: one pass from the first chip to the last; ring: one lap; group:
  /// the slowest pair. Over the hops that have a link.
  double latency_us = 0;
  /// Every hop is over a direct link that is up: the shape holds.
  bool connected = true;
  /// Every hop has the same latency (what a compiled schedule needs).
  bool uniform = true;
  /// The first hop without a direct link (index into hops), when !connected.
  std::size_t first_gap = 0;
};

/// The direct link between two chips to use for a hop: the fastest (lowest
/// latency, then most bandwidth, then lowest id) of the links joining them
/// whose path is up under `mask` (null: the topology's own states). kNone
/// when there is none.
LinkId direct_link(const Topology& topology, DeviceId a, DeviceId b, const ScenarioMask* mask = nullptr);

/// Measures `devices` (in pipeline order) as `shape`. With shape none the
/// devices are measured as a chain.
ChainPath measure_chain(const Topology& topology, std::span<const DeviceId> devices, ChainShape shape,
                        const ScenarioMask* mask = nullptr);

/// Why `path` does not hold, in words ("lpu3 -> lpu7 of groq-r000-n1 has no
/// direct link"), or "" when it holds and, if `deterministic`, is uniform.
std::string chain_problem(const Topology& topology, const ChainPath& path, ChainShape shape, bool deterministic);

}  // namespace topoplan
