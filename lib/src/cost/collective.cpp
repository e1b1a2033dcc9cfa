#include "topoplan/cost/collective.hpp"

#include <array>
#include <string>

#include "topoplan/support/name_list.hpp"

namespace topoplan {

namespace {

constexpr std::array<std::string_view, kCollectiveCount> kCollectiveNames = {
    "allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "sendrecv"};

constexpr std::array<std::string_view, kAlgorithmCount> kAlgorithmNames = {
    "auto", "ring", "tree", "nvls", "nvlstree", "hierarchical", "p2p", "allpairs"};

constexpr std::array<std::string_view, kProtocolCount> kProtocolNames = {"ll", "ll128", "simple", "scheduled"};

}  // namespace

std::string_view collective_name(Collective op) { return kCollectiveNames[static_cast<std::size_t>(op)]; }

std::optional<Collective> parse_collective(std::string_view text) {
  for (std::size_t i = 0; i < kCollectiveNames.size(); ++i)
    if (kCollectiveNames[i] == text) return static_cast<Collective>(i);
  return std::nullopt;
}

std::vector<std::string> collective_names() { return {kCollectiveNames.begin(), kCollectiveNames.end()}; }

double bus_factor(Collective op, std::uint32_t ranks) {
  if (ranks == 0) return 0;
  const double n = ranks;
  switch (op) {
    case Collective::allreduce: return 2 * (n - 1) / n;
    case Collective::allgather:
    case Collective::reducescatter:
    case Collective::alltoall: return (n - 1) / n;
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::sendrecv: return ranks > 1 ? 1.0 : 0.0;
  }
  return 0;
}

std::string_view algorithm_name(Algorithm algorithm) {
  return kAlgorithmNames[static_cast<std::size_t>(algorithm)];
}

std::optional<Algorithm> parse_algorithm(std::string_view text) {
  for (std::size_t i = 0; i < kAlgorithmNames.size(); ++i)
    if (kAlgorithmNames[i] == text) return static_cast<Algorithm>(i);
  return std::nullopt;
}

std::vector<std::string> algorithm_names() { return {kAlgorithmNames.begin(), kAlgorithmNames.end()}; }

std::optional<AlgorithmSet> parse_algorithm_set(std::string_view text) {
  if (text == "auto") return kAllAlgorithms;
  std::string problem;
  const auto list = parse_name_list(text, kAlgorithmNames, ",+", problem);
  if (!list || (list->named & algorithm_bit(Algorithm::automatic))) return std::nullopt;
  return static_cast<AlgorithmSet>(list->selected(kAllAlgorithms));
}

std::string_view protocol_name(Protocol protocol) { return kProtocolNames[static_cast<std::size_t>(protocol)]; }

std::optional<ProtocolSet> parse_protocol_set(std::string_view text) {
  constexpr ProtocolSet kNccl =
      protocol_bit(Protocol::ll) | protocol_bit(Protocol::ll128) | protocol_bit(Protocol::simple);
  std::string problem;
  const auto list = parse_name_list(text, kProtocolNames, ",+", problem);
  if (!list || (list->named & protocol_bit(Protocol::scheduled))) return std::nullopt;
  return static_cast<ProtocolSet>(list->selected(kNccl) | protocol_bit(Protocol::scheduled));
}

}  // namespace topoplan
