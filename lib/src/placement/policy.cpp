#include "topoplan/placement/policy.hpp"

#include <fmt/format.h>

#include "topoplan/placement/topo_policy.hpp"

namespace topoplan {

std::vector<std::string> policy_names() { return {"topo", "naive"}; }

std::unique_ptr<PlacementPolicy> make_policy(std::string_view name, const Topology& topology,
                                             LevelIndex island_level) {
  (void)topology;
  if (name == "topo") return std::make_unique<TopoPolicy>(island_level);
  if (name == "naive") return std::make_unique<NaivePolicy>();
  std::vector<std::string> names = policy_names();
  std::string hint = did_you_mean(std::string(name), names);
  throw InputError({}, fmt::format("unknown policy '{}'; policies are {}{}{}", name, fmt::join(names, ", "),
                                   hint.empty() ? "" : "; ", hint));
}

}  // namespace topoplan
