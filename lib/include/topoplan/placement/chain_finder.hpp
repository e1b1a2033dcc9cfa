// Finds usable chips that form a job's shape over direct chip-to-chip links
// (job.hpp, ChainShape): a chain of consecutive directly linked chips, a
// ring (also last to first), or a fully connected group. Groq's compiler
// fixes every transfer ahead of time, so the shape must hold link by link;
// under `deterministic` every hop must also have the same latency.
//
// The search works on cells: the usable chips of one node when they are
// fully connected (a GroqNode's 8 cards are), else each chip alone. A chain
// runs through whole cells, entering a cell at one chip and leaving it from
// another over a link to the next cell, so it crosses as few node
// boundaries as the cells allow. It is a depth-first search over cells with
// a step budget, trying every start cell, and keeps the best chain by: fewest
// taken chips (with `cost`, for suggestions), then the fewest levels crossed
// hop by hop (an inter-rack hop costs more than an inter-node one), then the
// fewest chips left over in the cells it touches, then the busiest domains
// (best fit). Deterministic: same inputs, same chain.
//
// Refusals are cheap: a start whose connected set of cells holds fewer
// chips than the shape is skipped without a step (so with no set large
// enough there is no search at all), a way on from a cell is cut when the
// unvisited cells it reaches hold too few chips, fewer usable chips than
// the size skip the search, and a chain that frees no more chips than it must (`cost`)
// with the fewest crossings ends it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/placement/job.hpp"
#include "topoplan/placement/scenario_mask.hpp"

namespace topoplan {

struct ChainRequest {
  std::uint32_t size = 0;                 // chips
  ChainShape shape = ChainShape::chain;   // none is searched as a chain
  bool deterministic = false;             // every hop at one latency
  /// Leave one whole usable node free in each domain of this level the
  /// shape uses; a domain without one is not used.
  std::optional<LevelIndex> spare;
  /// Steps of the search over all start cells (each step extends a partial
  /// chain by one cell).
  std::uint64_t budget = 200'000;
};

struct ChainFound {
  /// Accelerator indices (into Topology::accelerators()) in pipeline order;
  /// empty when no shape was found.
  std::vector<std::uint32_t> accelerators;
  /// The spare nodes kept beside it: one per domain of the spare level used.
  std::vector<DomainId> spares;
  std::uint32_t usable = 0;   // usable chips the search started from
  /// The most chips of the shape found (size when found): for a chain or a
  /// ring, the longest chain of directly linked usable chips the search
  /// reached; for a group, the largest fully connected cell.
  std::uint32_t longest = 0;
  bool exhausted = false;     // the budget ran out before every start was tried
  /// Ways that could not reach the size were cut short, so `longest` is the
  /// longest chain found, perhaps not the longest there is.
  bool pruned = false;
  /// The search ran. It does not when a cheap necessary condition already
  /// fails: fewer usable chips than the size, or (chain, ring) no connected
  /// set of usable chips over the shape's links as large; `longest` is then
  /// meaningless and `joined` says what there is.
  bool searched = false;
  /// Chain, ring: the most usable chips joined to each other through the
  /// shape's links (directly or over other usable chips; per latency class
  /// under `deterministic`), an upper bound on any chain; group: `longest`.
  std::uint32_t joined = 0;
};

/// Searches the accelerators with `usable[a]` set (one entry per
/// accelerator) over the links that are up under `mask` (null: the
/// topology's own states). With `cost` (one entry per accelerator, or
/// empty), chains over fewer costly chips win first: what to free for one.
ChainFound find_chain(const Topology& topology, std::span<const std::uint8_t> usable, const ChainRequest& request,
                      const ScenarioMask* mask = nullptr, std::span<const std::uint8_t> cost = {});

}  // namespace topoplan
