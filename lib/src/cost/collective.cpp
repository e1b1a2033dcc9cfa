#include "topoplan/cost/collective.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace topoplan {

namespace {

constexpr std::array<std::string_view, kCollectiveCount> kCollectiveNames = {
    "allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "sendrecv"};

constexpr std::array<std::string_view, kAlgorithmCount> kAlgorithmNames = {
    "auto", "ring", "tree", "nvls", "nvlstree", "hierarchical", "p2p"};

constexpr std::array<std::string_view, kProtocolCount> kProtocolNames = {"ll", "ll128", "simple", "scheduled"};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

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
  const bool negate = !text.empty() && text.front() == '^';
  if (negate) text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  AlgorithmSet set = 0;
  while (true) {
    const std::size_t comma = text.find_first_of(",+");
    const std::string_view name = text.substr(0, comma);
    const std::optional<Algorithm> a = parse_algorithm(lower(name));
    if (!a || *a == Algorithm::automatic) return std::nullopt;
    set = static_cast<AlgorithmSet>(set | algorithm_bit(*a));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return negate ? static_cast<AlgorithmSet>(kAllAlgorithms & ~set) : set;
}

std::string_view protocol_name(Protocol protocol) { return kProtocolNames[static_cast<std::size_t>(protocol)]; }

std::optional<ProtocolSet> parse_protocol_set(std::string_view text) {
  const bool negate = !text.empty() && text.front() == '^';
  if (negate) text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  constexpr ProtocolSet kNccl =
      protocol_bit(Protocol::ll) | protocol_bit(Protocol::ll128) | protocol_bit(Protocol::simple);
  ProtocolSet set = 0;
  while (true) {
    const std::size_t comma = text.find_first_of(",+");
    const std::string name = lower(text.substr(0, comma));
    const auto* it = std::find(kProtocolNames.begin(), kProtocolNames.end(), name);
    if (it == kProtocolNames.end() || static_cast<Protocol>(it - kProtocolNames.begin()) == Protocol::scheduled)
      return std::nullopt;
    set = static_cast<ProtocolSet>(set | protocol_bit(static_cast<Protocol>(it - kProtocolNames.begin())));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (negate) set = static_cast<ProtocolSet>(kNccl & ~set);
  return static_cast<ProtocolSet>(set | protocol_bit(Protocol::scheduled));
}

}  // namespace topoplan
