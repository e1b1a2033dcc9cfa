// The vocabulary of the cost model: collective operations, the algorithms and
// protocols that implement them (NCCL's names), and nccl-tests' bus-bandwidth
// factors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topoplan {

enum class Collective : std::uint8_t {
  allreduce,
  allgather,
  reducescatter,
  alltoall,
  broadcast,
  reduce,
  sendrecv,
};
inline constexpr int kCollectiveCount = 7;

std::string_view collective_name(Collective op);
std::optional<Collective> parse_collective(std::string_view text);
std::vector<std::string> collective_names();

/// nccl-tests' busbw / algbw factor for `ranks` ranks (doc/PERFORMANCE.md,
/// hardware.md 2): 2(n-1)/n for allreduce, (n-1)/n for allgather,
/// reducescatter and alltoall, 1 for broadcast, reduce and sendrecv.
double bus_factor(Collective op, std::uint32_t ranks);

/// How a collective moves its data. `automatic` is only a request: results
/// always name the algorithm that was chosen.
enum class Algorithm : std::uint8_t {
  automatic,
  ring,          // NCCL ring (also the pipelined chain of broadcast and reduce)
  tree,          // NCCL tree: chains inside islands, double binary tree across
  nvls,          // NVLink SHARP: reduction in the NVSwitches of one island
  nvlstree,      // NVLS inside each island, tree across islands over NICs
  hierarchical,  // inside islands, then across islands over rails (2D / PXN)
  p2p,           // direct point-to-point sends (alltoall, sendrecv)
  allpairs,      // RCCL's MSCCL all-pairs all-reduce: 8 AMD GPUs of one xGMI mesh
};
inline constexpr int kAlgorithmCount = 8;

std::string_view algorithm_name(Algorithm algorithm);  // "auto" for automatic
std::optional<Algorithm> parse_algorithm(std::string_view text);
std::vector<std::string> algorithm_names();

/// A set of algorithms, one bit per Algorithm (the bit of `automatic` unused).
using AlgorithmSet = std::uint8_t;
inline constexpr AlgorithmSet algorithm_bit(Algorithm a) {
  return static_cast<AlgorithmSet>(1u << static_cast<unsigned>(a));
}
inline constexpr AlgorithmSet kAllAlgorithms = 0xfe;
/// NCCL_ALGO's syntax: `ring,tree` allows those, `^nvls,nvlstree` all but
/// those (`+` may stand for the comma). Names as parse_algorithm, in any
/// case (NCCL's own spelling, `Ring,Tree`, works); nullopt
/// when one is unknown or the list is empty. `auto` alone is every algorithm.
std::optional<AlgorithmSet> parse_algorithm_set(std::string_view text);

/// NCCL's protocols (LL, LL128, Simple); `scheduled` is a compiler-scheduled
/// transfer without a protocol (Groq LPUs).
enum class Protocol : std::uint8_t { ll, ll128, simple, scheduled };
inline constexpr int kProtocolCount = 4;

std::string_view protocol_name(Protocol protocol);

/// A set of protocols, one bit per Protocol.
using ProtocolSet = std::uint8_t;
inline constexpr ProtocolSet protocol_bit(Protocol p) {
  return static_cast<ProtocolSet>(1u << static_cast<unsigned>(p));
}
inline constexpr ProtocolSet kAllProtocols = 0x0f;
/// NCCL_PROTO's syntax: `Simple` or `LL,LL128` allows those, `^LL128` all
/// but those (names without case, `+` may stand for the comma); `scheduled`
/// (no NCCL) is always in the set. nullopt when a name is unknown or the list
/// is empty.
std::optional<ProtocolSet> parse_protocol_set(std::string_view text);

/// The part of the fabric a collective's traffic crosses.
enum class Tier : std::uint8_t {
  scale_up,  // inside an island over NVLink/xGMI/C2C (per rank)
  pcie,      // inside a node without scale-up links (per rank)
  socket,    // between the CPU sockets of a node
  nic,       // each rank's own network share (per rank)
  island,    // out of an island (or node) through its ranks' NICs
  level,     // out of a domain of a coarser level through its switch tier
};

std::string_view tier_name(Tier tier);
/// The tiers outside the scale-up islands: nic, island, level.
bool is_outside(Tier tier);

}  // namespace topoplan
