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
};
inline constexpr int kAlgorithmCount = 7;

std::string_view algorithm_name(Algorithm algorithm);  // "auto" for automatic
std::optional<Algorithm> parse_algorithm(std::string_view text);
std::vector<std::string> algorithm_names();

/// NCCL's protocols (LL, LL128, Simple); `scheduled` is a compiler-scheduled
/// transfer without a protocol (Groq LPUs).
enum class Protocol : std::uint8_t { ll, ll128, simple, scheduled };
inline constexpr int kProtocolCount = 4;

std::string_view protocol_name(Protocol protocol);

}  // namespace topoplan
